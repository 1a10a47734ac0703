"""Python source generated from yaql expressions, one function per expression.

An expression compiled by :mod:`laguna.lang.compiler` runs as a closure per
node. When it is made only of `$`, variable reads, constants, attribute and
index reads of dictionaries and lists, arithmetic, `mod`, comparisons, `not`,
`str`, `concat` of strings and `dict(...)`, it is also generated here as the
source of one Python function, each operation behind the exact type guard of
the compiler's own fast path: a query lambda as a function of the item
(:func:`item_code`, `where($.value > 10)`), a statement as a function of the
scope (:func:`statement_code`, `$k mod 3 = 0` in a loop body).

Every one of those operations is pure on values already computed, so where
a guard misses, or an operation raises, the generated function hands over to
the general path (the compiled closures), which evaluates the expression
again and gives yaql's value or yaql's error: the generated code never
decides an error or a limit, it only skips the closures (and a query's scope
per item) when every guard holds. The limits are guards too: a string past
the memory quota, a row the quota refuses, go to the general path, which
raises.

The generator knows the types an operation can give (a `mod` gives an int,
a comparison a bool, `str` a string), so a guard on a value of a known type
or on a constant is decided when the source is written, and a row whose
keys and values are all of flat types is made marked as frozen all the way
down (`dispatch.freeze` takes it without a walk).
"""

from __future__ import annotations

import math
import sys
import typing as t
from types import MappingProxyType

from yaql.language import expressions as ast
from yaql.language import utils

from laguna.lang import limits
from laguna.lang.dispatch import DEEP_MARK
from laguna.lang.rows import RULE_SIZE
from laguna.lang.scope import NO_VALUE, Scope, engine_of, normalize_name

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler

Key = t.Callable[[t.Any], t.Any]
# (scope of the query call, the general path of one item) -> the fast path
Maker = t.Callable[[t.Any, Key], Key]
Fn = t.Callable[[t.Any], t.Any]
# what a value may be: a set of exact types, or None for anything
Types = frozenset[type] | None
# a guard's condition: decided when written (True, False) or tested at run time
Cond = bool | str

# the compiler's bound below which integer sums and products need no limit check
_SMALL = 2 ** 31
_NUMBERS: frozenset[type] = frozenset((int, float))
_EQ_TYPES: frozenset[type] = frozenset((int, float, str, bool, type(None)))
# the types of a row's keys and values that make it frozen all the way down
_FLAT: frozenset[type] = _EQ_TYPES
_ARITHMETIC = {"+": "+", "-": "-", "*": "*"}
_COMPARISON = {"<": "<", ">": ">", "<=": "<=", ">=": ">="}
# yaql's own quota counts a row as the object sys.getsizeof measures (its
# items are not counted): one size for every FrozenDict
ROW_SIZE = sys.getsizeof(utils.FrozenDict(), 0)
# what limits.check_string adds to a string's length
_STRING_BYTES = limits.STRING_BYTES
# guards nest one `if` each; a lambda needing more stays on the general path
_MAX_GUARDS = 64


# not an error: a signal that sends a lambda back to the general path (so no
# LagunaError, which error handlers catch)
class _Unsupported(Exception):
    """A node the generated code does not take: the lambda stays general."""


def _all(*parts: Cond) -> Cond:
    if any(p is False for p in parts):
        return False
    texts = [p for p in parts if p is not True]
    return True if not texts else " and ".join(f"({p})" for p in texts)


def _any(*parts: Cond) -> Cond:
    if any(p is True for p in parts):
        return True
    texts = [p for p in parts if p is not False]
    return False if not texts else " or ".join(f"({p})" for p in texts)


