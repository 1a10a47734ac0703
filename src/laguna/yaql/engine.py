"""YAQL engines and root contexts, one pair per MuranoPL runtime flavour.

Packages of Format 1.0 and 1.1 run with yaql's legacy mode (yaql 0.2
compatibility); later formats with plain yaql 1.x/3.x. Both parse with one
operator table (OPERATOR_LEVELS): yaql's operators and MuranoPL's `is`
(instance test), binary `ns:Name` and unary `:Name` (type names).
"""

from __future__ import annotations

import dataclasses
import functools
import typing as t

import collections.abc  # noqa: F401

import yaql
from yaql import legacy
from yaql.language import conventions, factory

CONVENTION = conventions.CamelCaseConvention()


@dataclasses.dataclass(frozen=True)
class Limits:
    """Sandbox limits for untrusted code; the defaults follow the original engine."""

    iterators: int = 100_000         # items a collection function may produce
    memory_quota: int = 512 * 1024   # bytes a yaql function result may take
    execution_seconds: float = 600.0  # wall time of one top-level call
    call_depth: int = 400             # nested MuranoPL method calls


DEFAULT_LIMITS = Limits()


def _engine_options(legacy_mode: bool, limits: Limits) -> dict[str, t.Any]:
    options: dict[str, t.Any] = {
        "yaql.limitIterators": limits.iterators,
        "yaql.memoryQuota": limits.memory_quota,
        "yaql.convertSetsToLists": True,
        "yaql.convertTuplesToLists": True,
    }
    if legacy_mode:
        options["yaql.iterableDicts"] = True
    return options


# The operators of MuranoPL's YAQL, one level per row, tightest first: how a
# level's binary operators chain ("left" or "right"), or "prefix", then its
# operators. yaql's operators keep yaql's levels; MuranoPL adds the type names
# `:Name` and `ns:Name`, tighter than anything, and `is` (instance test) among
# the comparisons.
OPERATOR_LEVELS: tuple[tuple[str, ...], ...] = (
    ("prefix", ":"),
    ("left", ":"),
    ("left", ".", "?."),
    ("left", "[]", "{}"),
    ("prefix", "+", "-"),
    ("left", "=~", "!~"),
    ("left", "*", "/", "mod"),
    ("left", "+", "-"),
    ("left", ">", "<", ">=", "<=", "!=", "=", "in", "is"),
    ("prefix", "not"),
    ("left", "and"),
    ("left", "or"),
    ("right", "->"),
)
# keyword arguments, `f(name => value)`: outside the levels
NAME_VALUE_OPERATOR = "=>"
# the yaql functions these operators call have other names (`*equal`)
_FUNCTION_NAMES = {"!=": "not_equal", "=": "equal"}
_KINDS = {
    "left": factory.OperatorType.BINARY_LEFT_ASSOCIATIVE,
    "right": factory.OperatorType.BINARY_RIGHT_ASSOCIATIVE,
    "prefix": factory.OperatorType.PREFIX_UNARY,
}


def operator_table() -> list[tuple[t.Any, ...]]:
    """OPERATOR_LEVELS as yaql's factory takes them: records, levels parted by ()."""
    table: list[tuple[t.Any, ...]] = [(NAME_VALUE_OPERATOR, factory.OperatorType.NAME_VALUE_PAIR)]
    for kind, *symbols in OPERATOR_LEVELS:
        table.append(())
        table.extend((symbol, _KINDS[kind], _FUNCTION_NAMES.get(symbol)) for symbol in symbols)
    return table


@functools.cache
def _parsing_engine() -> t.Any:
    """The one engine whose lexer and LALR parser every engine shares: ply
    builds the parser's tables anew each time (about half a second), and
    the tables depend only on the operators, never on the options."""
    engine_factory = factory.YaqlFactory(keyword_operator=NAME_VALUE_OPERATOR)
    engine_factory.operators = operator_table()
    return engine_factory.create()


def create_engine(legacy_mode: bool, limits: Limits = DEFAULT_LIMITS) -> t.Any:
    """The engine of a flavour and limits, built once (with or without ``limits``
    given, the same engine)."""
    return _engine(legacy_mode, limits)


@functools.lru_cache(maxsize=None)
def _engine(legacy_mode: bool, limits: Limits) -> t.Any:
    return _parsing_engine().copy(_engine_options(legacy_mode, limits))


def create_root_context(legacy_mode: bool) -> t.Any:
    """A fresh root context with yaql's standard library (legacy or not)."""
    if legacy_mode:
        return legacy.create_context(convention=CONVENTION)
    return yaql.create_context(convention=CONVENTION)


@functools.lru_cache(maxsize=65536)
def parse(text: str, legacy_mode: bool) -> t.Any:
    """Parse YAQL once; the parsed statement is shared by every user of ``text``."""
    return create_engine(legacy_mode)(text)
