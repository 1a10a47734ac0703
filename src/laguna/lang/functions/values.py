"""yaql's small functions of plain values direct: `coalesce(...)`, `bool(x)`,
`$dict.keys()`, `$dict.values()` and `$collection.contains(x)`.

Each costs little to run and an overload resolution to reach through yaql:
the core library calls them once or twice an instance (the instance's
volumes, its network's addresses, the security-group extension, a group
name), about 350 resolutions in a 50-instance deploy. The direct forms give
what yaql's own functions give, by the same Python operation (`d.keys()`,
`value in collection`, `bool(value)`, the first argument that is not null,
evaluated in order and no further), checked against the memory quota as
yaql's runner checks every result. What they do not take goes to yaql with
the values already computed, so yaql's errors stay yaql's: a receiver that
is not a mapping (`keys`, `values`) or not a collection (`contains`: strings,
mappings and objects), `=>` arguments, other arities. Legacy packages
(Format 1.0/1.1) keep yaql's own.
"""

from __future__ import annotations

import typing as t

from yaql.language import utils

from laguna.lang.functions.queries import Method, _engine, _iterable, _plain, _result, \
    _values_method
from laguna.lang.scope import NO_VALUE

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler, Fn
    from laguna.lang.functions.table import FunctionTable


def _coalesce(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Fn | None:
    if compiler.legacy or not _plain(arg_nodes):
        return None
    args = [compiler.node(a) for a in arg_nodes]

    def coalesce(scope: t.Any) -> t.Any:
        # yaql's arguments are lambdas: each is evaluated only if those before were null
        for arg in args:
            value = arg(scope)
            if value is not None:
                return _result(_engine(scope), value)
        return None
    return coalesce


def _bool(*values: t.Any) -> t.Any:
    return bool(values[0]) if len(values) == 1 else NO_VALUE


def _view(name: str) -> t.Callable[[Compiler, t.Sequence[t.Any]], Method | None]:
    """`$dict.keys()` or `$dict.values()`: the mapping's own view, as yaql's."""
    def factory(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
        if compiler.legacy or arg_nodes:
            return None

        def fast(scope: t.Any, receiver: t.Any) -> t.Any:
            if not isinstance(receiver, utils.MappingType):
                return NO_VALUE     # yaql's resolution, with its error
            view = receiver.keys() if name == "keys" else receiver.values()
            return _result(_engine(scope), view)
        return fast
    return factory


def _contains(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    if compiler.legacy or len(arg_nodes) != 1 or not _plain(arg_nodes):
        return None
    value_fn = compiler.node(arg_nodes[0])

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        value = value_fn(scope)
        engine = _engine(scope)
        collection = _iterable(engine, receiver)
        if collection is NO_VALUE:
            return _values_method(scope, "contains", receiver, value)
        return _result(engine, value in collection)
    return fast


def register(table: FunctionTable) -> None:
    table.add_compiled_function("coalesce", _coalesce)
    table.add_fast_function("bool", _bool)
    table.add_fast_method("keys", _view("keys"))
    table.add_fast_method("values", _view("values"))
    table.add_fast_method("contains", _contains)


__all__ = ["register"]
