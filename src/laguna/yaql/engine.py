"""YAQL engines and root contexts, one pair per MuranoPL runtime flavour.

Packages of Format 1.0 and 1.1 run with yaql's legacy mode (yaql 0.2
compatibility); later formats with plain yaql 1.x/3.x. Both parse with one
operator table (OPERATOR_LEVELS): yaql's operators and MuranoPL's `is`
(instance test), binary `ns:Name` and unary `:Name` (type names).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import re
import threading
import typing as t

import collections.abc  # noqa: F401

import yaql
from yaql import legacy
from yaql._ply import lex
from yaql.language import conventions, factory
from yaql.language import exceptions as yaql_exceptions
from yaql.language import expressions as yaql_expressions

from laguna.errors import LagunaError
from laguna.yaql import parsetables

CONVENTION = conventions.CamelCaseConvention()


#: see Limits.fast_string_bytes: limits.check_string looks at the run's
#: memory for a string of 64 KiB or more (and its 49 bytes of header)
FAST_STRING_BYTES = 64 * 1024 + 48


@dataclasses.dataclass(frozen=True)
class Limits:
    """Sandbox limits for untrusted code (docs/SECURITY.md lists each one).

    Each is checked before the work or the allocation it bounds: an operator
    or function that would build a longer string, a longer collection or a
    wider integer, a loop over more items or a call past the deadline raises
    ``LimitExceededError`` instead.
    """

    iterators: int = 100_000          # items a collection (or a For loop) may hold
    memory_quota: int = 512 * 1024    # bytes one value may take (a string: one a character)
    integer_bits: int = 8192          # bits of an integer (2466 decimal digits)
    execution_seconds: float = 600.0  # wall time of one top-level call
    call_depth: int = 400             # nested MuranoPL method calls
    # memory the process may gain during one top-level call (all its values)
    run_memory: int = 512 * 2**20
    regex_length: int = 10_000        # characters of a regular expression's pattern
    # a pattern's size with its counted repetitions written out (`(ab){3}`: 6)
    regex_size: int = 100_000

    fast_string_bytes: t.ClassVar[int]   # (set per instance by __post_init__)

    #: the unit each limit is counted in, for messages and documentation
    UNITS: t.ClassVar[dict[str, str]] = {
        "iterators": "items", "memory_quota": "bytes", "integer_bits": "bits",
        "execution_seconds": "s", "call_depth": "calls", "run_memory": "bytes",
        "regex_length": "characters", "regex_size": "characters"}

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            # (nan passes `<= 0`, and an infinite limit is none)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    0 < value < math.inf):
                raise ValueError(f"limit {field.name} must be a positive number, "
                                 f"not {value!r}")
            if field.type != "float" and not isinstance(value, int):
                raise ValueError(f"limit {field.name} must be a whole number, not {value!r}")
        if self.integer_bits < 64:
            raise ValueError("limit integer_bits must be at least 64")
        # the longest string (its bytes, as the memory quota counts them)
        # generated code builds without asking laguna.lang.limits: past it,
        # the quota or the run's memory may have a word to say
        object.__setattr__(self, "fast_string_bytes", min(self.memory_quota,
                                                          FAST_STRING_BYTES))

    @classmethod
    def from_settings(cls, settings: t.Mapping[str, t.Any],
                      base: Limits | None = None) -> Limits:
        """``base`` (the defaults) with the limits ``settings`` names changed;
        an unknown name or a value that is not a positive number is a ValueError."""
        names = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(str(k) for k in settings if k not in names)
        if unknown:
            raise ValueError(f"unknown limit {', '.join(unknown)}; known limits: "
                             f"{', '.join(sorted(names))}")
        return dataclasses.replace(base if base is not None else cls(), **dict(settings))

    def describe(self, name: str) -> str:
        """A limit with its value and unit, as messages name it: `iterators
        limit of 100000 items`."""
        return f"{name} limit of {getattr(self, name)} {self.UNITS[name]}"


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
    the tables depend only on the operators, never on the options. Built
    as yaql's ``YaqlFactory.create`` builds it, but with the parser's tables
    kept in the user's cache folder (:mod:`laguna.yaql.parsetables`)."""
    return build_parsing_engine(parsetables.cache_dir())


def build_parsing_engine(tables_folder: pathlib.Path | None) -> t.Any:
    """A new engine (no options) whose parser's tables come from, or go to,
    ``tables_folder`` (none: computed by ply)."""
    engine_factory = factory.YaqlFactory(keyword_operator=NAME_VALUE_OPERATOR)
    engine_factory.operators = operator_table()
    operators = engine_factory._build_operator_table(engine_factory._name_generator())
    lexer_rules = engine_factory._create_lexer(operators)
    ply_lexer = lex.lex(object=lexer_rules, reflags=re.UNICODE | re.VERBOSE)
    ply_parser = parsetables.build_parser(
        engine_factory._create_parser(lexer_rules, operators), tables_folder)
    return factory.YaqlEngine(ply_lexer, ply_parser, None, engine_factory)


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


#: how deep the operators and parentheses of one expression may nest: code
#: that walks an expression (the compiler, checks) recurses once per level
MAX_EXPRESSION_DEPTH = 100


class ExpressionTooDeep(yaql_exceptions.YaqlParsingException, LagunaError):  # type: ignore[misc]
    """An expression nested deeper than :data:`MAX_EXPRESSION_DEPTH` (a yaql
    parsing error as well: the engine's callers handle yaql's errors)."""

    code = "LAG-E0325"

    def __init__(self, text: str, depth: int) -> None:
        super().__init__(text, 0, f"the expression nests more than {depth} levels deep")


#: every engine shares one ply lexer and parser, which keep the text being
#: parsed in their own attributes: two threads parsing at once (two
#: deployments of a worker loading their classes) would read each other's
_PARSING = threading.Lock()


@functools.lru_cache(maxsize=65536)
def parse(text: str, legacy_mode: bool) -> t.Any:
    """Parse YAQL once; the parsed statement is shared by every user of ``text``.
    An expression nested deeper than :data:`MAX_EXPRESSION_DEPTH` is refused
    (:class:`ExpressionTooDeep`) before anything recurses into it."""
    engine = create_engine(legacy_mode)
    with _PARSING:
        parsed = engine(text)
    if _depth_exceeds(parsed, MAX_EXPRESSION_DEPTH):
        raise ExpressionTooDeep(text, MAX_EXPRESSION_DEPTH)
    return parsed


def _children(node: t.Any) -> t.Iterable[t.Any]:
    if isinstance(node, yaql_expressions.Statement):
        return (node.expression,)
    if isinstance(node, yaql_expressions.Wrap):
        return (node.expr,)
    if isinstance(node, yaql_expressions.MappingRuleExpression):
        return (node.source, node.destination)
    return getattr(node, "args", None) or ()


def _depth_exceeds(root: t.Any, limit: int) -> bool:
    # iterative: the tree may be deeper than Python's recursion allows
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in _children(node))
    return False
