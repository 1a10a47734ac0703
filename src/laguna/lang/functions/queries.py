"""yaql's query functions compiled to direct Python.

yaql calls `where`, `select`, `orderBy`... through its overload resolution,
and every item a lambda sees costs another resolution per operator; its
ordering evaluates both key lambdas on every comparison. The compiler asks
here for a direct form of each common query function: the lambdas are
compiled once, run on one fresh child scope per item (as yaql's do), and
orderings evaluate each key once per item before one stable sort.

Each direct form takes only the arguments it knows exactly (a receiver that
is a tuple, a list, a set, an iterator or an ordering; plain positional
arguments) and hands anything else to yaql itself, with the values already
computed, so a call gives what yaql gives: the same value, the same laziness
(`select` and `where` stay lazy, `first` reads one item), the same errors
(a StopIteration becomes yaql's WrappedException) and the same limits (the
collection-size limit as yaql's ``Iterable`` parameters apply it, the memory
quota on each result). Legacy packages (Format 1.0/1.1) keep yaql's own.

Registered by :func:`register` into the language's :class:`FunctionTable`:
method forms (`$x.where(...)`) as fast methods, function forms (`range(3)`,
`dict(a => 1)`, `concat(...)`, `len(...)`) as fast or compiled functions.
"""

from __future__ import annotations

import collections.abc
import sys
import functools
import itertools
import operator
import typing as t

from yaql.language import exceptions as yaql_exceptions
from yaql.language import expressions as ast
from yaql.language import runner, utils
from yaql.standard_library import queries as yaql_queries

from laguna.lang import limits
from laguna.lang.appended import Appended
from laguna.lang.limits import CHECK_EVERY
from laguna.lang.functions.itemlambdas import compile_lambda, item_lambda, item_probe
from laguna.lang.rows import dict_row
from laguna.lang.scope import NO_VALUE, engine_of

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler, Fn
    from laguna.lang.functions.table import FunctionTable

Method = t.Callable[[t.Any, t.Any], t.Any]
Key = t.Callable[[t.Any], t.Any]

_Iterator = collections.abc.Iterator
# receivers taken as they are; anything else iterable (dict views, bytes,
# yaql's own classes) is yaql's to convert
_COLLECTIONS = (tuple, list, frozenset, set)
_NUMBER = (int, float)


def _engine(scope: t.Any) -> t.Any:
    return engine_of(scope, False)


def _iterable(engine: t.Any, value: t.Any) -> t.Any:
    """``value`` as yaql's ``Iterable`` parameter converts it (a sequence
    longer than the limit refused now, an iterator refused at the item past
    it), or NO_VALUE when the direct path does not take it."""
    tv = type(value)
    if tv in _COLLECTIONS:
        # (yaql's limit_iterable of a sized collection, without its ABC checks)
        limit = utils.get_max_collection_size(engine)
        if 0 <= limit < len(value):
            raise yaql_exceptions.CollectionTooLargeException(limit)
        return value
    if isinstance(value, yaql_queries.OrderingIterable):
        return utils.limit_iterable(value, engine)
    if isinstance(value, _Iterator):
        return _limited_iterator(value, utils.get_max_collection_size(engine))
    return NO_VALUE


_RANGE_ITERATOR = type(iter(range(0)))


def _limited_iterator(items: t.Iterator[t.Any], limit: int) -> t.Iterator[t.Any]:
    """The iterator ``items`` as yaql's limit_iterable wraps it (its item past
    ``limit`` read, then refused), read at C speed: the first ``limit`` items,
    then a look for one more."""
    if limit < 0 or (type(items) is _RANGE_ITERATOR and operator.length_hint(items) <= limit):
        return items   # (a range's iterator knows its length exactly)
    return itertools.chain(itertools.islice(items, limit), _refuse_more(items, limit))


def _refuse_more(items: t.Iterator[t.Any], limit: int) -> t.Iterator[t.Any]:
    for _ in items:
        raise yaql_exceptions.CollectionTooLargeException(limit)
    yield from ()


