"""What compiled expressions call at run time: attribute reads, method
dispatch, type names, the MuranoPL built-in functions and contract methods."""

from __future__ import annotations

import itertools
import time
import typing as t

from yaql.language import expressions as ast
from yaql.language import utils

from laguna.lang import appended, contracts, errors, limits
from laguna.lang.objects import MuranoObject
from laguna.lang.reflection import ReflectionView
from laguna.lang.scope import NO_VALUE, Scope
from laguna.lang.types import MuranoClass, TypeRef

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler, Fn
    from laguna.lang.functions import FunctionTable

_SCALARS = frozenset((int, float, str, bytes, bool, type(None)))   # bytes stay bytes
_FLAT = _SCALARS | {MuranoObject, TypeRef}


# A FrozenDict found (or made) frozen all the way down carries this mark:
# FrozenDicts are immutable, so it stays true, and freezing it again (values
# are frozen at every call, return and property write) is one lookup instead
# of a walk or a copy of a whole template.
DEEP_MARK = "laguna_deep"


_ROW_TYPES = frozenset((utils.FrozenDict,))


def _marked_rows(items: tuple[t.Any, ...]) -> bool:
    """Whether ``items`` are all FrozenDicts marked frozen all the way down
    (the rows of a query: generated rows are made marked), checked at C speed."""
    return _ROW_TYPES.issuperset(map(type, items)) and all(
        map(getattr, items, itertools.repeat(DEEP_MARK), itertools.repeat(False)))


def _frozen(value: t.Any) -> bool:
    """Whether `value` is MuranoPL data already, all the way down."""
    tv = type(value)
    if tv in _FLAT:
        return True
    if tv is utils.FrozenDict:
        if DEEP_MARK in value.__dict__:
            return True
        items = value._d
        if all(map(_frozen, items.values())) and all(map(_frozen, items)):
            setattr(value, DEEP_MARK, True)
            return True
        return False
    if tv is tuple:
        return (_FLAT.issuperset(map(type, value)) or _marked_rows(value)
                or all(map(_frozen, value)))
    return False


def _deep(made: utils.FrozenDict) -> utils.FrozenDict:
    setattr(made, DEEP_MARK, True)
    return made