class _Source:
    """The statements of one generated function, built node by node."""

    def __init__(self, compiler: Compiler, item: bool) -> None:
        self.compiler = compiler
        self.item = item   # a query lambda's `$` is the item; a statement's a variable
        self.lines: list[str] = []   # (indentation is added per guard)
        self.depth = 0
        self.names: dict[str, t.Any] = {}
        self.count = 0
        self.types: dict[str, Types] = {"item": None}
        self.constants: dict[str, t.Any] = {}
        # rows of how many rules the memory quota is to allow (read per query call)
        self.row_sizes: set[int] = set()

    # -- emitting --------------------------------------------------------------
    def _line(self, text: str, extra: int = 0) -> None:
        self.lines.append("    " * (self.depth + extra) + text)

    def _temp(self, expression: str, types: Types) -> str:
        name = f"t{self.count}"
        self.count += 1
        self._line(f"{name} = {expression}")
        self.types[name] = types
        return name

    def _guard(self, condition: Cond) -> None:
        if condition is True:
            return
        if condition is False or self.depth >= _MAX_GUARDS:
            # (a guard that never holds: the generated path would never be taken)
            raise _Unsupported()
        self._line(f"if {condition}:")
        self.depth += 1

    def _bind(self, value: t.Any) -> str:
        if type(value) in (int, str, bool, type(None)) or (
                type(value) is float and math.isfinite(value)):
            name = repr(value)   # a literal: its exact value
        else:
            name = f"c{len(self.names)}"
            self.names[name] = value
        self.types[name] = frozenset((type(value),))
        self.constants[name] = value
        return name

    # -- what a value is known to be ----------------------------------------------
    def _is(self, name: str, types: frozenset[type]) -> Cond:
        known = self.types.get(name)
        if known is not None and known <= types:
            return True
        if known is not None and not known & types:
            return False
        wanted = sorted(types if known is None else types & known, key=lambda k: k.__name__)
        return " or ".join(f"type({name}) is {_TYPE_NAMES[k]}" for k in wanted)

    def _narrow(self, types: frozenset[type], *names: str) -> None:
        """After a guard that holds only where ``names`` are of ``types``: all
        the code that follows is inside it, so they are known to be."""
        for name in names:
            known = self.types.get(name)
            self.types[name] = types if known is None else known & types

    def _mapping(self, name: str) -> str:
        """``name``, or the dict inside it when it is a FrozenDict (whose own
        reads are Python methods around the same dict reads)."""
        inner = f"{name}._d"
        rows = frozenset((utils.FrozenDict,))
        decided = self._is(name, rows)
        if decided is True:
            return inner
        if decided is False:
            return name
        return f"({inner} if type({name}) is _FD else {name})"

    def _small_int(self, name: str) -> Cond:
        if name in self.constants:
            value = self.constants[name]
            return type(value) is int and -_SMALL < value < _SMALL
        return _all(self._is(name, frozenset((int,))), f"-_S < {name} < _S")

    # -- nodes ---------------------------------------------------------------------
    def value(self, node: t.Any) -> str:
        """Statements computing ``node``; the name of its value."""
        kind = type(node)
        if kind is ast.Wrap:
            return self.value(node.expr)
        if kind is ast.Constant:
            return self._bind(node.value)
        if kind is ast.GetContextValue:
            return self._variable(node)
        if kind is ast.IndexExpression and len(node.args) == 2:
            c, i = self.value(node.args[0]), self.value(node.args[1])
            self._guard(_any(_all(self._is(c, frozenset((tuple, list))),
                                  self._is(i, frozenset((int,)))),
                             self._is(c, frozenset((utils.FrozenDict, dict)))))
            return self._temp(f"{self._mapping(c)}[{i}]", None)
        if kind is ast.UnaryOperator and node.operator == "not":
            return self._temp(f"not {self.value(node.args[0])}", frozenset((bool,)))
        if kind is ast.BinaryOperator:
            return self._binary(node)
        if kind is ast.Function:
            return self._function(node)
        raise _Unsupported()

    def _variable(self, node: t.Any) -> str:
        name = normalize_name(node.path.value)
        if name == "$1" and self.item:
            return "item"
        # another variable is the query scope's (the item's child adds only
        # `$`), or the statement's scope's: read as the compiled read does,
        # the scope's own variables first
        result = self._temp(f"_variables.get({name!r}, _MISSING)", None)
        self._line(f"if {result} is _MISSING:")
        self._line(f"{result} = {self._bind(self.compiler.node(node))}(scope)", 1)
        return result

    def _binary(self, node: t.Any) -> str:
        op = node.operator
        left, right = node.args
        if op == ".":
            if type(right) is not ast.KeywordConstant:
                raise _Unsupported()
            r = self.value(left)
            mappings = frozenset((utils.FrozenDict, dict))
            self._guard(self._is(r, mappings))
            self._narrow(mappings, r)
            return self._temp(f"{self._mapping(r)}.get({self._bind(right.value)})", None)
        if op not in _ARITHMETIC and op not in _COMPARISON and op not in (
                "mod", "/", "=", "!="):
            raise _Unsupported()
        a, b = self.value(left), self.value(right)
        if op in _ARITHMETIC:
            ints = _all(self._small_int(a), self._small_int(b))
            floats = _all(self._is(a, _NUMBERS), self._is(b, _NUMBERS),
                          _any(self._is(a, frozenset((float,))), self._is(b, frozenset((float,)))))
            self._guard(_any(ints, floats))
            self._narrow(_NUMBERS, a, b)
            types = frozenset(k for k, possible in ((int, ints), (float, floats))
                              if possible is not False)
            return self._temp(f"{a} {_ARITHMETIC[op]} {b}", types)
        ints_only = frozenset((int,))
        if op in ("mod", "/"):
            self._guard(_all(self._is(a, ints_only), self._is(b, ints_only)))
            self._narrow(ints_only, a, b)
            return self._temp(f"{a} {'%' if op == 'mod' else '//'} {b}", ints_only)
        boolean = frozenset((bool,))
        if op in _COMPARISON:
            strings = frozenset((str,))
            self._guard(_any(_all(self._is(a, _NUMBERS), self._is(b, _NUMBERS)),
                             _all(self._is(a, strings), self._is(b, strings))))
            return self._temp(f"{a} {_COMPARISON[op]} {b}", boolean)
        self._guard(_all(self._is(a, _EQ_TYPES), self._is(b, _EQ_TYPES)))
        self._narrow(_EQ_TYPES, a, b)
        return self._temp(f"{a} {'==' if op == '=' else '!='} {b}", boolean)

    def _function(self, node: t.Any) -> str:
        name, args = node.name, node.args
        table = self.compiler.functions
        if name in table.functions:   # a builtin of the language: its own path
            raise _Unsupported()
        if name == "dict" and "dict" in table.compiled_functions and args and all(
                type(a) is ast.MappingRuleExpression for a in args):
            return self._row(args)
        if any(type(a) is ast.MappingRuleExpression for a in args):
            raise _Unsupported()
        if name == "concat" and "concat" in table.compiled_functions and args:
            return self._concat([self.value(a) for a in args])
        if name == "str" and name in table.fast_functions and name not in (
                table.compiled_functions) and len(args) == 1:
            # the fast str gives str() of these exactly; anything else
            # (null, booleans, collections) takes the general path
            value = self.value(args[0])
            self._guard(self._is(value, frozenset((int, str, float))))
            self._narrow(frozenset((int, str, float)), value)
            return self._temp(f"str({value})", frozenset((str,)))
        raise _Unsupported()

    def _concat(self, values: list[str]) -> str:
        strings = frozenset((str,))
        self._guard(_all(*(self._is(v, strings) for v in values)))
        self._narrow(strings, *values)
        # the string limit as a guard: past it, the general path raises; a
        # large string takes it too, which looks at the run's memory first
        fixed = sum(len(self.constants[v]) for v in values if v in self.constants)
        lengths = "".join(f"len({v}) + " for v in values if v not in self.constants)
        self._guard(f"{lengths}{fixed + _STRING_BYTES} <= _limits().fast_string_bytes")
        joined = " + ".join(values) if len(values) <= 3 else f"''.join(({', '.join(values)},))"
        return self._temp(joined, strings)

    def _row(self, rules: t.Sequence[t.Any]) -> str:
        pairs = []
        flat = True
        for rule in rules:
            key = (self._bind(rule.source.value) if type(rule.source) is ast.KeywordConstant
                   else self.value(rule.source))
            value = self.value(rule.destination)
            for name in (key, value):
                known = self.types.get(name)
                flat = flat and known is not None and known <= _FLAT
            pairs.append(f"{key}: {value}")
        # within the memory quota as dict_row applies it, decided once per query call
        self.row_sizes.add(len(rules))
        self._guard(f"_rows_fit[{len(rules)}]")
        row = self._temp("_new_row(_FD)", frozenset((utils.FrozenDict,)))
        self._line(f"{row}._d = {{{', '.join(pairs)}}}")
        self._line(f"{row}._hash = None")
        if flat:
            self._line(f"{row}.{DEEP_MARK} = True")
        return row


_TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool", type(None): "_NONE",
               tuple: "tuple", list: "list", dict: "dict", utils.FrozenDict: "_FD"}
_GLOBALS = {"_S": _SMALL, "_FD": utils.FrozenDict, "_NONE": type(None),
            "_NO_VALUE": NO_VALUE, "_MISSING": object(), "_limits": limits.active,
            "_new_row": object.__new__,
            "_NO_VARIABLES": MappingProxyType({})}


def _rows_fit(engine: t.Any, sizes: set[int]) -> dict[int, bool]:
    """For each count of rules: whether yaql's dict() of that many rules keeps
    within the engine's memory quota (the rules, then the row as a result)."""
    quota = utils.get_memory_quota(engine)
    return {n: quota <= 0 or (quota >= n * RULE_SIZE and quota >= ROW_SIZE) for n in sizes}


def _source(compiler: Compiler, node: t.Any, item: bool) -> tuple[_Source, str] | None:
    if compiler.legacy or compiler.contract:
        return None
    source = _Source(compiler, item)
    try:
        result = source.value(node)
    except _Unsupported:
        return None
    return source, result


def _rows_fit_line(source: _Source, indent: str) -> str:
    """The quota rows are to fit, read once per call of the maker."""
    if not source.row_sizes:
        return ""
    return f"{indent}_rows_fit = _fit(_engine(scope, False), {sorted(source.row_sizes)!r})\n"