def _result(engine: t.Any, value: t.Any) -> t.Any:
    """What yaql's runner checks of every function's result: the memory quota."""
    utils.limit_memory_usage(engine, (1, value))
    return value


def _checked(items: t.Iterable[t.Any]) -> t.Iterable[t.Any]:
    """The items of ``items``, the clock looked at every CHECK_EVERY of them:
    for the loops in Python here, which may read many (a lazy sequence under
    a large iterators limit) or do much for each. A short list or tuple is
    given as it is (what is done for each item looks at the clock itself)."""
    if (type(items) is tuple or type(items) is list) and len(items) <= CHECK_EVERY:
        return items
    return limits.counted(items)


def _stop(error: StopIteration) -> yaql_exceptions.WrappedException:
    # yaql's runner wraps a StopIteration that leaves a function
    return yaql_exceptions.WrappedException(error)


# a lambda over the items, on a child scope per item or one per call when it
# keeps nothing of its scope (lang/functions/itemlambdas.py)
_lambda = item_lambda


def _values_call(name: str) -> t.Callable[..., t.Any]:
    """``name`` called through yaql with computed values, as a Delegate does."""
    def call(scope: t.Any, *values: t.Any) -> t.Any:
        limits.spend(limits.CALL_STEPS)
        args = tuple(ast.Constant(v) for v in values)
        return runner.call(name, scope, args, {}, _engine(scope), NO_VALUE, scope)
    return call


def _plain(args: t.Sequence[t.Any]) -> bool:
    return not any(isinstance(a, ast.MappingRuleExpression) for a in args)


MethodFactory = t.Callable[["Compiler", t.Sequence[t.Any]], "Method | None"]


def _factory(arities: t.Collection[int]) -> t.Callable[[t.Callable[..., t.Any]], MethodFactory]:
    """A fast method from ``body(scope, engine, collection, *compiled_args)``:
    taken for non-legacy code called with ``arities`` positional arguments
    only; ``body`` gets the receiver converted (:func:`_iterable`) and the
    argument closures."""
    def wrap(body: t.Callable[..., t.Any]) -> MethodFactory:
        def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
            if compiler.legacy or len(arg_nodes) not in arities or not _plain(arg_nodes):
                return None
            args = [compile_lambda(compiler, a) for a in arg_nodes]

            def fast(scope: t.Any, receiver: t.Any) -> t.Any:
                engine = _engine(scope)
                collection = _iterable(engine, receiver)
                if collection is NO_VALUE:
                    return NO_VALUE
                try:
                    return _result(engine, body(scope, engine, collection, *args))
                except StopIteration as error:
                    raise _stop(error) from error
            return fast
        return factory
    return wrap


# -- filtering and projection ------------------------------------------------------
@_factory((1,))
def _where(scope: t.Any, engine: t.Any, collection: t.Any, predicate: Fn) -> t.Any:
    return filter(_lambda(predicate, scope), collection)


@_factory((1,))
def _select(scope: t.Any, engine: t.Any, collection: t.Any, selector: Fn) -> t.Any:
    return map(_lambda(selector, scope), collection)


@_factory((1,))
def _select_many(scope: t.Any, engine: t.Any, collection: t.Any, selector: Fn) -> t.Any:
    select = _lambda(selector, scope)

    def items() -> t.Iterator[t.Any]:
        for item in collection:
            inner = select(item)
            if utils.is_iterable(inner):
                yield from inner
            else:
                yield inner
    return items()


def _slice(start: bool) -> MethodFactory:
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or len(arg_nodes) != 1 or not _plain(arg_nodes):
            return None
        count_fn = compiler.node(arg_nodes[0])
        name = "skip" if start else "take"

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            engine = _engine(scope)
            count = count_fn(scope)
            collection = _iterable(engine, receiver) if type(count) is int else NO_VALUE
            if collection is NO_VALUE:
                return _values_method(scope, name, receiver, count)
            if start:
                return _result(engine, itertools.islice(collection, count, None))
            return _result(engine, itertools.islice(collection, count))
        return fast
    return factory