def freeze(value: t.Any) -> t.Any:
    """MuranoPL data is immutable: lists become tuples, dicts FrozenDicts."""
    tv = type(value)
    if tv in _SCALARS or tv is MuranoObject:
        return value
    if tv is tuple:
        # Most tuples are already frozen (every stored value is): check before copying.
        if _frozen(value):
            return value
        return tuple(freeze(v) for v in value)
    if tv is list:
        return tuple(freeze(v) for v in value)
    if tv is appended.Appended:
        # a list grown in a loop: only the new items are checked (else read
        # below as any lazy value)
        grown = appended.frozen(value, limits.active().iterators, freeze)
        if grown is not None:
            return grown
    if tv is utils.FrozenDict:
        # rows of a query are frozen again and again: a copy only when needed
        if _frozen(value):
            return value
        return _deep(utils.FrozenDict((freeze(k), freeze(v)) for k, v in value._d.items()))
    if isinstance(value, dict):
        return _deep(utils.FrozenDict((freeze(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    if isinstance(value, (str, TypeRef, MuranoClass)):
        return value
    if utils.is_iterable(value) and not isinstance(value, (MuranoObject, TypeRef)):
        # a lazy sequence (`range(1000000000)`) becomes a tuple: no longer
        # than the running call's limits allow
        items = limits.limited_tuple(limits.active(), value)
        if not _FLAT.issuperset(map(type, items)) and not _marked_rows(items):
            items = tuple(freeze(v) for v in items)
        appended.remember(items)
        return items
    return value


def thaw(value: t.Any) -> t.Any:
    """Plain JSON-able Python data (lists and dicts) from MuranoPL data."""
    if isinstance(value, (tuple, list)):
        return [thaw(v) for v in value]
    if isinstance(value, (dict, utils.FrozenDict)):
        return {thaw(k): thaw(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return [thaw(v) for v in value]
    return value


# -- types ------------------------------------------------------------------------
def resolve_type_ref(scope: t.Any, prefix: str, name: str) -> TypeRef:
    frame = scope.frame
    cls = frame.cls
    key = (prefix, name)
    ref: TypeRef | None = cls.type_cache.get(key)
    if ref is None:
        full = cls.resolve_name(f"{prefix}:{name}" if prefix or ":" in name else f":{name}")
        ref = frame.executor.find_class(full, cls).ref
        cls.type_cache[key] = ref
    return ref


def to_type(scope: t.Any, value: t.Any) -> MuranoClass:
    """A class from a type object, a class, an object or a (short) name."""
    if isinstance(value, TypeRef):
        return value.type
    if isinstance(value, MuranoClass):
        return value
    if isinstance(value, MuranoObject):
        return value.type
    if isinstance(value, str):
        frame = scope.frame
        return t.cast(MuranoClass, frame.executor.find_class(frame.cls.resolve_name(value),
                                                             frame.cls))
    raise errors.DslError(f"{contracts.format_scalar(value)} is not a type")


def is_instance(scope: t.Any, obj: t.Any, type_: t.Any) -> bool:
    if not isinstance(obj, MuranoObject):
        return False
    cls = to_type(scope, type_)
    return cls in obj.real_this.type.ancestry


# -- attributes and methods ---------------------------------------------------------
_MAPPABLE = (MuranoObject, ReflectionView, utils.FrozenDict, dict)


def get_attribute(scope: t.Any, receiver: t.Any, name: str, slow: t.Callable[..., t.Any]) -> t.Any:
    if isinstance(receiver, MuranoObject):
        frame = scope.frame
        return receiver.get_property(name, frame.cls if frame is not None else None)
    if isinstance(receiver, TypeRef):
        frame = scope.frame
        return frame.executor.get_static_property(receiver.type, name,
                                                  frame.cls if frame else None)
    if isinstance(receiver, ReflectionView):
        getter = receiver.attributes.get(name)
        value = getter(receiver, scope.frame) if getter is not None else NO_VALUE
        if value is not NO_VALUE:
            return value
    elif type(receiver) in (tuple, list) or utils.is_iterator(receiver):
        # `$list.name` maps over the list. yaql's own mapping cannot read MuranoPL
        # objects (`typeinfo($).ancestors.name`) and raises on a dict without the
        # key, where a single `$dict.name` is null. The first item decides before
        # a long iterator is consumed.
        iterator = iter(receiver)
        first = next(iterator, NO_VALUE)
        if first is NO_VALUE:
            return slow(scope, ())
        items = (first, *iterator) if isinstance(first, _MAPPABLE) else None
        if items is not None and all(isinstance(item, _MAPPABLE) for item in items):
            return tuple(item.get(name) if isinstance(item, (utils.FrozenDict, dict))
                         else get_attribute(scope, item, name, slow) for item in items)
        if receiver is iterator:   # an iterator: hand on what was read of it too
            receiver = items if items is not None else itertools.chain((first,), iterator)
    return slow(scope, receiver)


def call_method(scope: t.Any, receiver: t.Any, name: str, positional: list[Fn],
                named: list[tuple[str, Fn]], slow: t.Callable[..., t.Any],
                fast: t.Callable[..., t.Any] | None, builtin: Builtin | None) -> t.Any:
    frame = scope.frame
    if type(receiver) is MuranoObject or isinstance(receiver, MuranoObject):
        cls = receiver.type
        # (find_methods' own cache, read without its call)
        found = cls._method_cache.get(name) or cls.find_methods(name)
        if found:
            method = found[0]
            if len(found) > 1:
                raise errors.AmbiguousMethodName(name)
            if not method.is_extension:
                # (without comprehensions: each is a call of its own, and this
                # is the path of every method call on an object)
                args = []
                for p in positional:
                    args.append(p(scope))
                kwargs = {}
                for k, f in named:
                    kwargs[k] = f(scope)
                this = receiver.type.ref if method.is_static else receiver
                return frame.executor.invoke(method, this, args, kwargs, frame)
    elif isinstance(receiver, TypeRef):
        found = receiver.type.find_methods(name)
        if found:
            method = found[0]
            if len(found) > 1:
                raise errors.AmbiguousMethodName(name)
            if method.is_static:
                args = [p(scope) for p in positional]
                kwargs = {k: f(scope) for k, f in named}
                return frame.executor.invoke(method, receiver, args, kwargs, frame)
    elif isinstance(receiver, ReflectionView):
        member = receiver.methods.get(name)
        if member is not None:
            return member(receiver, frame, [p(scope) for p in positional],
                          {k: f(scope) for k, f in named})
    if frame is not None:
        extensions = frame.cls.extension_methods(name)
        if extensions:
            executor = frame.executor
            for method in extensions:
                first = method.arguments[0]
                if first.contract.check(receiver, executor=executor,
                                        this=method.declaring_type.ref, caller=frame):
                    args = [receiver] + [p(scope) for p in positional]
                    kwargs = {k: f(scope) for k, f in named}
                    return executor.invoke(method, method.declaring_type.ref, args, kwargs,
                                           frame)
    if builtin is not None:
        return _call_builtin(builtin, scope, [receiver], positional, named)
    if fast is not None:
        result = fast(scope, receiver)
        if result is not NO_VALUE:
            return result
    return slow(scope, receiver)


# -- built-in functions ---------------------------------------------------------
class Builtin(t.NamedTuple):
    fn: t.Callable[..., t.Any]
    lazy: frozenset[int]


class BuiltinSpec(t.NamedTuple):
    name: str
    lazy: frozenset[int]
    function: bool
    method: bool


BUILTIN_SPEC = "__laguna_builtin__"
F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def builtin(name: str, *, lazy: t.Iterable[int] = (), function: bool = True,
            method: bool = False) -> t.Callable[[F], F]:
    """Declare a MuranoPL built-in: called as `name(...)` (``function``)
    and/or as `$x.name(...)` (``method``). ``lazy`` positions receive a
    callable ``f(value)`` that evaluates the argument with ``$`` set to
    ``value``. Only declares: the module's ``register`` adds it to a
    :class:`~laguna.lang.functions.FunctionTable`."""
    def declare(fn: F) -> F:
        setattr(fn, BUILTIN_SPEC, BuiltinSpec(name, frozenset(lazy), function, method))
        return fn
    return declare


def _lazy(fn: Fn, scope: t.Any) -> t.Callable[..., t.Any]:
    def evaluate(*values: t.Any) -> t.Any:
        child = Scope(scope)
        for index, value in enumerate(values, 1):
            child.set_local(f"${index}", value)
        return freeze(fn(child))
    return evaluate


def _call_builtin(entry: Builtin, scope: t.Any, leading: list[t.Any], positional: list[Fn],
                  named: list[tuple[str, Fn]]) -> t.Any:
    offset = len(leading)
    args = list(leading)
    for index, fn in enumerate(positional, offset):
        args.append(_lazy(fn, scope) if index in entry.lazy else fn(scope))
    kwargs = {k: f(scope) for k, f in named}
    return entry.fn(scope, *args, **kwargs)


def compile_builtin(compiler: Compiler, entry: Builtin, arg_nodes: t.Sequence[t.Any]) -> Fn:
    positional, named = compiler._call_args(arg_nodes)
    return lambda scope: _call_builtin(entry, scope, [], positional, named)


# -- contract methods -----------------------------------------------------------------
CONTRACT_METHODS = frozenset({"int", "string", "bool", "notNull", "check", "class",
                              "template", "owned", "notOwned"})


def compile_contract_method(compiler: Compiler, receiver: Fn, node: t.Any) -> Fn:
    name = node.name
    args = list(node.args)
    if name == "int":
        return lambda scope: contracts.c_int(scope.contract, receiver(scope))
    if name == "string":
        return lambda scope: contracts.c_string(scope.contract, receiver(scope))
    if name == "bool":
        return lambda scope: contracts.c_bool(scope.contract, receiver(scope))
    if name == "notNull":
        return lambda scope: contracts.c_not_null(scope.contract, receiver(scope))
    if name in ("owned", "notOwned"):
        owned = name == "owned"
        return lambda scope: contracts.c_owned(scope.contract, receiver(scope), owned)
    if name == "check":
        predicate = compiler.node(args[0])
        message = compiler.node(args[1]) if len(args) > 1 else None

        def check(scope: t.Any) -> t.Any:
            value = receiver(scope)
            if isinstance(value, contracts.ObjRef):
                return value
            child = Scope(scope)
            child.set_local("$1", value)
            passed = predicate(child)
            text = message(scope) if message is not None else None
            return contracts.c_check(scope.contract, value, bool(passed), text)
        return check
    # class() and template(): positional type, default type, version spec (+ exclusions)
    positional, named = compiler._call_args(args)
    names = ["name", "defaultName", "versionSpec", "excludeProperties"]
    if name == "template":
        names = ["type", "defaultType", "versionSpec", "excludeProperties"]

    def instance(scope: t.Any) -> t.Any:
        values: dict[str, t.Any] = dict(zip(names, (p(scope) for p in positional)))
        for key, fn in named:
            values[key] = fn(scope)
        type_ = to_type(scope, values.get(names[0]))
        default = values.get(names[1])
        default_type = to_type(scope, default) if default is not None else None
        value = receiver(scope)
        if name == "class":
            return contracts.c_class(scope.contract, value, type_, default_type,
                                     values.get("versionSpec"))
        return contracts.c_template(scope.contract, value, type_, default_type,
                                    values.get("versionSpec"), values.get(names[3]))
    return instance


def now() -> float:
    return time.monotonic()


__all__ = ["ast", "freeze", "thaw"]


def _fast_list(*args: t.Any) -> t.Any:
    if any(utils.is_iterator(a) for a in args):
        return NO_VALUE
    return args


def _fast_str(*args: t.Any) -> t.Any:
    if len(args) != 1:
        return NO_VALUE
    value = args[0]
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) in (int, str, float):
        return str(value)
    return NO_VALUE


def _fast_get(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> t.Any:
    """`$dict.get(key)` and `$dict.get(key, default)`: yaql's dict_get."""
    if compiler.legacy or not 1 <= len(arg_nodes) <= 2:
        return None
    positional, named = compiler._call_args(arg_nodes)
    if named:
        return None
    key = positional[0]
    default = positional[1] if len(positional) == 2 else None

    def get(scope: t.Any, receiver: t.Any) -> t.Any:
        if type(receiver) is not utils.FrozenDict:
            return NO_VALUE
        k = key(scope)
        value = default(scope) if default is not None else None
        # (an unhashable key raises the TypeError yaql's dict_get raises)
        return receiver.get(k, value)
    return get


def register(table: FunctionTable) -> None:
    table.add_fast_function("list", _fast_list)
    table.add_fast_function("str", _fast_str)
    table.add_fast_method("get", _fast_get)
