"""yaql's `$dict.set(...)` and `$dict.mergeWith(another)` direct, the dict
functions the core library calls most (`set`: each instance's init
configuration, regions, networks, metadata; `mergeWith`: each instance's
template, four times an instance, and each network's).

Through yaql it costs an overload resolution among its three forms for every
call. The direct forms build the same FrozenDict in the same order as
yaql's: `set(key => value, ...)`, `set(mapping)` and `set(key, value)`, when
the receiver is a dict; its arguments are evaluated in the order yaql
evaluates them, and the result is checked against the memory quota as
yaql's runner does. A receiver that is not a dict, a single argument that is
not one, or a mix of `=>` and plain arguments goes to yaql (nothing is
evaluated twice), so its errors are yaql's. Legacy packages (Format
1.0/1.1) keep yaql's own.

`mergeWith` with one plain argument merges with yaql's own merge and its
default list merger (`distinct` of both lists, as a tuple: what its
`toList` delegate gives in a non-legacy engine), so values, order and
errors are yaql's; the resolution was the cost (with the delegate's, the
most expensive call left in a deploy). Other forms (`listMerger`,
`itemMerger`, `maxLevels`) and a receiver or argument that is not a mapping
go to yaql.
"""

from __future__ import annotations

import itertools
import typing as t

from yaql.language import expressions as ast
from yaql.language import utils
from yaql.standard_library import queries as yaql_queries

from laguna.lang import limits
from laguna.lang.functions.queries import Method, _engine, _plain, _result, _values_method

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler
    from laguna.lang.functions.table import FunctionTable

_MAPPINGS = (utils.FrozenDict, dict)


def _set(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or not arg_nodes:
        return None
    if all(isinstance(a, ast.MappingRuleExpression) for a in arg_nodes):
        return _set_rules(compiler, arg_nodes)
    if not _plain(arg_nodes) or len(arg_nodes) > 2:
        return None
    args = [compiler.node(a) for a in arg_nodes]

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        values = [a(scope) for a in args]
        if type(receiver) not in _MAPPINGS or any(
                type(v) is utils.MappingRule for v in values):
            return _values_method(scope, "set", receiver, *values)
        if len(values) == 2:
            added: t.Iterable[tuple[t.Any, t.Any]] = ((values[0], values[1]),)
        elif type(values[0]) in _MAPPINGS:
            added = values[0].items()
        else:
            return _values_method(scope, "set", receiver, *values)
        limits.spend(len(receiver))   # a copy: one step an item
        return _result(_engine(scope),
                       utils.FrozenDict(itertools.chain(receiver.items(), added)))
    return fast


def _set_rules(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method:
    """`$dict.set(key => value, ...)`: a receiver that is not a dict goes to
    yaql before any argument is evaluated."""
    rules = [(compiler.node(a.source), compiler.node(a.destination)) for a in arg_nodes]
    slow = compiler.fallback("set", arg_nodes)

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        if type(receiver) not in _MAPPINGS:
            return slow(scope, receiver)
        added = [(key(scope), value(scope)) for key, value in rules]
        limits.spend(len(receiver))   # a copy: one step an item
        return _result(_engine(scope),
                       utils.FrozenDict(itertools.chain(receiver.items(), added)))
    return fast


def _merge_with(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or len(arg_nodes) != 1 or not _plain(arg_nodes):
        return None
    another_fn = compiler.node(arg_nodes[0])

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        another = another_fn(scope)
        if not (isinstance(receiver, utils.MappingType)
                and isinstance(another, utils.MappingType)):
            return _values_method(scope, "mergeWith", receiver, another)
        engine = _engine(scope)
        limits.spend(len(receiver) + len(another))

        def list_merger(first: t.Any, second: t.Any) -> t.Any:
            return tuple(yaql_queries.distinct(engine, first + second))
        return _result(engine, yaql_queries._merge_dicts(  # noqa: SLF001 - yaql's own merge
            receiver, another, list_merger, _second))
    return fast


def _second(first: t.Any, second: t.Any) -> t.Any:
    """mergeWith's default item merger: the other dict's value wins."""
    return second


def register(table: FunctionTable) -> None:
    table.add_fast_method("set", _set)
    table.add_fast_method("mergeWith", _merge_with)


__all__ = ["register"]