def _values_method(scope: t.Any, name: str, receiver: t.Any, *values: t.Any) -> t.Any:
    """Method ``name`` called through yaql with the receiver and arguments
    already computed (they are not evaluated twice)."""
    limits.spend(limits.CALL_STEPS)
    args = tuple(ast.Constant(v) for v in values)
    return runner.call(name, scope, args, {}, _engine(scope), receiver, scope)


def _to_list(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    """`toList()`: a lazy sequence read a chunk at a time at C speed
    (limits.limited_tuple: the clock between chunks, the item past the
    iterators limit refused), not through two generators an item."""
    if compiler.legacy or arg_nodes:
        return None

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        engine = _engine(scope)
        collection = _iterable(engine, receiver)
        if collection is NO_VALUE:
            return NO_VALUE
        if type(collection) is tuple:
            return collection
        if type(collection) in _COLLECTIONS:
            limits.spend(len(collection))   # a copy: one step an item
        return _result(engine, limits.limited_tuple(limits.of(scope), collection))
    return fast


def _append(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or not _plain(arg_nodes):
        return None
    args = [compiler.node(a) for a in arg_nodes]

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        engine = _engine(scope)
        collection = _iterable(engine, receiver)
        if collection is NO_VALUE:
            return NO_VALUE
        values = [a(scope) for a in args]
        if type(collection) is tuple:
            # freezing it checks only the new items when the tuple is frozen
            return _result(engine, Appended(collection, values))
        return _result(engine, itertools.chain(collection, values))
    return fast


def _distinct(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or len(arg_nodes) > 1 or not _plain(arg_nodes):
        return None
    key_fn = compile_lambda(compiler, arg_nodes[0]) if arg_nodes else None

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        engine = _engine(scope)
        collection = _iterable(engine, receiver)
        if collection is NO_VALUE:
            return NO_VALUE
        key = _lambda(key_fn, scope) if key_fn is not None else None

        def items() -> t.Iterator[t.Any]:
            seen: set[t.Any] = set()
            add = seen.add
            # the steps counted inline (a chunked reader between costs more
            # than this loop's own work for each item)
            steps = 0
            for item in collection:
                steps += 1
                if steps == CHECK_EVERY:
                    steps = 0
                    limits.spend(CHECK_EVERY)
                k = item if key is None else key(item)
                if k not in seen:
                    add(k)
                    utils.limit_memory_usage(engine, (1, seen))
                    yield item
            limits.spend(steps)
        return _result(engine, items())
    return fast


# -- single values -------------------------------------------------------------------
def _first_or_last(last: bool) -> MethodFactory:
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or len(arg_nodes) > 1 or not _plain(arg_nodes):
            return None
        default_fn = compiler.node(arg_nodes[0]) if arg_nodes else None

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            engine = _engine(scope)
            collection = _iterable(engine, receiver)
            if collection is NO_VALUE:
                return NO_VALUE
            default = default_fn(scope) if default_fn is not None else NO_VALUE
            try:
                if last:
                    if isinstance(collection, utils.SequenceType):
                        if len(collection) == 0:
                            if default is NO_VALUE:
                                raise StopIteration()
                            return _result(engine, default)
                        return _result(engine, collection[-1])
                    value = default
                    for value in _checked(collection):
                        pass
                    if value is NO_VALUE:
                        raise StopIteration()
                    return _result(engine, value)
                for value in collection:
                    return _result(engine, value)
                if default is NO_VALUE:
                    raise StopIteration()
                return _result(engine, default)
            except StopIteration as error:
                raise _stop(error) from error
        return fast
    return factory


@_factory((0,))
def _single(scope: t.Any, engine: t.Any, collection: t.Any) -> t.Any:
    items = iter(collection)
    result = next(items)
    try:
        next(items)
    except StopIteration:
        return result
    raise StopIteration("Collection contains more than one item")


def _aggregate(operator: str, combine: t.Callable[[t.Any, t.Any], t.Any]) -> MethodFactory:
    """sum, min and max: yaql's reduce with a two-argument function, direct
    where both values are numbers (not booleans), through yaql otherwise."""
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or len(arg_nodes) > 1 or not _plain(arg_nodes):
            return None
        initial_fn = compiler.node(arg_nodes[0]) if arg_nodes else None
        slow = _values_call(operator)

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            engine = _engine(scope)
            collection = _iterable(engine, receiver)
            if collection is NO_VALUE:
                return NO_VALUE
            initial = initial_fn(scope) if initial_fn is not None else NO_VALUE
            items = iter(collection)
            total = initial
            if total is NO_VALUE:
                for total in items:
                    break
                else:   # what yaql's reduce raises
                    return functools.reduce(combine, ())
            # yaql's reduce, its step inline: numbers (not booleans) combined
            # directly, anything else through yaql; the steps counted here
            # (a local counter costs a tenth of a generator between)
            steps = 0
            for b in items:
                steps += 1
                if steps == CHECK_EVERY:
                    steps = 0
                    limits.spend(CHECK_EVERY)
                ta, tb = type(total), type(b)
                if (ta is int or ta is float) and (tb is int or tb is float):
                    total = combine(total, b)
                else:
                    total = slow(scope, total, b)
            limits.spend(steps)
            return _result(engine, total)
        return fast
    return factory


def _max(a: t.Any, b: t.Any) -> t.Any:
    return b if b > a else a   # yaql's max(a, b): b only when greater


def _min(a: t.Any, b: t.Any) -> t.Any:
    return a if b > a else b   # yaql's min(a, b): b unless greater


def _any_or_all(every: bool) -> MethodFactory:
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or len(arg_nodes) > 1 or not _plain(arg_nodes):
            return None
        predicate_fn = compile_lambda(compiler, arg_nodes[0]) if arg_nodes else None

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            engine = _engine(scope)
            collection = _iterable(engine, receiver)
            if collection is NO_VALUE:
                return NO_VALUE
            predicate = _lambda(predicate_fn, scope) if predicate_fn is not None else bool
            if every:
                for item in _checked(collection):
                    if not predicate(item):
                        return False
                return True
            for item in _checked(collection):
                if predicate_fn is None or predicate(item):
                    return True
            return False
        return fast
    return factory


@_factory((1,))
def _index_of(scope: t.Any, engine: t.Any, collection: t.Any, item_fn: Fn) -> t.Any:
    item = item_fn(scope)
    for index, value in enumerate(_checked(collection)):
        if value == item:
            return index
    return -1


@_factory((0,))
def _count(scope: t.Any, engine: t.Any, collection: t.Any) -> t.Any:
    if type(collection) in _SIZED:
        return len(collection)
    return limits.count_items(limits.of(scope), iter(collection))


_SIZED = frozenset((tuple, list, str, utils.FrozenDict, dict, frozenset, set))


def _len_value(value: t.Any) -> t.Any:
    """yaql's `len` of a string, a sequence, a dictionary or a set, and the
    count of an iterator's items: within the iterators limit, unlike
    yaql's (`len(sequence())` would never end) and at the deadline."""
    tv = type(value)
    if tv in _SIZED:
        return len(value)
    if isinstance(value, _Iterator):
        return limits.count_items(limits.active(), value)
    return NO_VALUE


def _len(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or arg_nodes:
        return None
    return lambda scope, receiver: _len_value(receiver)


def _fast_len(*args: t.Any) -> t.Any:
    return _len_value(args[0]) if len(args) == 1 else NO_VALUE


# -- grouping ---------------------------------------------------------------------------
def _group_by(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or not 1 <= len(arg_nodes) <= 3 or not _plain(arg_nodes):
        return None
    fns = [compile_lambda(compiler, a) for a in arg_nodes]
    key_fn = fns[0]
    value_fn = fns[1] if len(fns) > 1 else None
    aggregator_fn = fns[2] if len(fns) > 2 else None

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        engine = _engine(scope)
        collection = _iterable(engine, receiver)
        if collection is NO_VALUE:
            return NO_VALUE
        key = _lambda(key_fn, scope)
        value = _lambda(value_fn, scope) if value_fn is not None else None
        # yaql's own aggregator: the new form, and the 1.1.1 form as fallback
        aggregator = yaql_queries.GroupAggregator(
            _lambda(aggregator_fn, scope) if aggregator_fn is not None else None, True)
        groups: dict[t.Any, list[t.Any]] = {}
        quota = utils.get_memory_quota(engine)
        try:
            for item in _checked(collection):
                v = item if value is None else value(item)
                k = key(item)
                group = groups.get(k)
                if group is not None:
                    group.append(v)
                    continue
                groups[k] = [v]
                # yaql checks the quota after every item; the dict's size
                # (all sys.getsizeof counts of it) grows only with a new key
                if quota > 0 and sys.getsizeof(groups, 0) > quota:
                    raise yaql_exceptions.MemoryQuotaExceededException()
        except StopIteration as error:
            raise _stop(error) from error
        return _result(engine, map(aggregator, groups.items()))
    return fast


# -- ordering ---------------------------------------------------------------------------
class Ordering(yaql_queries.OrderingIterable):  # type: ignore[misc]
    """yaql's ordering (sorted on first iteration, `thenBy` adds fields),
    sorting with each key evaluated once per item.

    yaql compares with `#operator_<` and `#operator_>` and evaluates a field's
    keys only for items the fields before tie on; so does this. Keys that are
    all numbers (no NaN) or all strings compare in Python; any other keys
    through yaql's operators, as yaql's comparator does.

    A later field whose lambda has a generated form (pure) is probed on every
    item first: when it takes them all and gives plain keys, the fields are
    sorted by one stable sort each, last field first, at C speed, which
    orders as the runs of ties would."""

    def __init__(self, collection: t.Any, operator_lt: t.Any, operator_gt: t.Any) -> None:
        super().__init__(collection, operator_lt, operator_gt)
        # selector (as appended) -> its generated form alone (item_probe)
        self.probes: dict[Key, Key | None] = {}

    def __repr__(self) -> str:
        # as yaql's own shows in messages (`No method "len" for receiver <...>`)
        return f"<yaql.standard_library.queries.OrderingIterable object at {id(self):#x}>"

    def add_field(self, selector: Key, ascending: bool, probe: Key | None) -> None:
        self.append_field(selector, ascending)
        self.probes[selector] = probe

    def do_sort(self) -> None:
        # read a chunk at a time, the clock looked at between chunks
        items = list(limits.limited_tuple(limits.active(), self.collection))
        fields = list(self.order)
        if len(items) < 2 or not fields:
            self.sorted = items
            return
        selector, ascending = fields[0]
        keys = _keys(selector, items)
        plain = _plain_keys(keys)
        if plain and len(fields) > 1:
            later = [self._probed(field, items) for field in fields[1:]]
            if all(k is not None for k in later):
                order = list(range(len(items)))
                for (_, up), field_keys in zip(reversed(fields), reversed([keys, *later])):
                    order.sort(key=field_keys.__getitem__, reverse=not up)
                self.sorted = [items[i] for i in order]
                return
        self.sorted = _sort(items, fields, self.operator_lt, self.operator_gt, keys, plain)

    def _probed(self, field: tuple[Key, bool], items: list[t.Any]) -> list[t.Any] | None:
        """The field's keys of every item, plain, from its generated form alone."""
        probe = self.probes.get(field[0])
        if probe is None:
            return None
        keys = _keys(probe, items)
        return keys if _plain_keys(keys) else None   # (MISSED is not plain)


def _keys(selector: Key, items: list[t.Any]) -> list[t.Any]:
    """``selector`` of every item, a chunk of items at a time, the clock
    looked at between chunks."""
    if len(items) <= CHECK_EVERY:
        limits.spend(len(items))
        return [selector(item) for item in items]
    keys: list[t.Any] = []
    for start in range(0, len(items), CHECK_EVERY):
        keys.extend(map(selector, items[start:start + CHECK_EVERY]))
        limits.spend(CHECK_EVERY)
    return keys


def _plain_keys(keys: list[t.Any]) -> bool:
    first = type(keys[0])
    if first is str:
        return all(type(k) is str for k in keys)
    if first is int or first is float:
        return all((type(k) is int or (type(k) is float and k == k)) for k in keys)
    return False


def _sort(items: list[t.Any], fields: list[tuple[Key, bool]], lt: t.Any, gt: t.Any,
          keys: list[t.Any] | None = None, plain: bool = False) -> list[t.Any]:
    """``items`` sorted by ``fields``, the keys of the first given or evaluated
    here, the later fields' only within runs of ties."""
    if len(items) < 2 or not fields:
        return items
    selector, ascending = fields[0]
    if keys is None:
        keys = _keys(selector, items)
        plain = _plain_keys(keys)
    if plain:
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=not ascending)
    else:
        def compare(a: int, b: int) -> int:
            result = -1 if lt(keys[a], keys[b]) else 1 if gt(keys[a], keys[b]) else 0
            return result if ascending else -result
        order = sorted(range(len(items)), key=functools.cmp_to_key(compare))
    if len(fields) == 1:
        return [items[i] for i in order]
    rest = fields[1:]
    result: list[t.Any] = []
    run = [order[0]]
    for index in order[1:]:
        a, b = keys[run[0]], keys[index]
        if (a == b) if plain else not (lt(a, b) or gt(a, b)):
            run.append(index)
            continue
        result.extend(_sort([items[i] for i in run], rest, lt, gt))
        run = [index]
    result.extend(_sort([items[i] for i in run], rest, lt, gt))
    return result


def _comparisons(scope: t.Any) -> tuple[t.Callable[[t.Any, t.Any], t.Any], ...]:
    less, greater = _values_call("#operator_<"), _values_call("#operator_>")
    return (lambda a, b: less(scope, a, b)), (lambda a, b: greater(scope, a, b))


def _order_by(ascending: bool) -> MethodFactory:
    @_factory((1,))
    def order(scope: t.Any, engine: t.Any, collection: t.Any, selector: Fn) -> t.Any:
        lt, gt = _comparisons(scope)
        ordering = Ordering(collection, lt, gt)
        ordering.add_field(_lambda(selector, scope), ascending, item_probe(selector, scope))
        return ordering
    return order


def _then_by(ascending: bool) -> MethodFactory:
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or len(arg_nodes) != 1 or not _plain(arg_nodes):
            return None
        selector = compile_lambda(compiler, arg_nodes[0])

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            if not isinstance(receiver, yaql_queries.OrderingIterable):
                return NO_VALUE
            if isinstance(receiver, Ordering):
                receiver.add_field(_lambda(selector, scope), ascending,
                                   item_probe(selector, scope))
            else:
                receiver.append_field(_lambda(selector, scope), ascending)
            receiver.context = scope   # as yaql's thenBy does
            return _result(_engine(scope), receiver)
        return fast
    return factory


# -- functions ------------------------------------------------------------------------
def _fast_range(*args: t.Any) -> t.Any:
    if not 1 <= len(args) <= 3 or any(type(a) is not int for a in args):
        return NO_VALUE
    return iter(range(*args))


def _fast_concat(*args: t.Any) -> t.Any:
    """Strings (the guarded concat, within the string limit) or collections."""
    if not args:
        return NO_VALUE
    if all(type(a) is str for a in args):
        limits.check_string(limits.active(), sum(len(a) for a in args))
        return "".join(args)
    return NO_VALUE


def _concat_collections(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Fn | None:
    """concat(...) of strings or of collections (yaql's extension method)."""
    if compiler.legacy or not arg_nodes or not _plain(arg_nodes):
        return None
    args = [compiler.node(a) for a in arg_nodes]
    slow = _values_call("concat")

    def call(scope: t.Any) -> t.Any:
        values = [a(scope) for a in args]
        strings = _fast_concat(*values)
        if strings is not NO_VALUE:
            return strings
        engine = _engine(scope)
        collections_ = [_iterable(engine, v) if type(v) is not str else NO_VALUE
                        for v in values]
        if any(c is NO_VALUE for c in collections_):
            return slow(scope, *values)
        return _result(engine, itertools.chain(*collections_))
    return call


def _concat_method(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or not _plain(arg_nodes):
        return None
    args = [compiler.node(a) for a in arg_nodes]

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        engine = _engine(scope)
        values = [receiver] + [a(scope) for a in args]
        collections_ = [_iterable(engine, v) for v in values]
        if any(c is NO_VALUE for c in collections_):
            return _values_method(scope, "concat", receiver, *values[1:])
        return _result(engine, itertools.chain(*collections_))
    return fast


def _constant(value: t.Any) -> Fn:
    return lambda scope: value


def _dict(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Fn | None:
    """dict(key => value, ...): yaql's dict of mapping rules."""
    if compiler.legacy or not arg_nodes or not all(
            isinstance(a, ast.MappingRuleExpression) for a in arg_nodes):
        return None
    pairs = []
    for rule in arg_nodes:
        source = rule.source
        key = (_constant(source.value) if isinstance(source, ast.KeywordConstant)
               else compiler.node(source))
        pairs.append((key, compiler.node(rule.destination)))

    def build(scope: t.Any) -> t.Any:
        return dict_row(_engine(scope), [(k(scope), v(scope)) for k, v in pairs])
    return build


def _join(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    """`$strings.join(sep)` and `sep.join($strings)` of strings, within the
    string limit; any other case through yaql (the guarded join)."""
    if compiler.legacy or len(arg_nodes) != 1 or not _plain(arg_nodes):
        return None
    other_fn = compiler.node(arg_nodes[0])

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        other = other_fn(scope)
        if type(receiver) is str:
            separator, sequence = receiver, other
        else:
            separator, sequence = other, receiver
        if (type(separator) is str and type(sequence) in (tuple, list)
                and all(type(s) is str for s in sequence)):
            size = sum(len(s) for s in sequence) + len(separator) * max(len(sequence) - 1, 0)
            if size + 64 <= limits.active().memory_quota:
                return _result(_engine(scope), separator.join(sequence))
        return _values_method(scope, "join", receiver, other)
    return fast


def register(table: FunctionTable) -> None:
    for name, factory in (
            ("where", _where), ("filter", _where), ("select", _select), ("map", _select),
            ("selectMany", _select_many), ("skip", _slice(True)), ("take", _slice(False)),
            ("limit", _slice(False)), ("toList", _to_list), ("append", _append), ("distinct", _distinct),
            ("first", _first_or_last(False)), ("last", _first_or_last(True)),
            ("single", _single), ("sum", _aggregate("#operator_+", operator.add)),
            ("max", _aggregate("max", _max)), ("min", _aggregate("min", _min)),
            ("any", _any_or_all(False)), ("all", _any_or_all(True)),
            ("indexOf", _index_of), ("count", _count), ("len", _len),
            ("groupBy", _group_by), ("orderBy", _order_by(True)),
            ("orderByDescending", _order_by(False)), ("thenBy", _then_by(True)),
            ("thenByDescending", _then_by(False)), ("concat", _concat_method),
            ("join", _join)):
        table.add_fast_method(name, factory)
    table.add_fast_function("range", _fast_range)
    table.add_fast_function("len", _fast_len)
    table.add_compiled_function("concat", _concat_collections)
    table.add_compiled_function("dict", _dict)


__all__ = ["Ordering", "register"]
