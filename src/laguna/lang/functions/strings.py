"""yaql's string functions that the core library calls for every instance, direct.

`$text.replace({key => value, ...})` fills the agent's configuration and the
init script of every Linux instance. Through yaql it costs an overload
resolution for `replace`, then one for `str` of each key and each value (yaql
calls `str` through a delegate): five or more per call. The direct form
replaces in the same order with the same counts when the receiver, every key
and every value are strings and the count is an integer, and checks the
result against the memory quota as yaql's runner does; anything else (a
number to be written out by `str`, a null count, the `replace(old, new)`
form) goes to yaql with the values already computed, so nothing is evaluated
twice and the value, errors and limits are yaql's. Legacy packages (Format
1.0/1.1) keep yaql's own.
"""

from __future__ import annotations

import typing as t

from yaql.language import utils

from laguna.lang.functions.queries import Method, _engine, _plain, _result, _values_method

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler
    from laguna.lang.functions.table import FunctionTable

_MAPPINGS = (utils.FrozenDict, dict)


def _all_strings(mapping: t.Mapping[t.Any, t.Any]) -> bool:
    return all(type(k) is str and type(v) is str for k, v in mapping.items())


def _replace(compiler: Compiler, arg_nodes: t.Sequence[t.Any]) -> Method | None:
    """`$string.replace(mapping)` and `$string.replace(mapping, count)`."""
    if compiler.legacy or not 1 <= len(arg_nodes) <= 2 or not _plain(arg_nodes):
        return None
    args = [compiler.node(a) for a in arg_nodes]

    def fast(scope: t.Any, receiver: t.Any) -> t.Any:
        values = [a(scope) for a in args]
        replacements = values[0]
        count = values[1] if len(values) == 2 else -1
        if (type(receiver) is not str or type(replacements) not in _MAPPINGS
                or type(count) is not int or not _all_strings(replacements)):
            return _values_method(scope, "replace", receiver, *values)
        text = receiver
        for old, new in replacements.items():
            text = text.replace(old, new, count)
        return _result(_engine(scope), text)
    return fast


def register(table: FunctionTable) -> None:
    table.add_fast_method("replace", _replace)


__all__ = ["register"]