def _generated(source: _Source, result: str, outer: str, inner: str, setup: str,
               filename: str) -> t.Any:
    """``make(outer)`` of the generated source: it runs ``setup`` (at
    ``outer``'s level, or first inside the function when it starts with 8
    spaces) and gives the function of ``inner`` computing ``result``, that
    hands ``inner`` to ``general`` where a guard misses."""
    lines = [" " * 12 + line for line in source.lines]
    lines.append(" " * 12 + "    " * source.depth + f"return {result}")
    outer_setup, inner_setup = ("", setup) if setup.startswith(" " * 8) else (setup, "")
    text = (f"def make({outer}):\n{outer_setup}"
            f"    def function({inner}):\n"
            f"        try:\n{inner_setup}" + "\n".join(lines) + "\n"
            f"        except Exception:\n"
            f"            pass\n"
            f"        return general({inner})\n"
            f"    return function\n")
    namespace = dict(_GLOBALS, _engine=engine_of, _fit=_rows_fit, _Scope=Scope, **source.names)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - our own text
    return namespace["make"]


def item_code(compiler: Compiler, node: t.Any) -> Maker | None:
    """The generated fast path of the query lambda ``node``, or None when it
    uses anything beyond the operations above."""
    made = _source(compiler, node, True)
    if made is None:
        return None
    source, result = made
    setup = (_rows_fit_line(source, "    ")
             + "    _variables = scope._data if type(scope) is _Scope else {}\n")
    maker: Maker = _generated(source, result, "scope, general", "item", setup,
                              "<query lambda>")
    return maker


# what a probe gives for an item its generated form does not take
MISSED: t.Any = object()


def missed(item: t.Any) -> t.Any:
    """The general path of a probe: :data:`MISSED`."""
    return MISSED


def value_probe(compiler: Compiler, node: t.Any) -> Key | None:
    """The generated form alone of ``node``, an expression over `$` and
    constants only (a contract's `check()` predicate), as a function of `$`
    that gives :data:`MISSED` where a guard misses; None when there is none.
    ``compiler`` is of plain code: the operators are the same in a contract."""
    maker = item_code(compiler, node)
    return None if maker is None else maker(None, missed)


# what a statement's compiled form gives back without freezing it
_STATEMENT_RESULTS: frozenset[type] = _EQ_TYPES


def statement_code(compiler: Compiler, node: t.Any, general: Fn) -> Fn | None:
    """The statement ``node`` as one generated function of the scope that
    hands over to ``general`` (its compiled form) where a guard misses; None
    when it uses anything beyond the operations above, when it is a single
    read or constant (its closure is as short), or when its value may need
    freezing."""
    while type(node) is ast.Wrap:
        node = node.expr
    if type(node) in (ast.Constant, ast.KeywordConstant, ast.GetContextValue):
        return None
    made = _source(compiler, node, False)
    if made is None:
        return None
    source, result = made
    known = source.types.get(result)
    if known is None or not known <= _STATEMENT_RESULTS:
        return None
    setup = (" " * 12 + "_variables = scope._data if type(scope) is _Scope else _NO_VARIABLES\n"
             + _rows_fit_line(source, " " * 12))
    statement: Fn = _generated(source, result, "general", "scope", setup, "<statement>")(general)
    return statement
