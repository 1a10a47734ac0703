"""Query lambdas generated as one Python function of the item.

A lambda such as `$.value > 10` or `dict(id => $round * 1000 + $, name =>
concat('item-', str($)))` runs, compiled, as a closure per node on a scope
per item. When it is made only of `$`, variable reads, constants, attribute
and index reads of dictionaries and lists, arithmetic, `mod`, comparisons,
`not`, `str`, `concat` of strings and `dict(...)`, it is also generated here
as the source of one Python function over the item, each operation behind
the exact type guard of the compiler's own fast path.

Every one of those operations is pure on values already computed, so where
a guard misses, or an operation raises, the generated function hands the
item to the general path (the compiled closures on a scope), which evaluates
the lambda again and gives yaql's value or yaql's error: the generated code
never decides an error or a limit, it only skips the scopes and closures
when every guard holds.
"""

from __future__ import annotations

import typing as t

from yaql.language import expressions as ast
from yaql.language import utils

from laguna.lang import limits
from laguna.lang.functions.rows import dict_row
from laguna.lang.scope import NO_VALUE, engine_of, normalize_name

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler

Key = t.Callable[[t.Any], t.Any]
# (scope of the query call, the general path of one item) -> the fast path
Maker = t.Callable[[t.Any, Key], Key]

# the compiler's bound below which integer sums and products need no limit check
_SMALL = 2 ** 31
_NUMBER = "(type({0}) is int or type({0}) is float)"
_SMALL_INTS = "(type({0}) is int and type({1}) is int and -_S < {0} < _S and -_S < {1} < _S)"
# numbers where one is a float: no integer-size limit applies
_FLOATS = (f"({_NUMBER} and {_NUMBER.replace('0', '1')} "
           "and (type({0}) is float or type({1}) is float))")
_ARITHMETIC = {"+": "+", "-": "-", "*": "*"}
_COMPARISON = {"<": "<", ">": ">", "<=": "<=", ">=": ">="}
_PLAIN_EQ = "(type({0}) in _EQ and type({1}) in _EQ)"
# guards nest one `if` each; a lambda needing more stays on the general path
_MAX_GUARDS = 64


class _Unsupported(Exception):
    """A node the generated code does not take: the lambda stays general."""


class _Source:
    """The statements of one generated function, built node by node."""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler
        self.lines: list[str] = []   # (indentation is added per guard)
        self.depth = 0
        self.names: dict[str, t.Any] = {}
        self.count = 0

    def _temp(self, expression: str) -> str:
        name = f"t{self.count}"
        self.count += 1
        self.lines.append("    " * self.depth + f"{name} = {expression}")
        return name

    def _guard(self, condition: str) -> None:
        if self.depth >= _MAX_GUARDS:
            raise _Unsupported()
        self.lines.append("    " * self.depth + f"if {condition}:")
        self.depth += 1

    def _bind(self, value: t.Any) -> str:
        name = f"c{len(self.names)}"
        self.names[name] = value
        return name

    def value(self, node: t.Any) -> str:
        """Statements computing ``node``; the name of its value."""
        kind = type(node)
        if kind is ast.Wrap:
            return self.value(node.expr)
        if kind is ast.Constant:
            return self._bind(node.value)
        if kind is ast.GetContextValue:
            name = normalize_name(node.path.value)
            if name == "$1":
                return "item"
            # another variable is the query scope's: the item's child adds only `$`
            return self._temp(f"{self._bind(self.compiler.node(node))}(scope)")
        if kind is ast.IndexExpression and len(node.args) == 2:
            c, i = self.value(node.args[0]), self.value(node.args[1])
            self._guard(f"((type({c}) is tuple or type({c}) is list) and type({i}) is int)"
                        f" or type({c}) is _FD or type({c}) is dict")
            return self._temp(f"{c}[{i}]")
        if kind is ast.UnaryOperator and node.operator == "not":
            return self._temp(f"not {self.value(node.args[0])}")
        if kind is ast.BinaryOperator:
            return self._binary(node)
        if kind is ast.Function:
            return self._function(node)
        raise _Unsupported()

    def _binary(self, node: t.Any) -> str:
        op = node.operator
        left, right = node.args
        if op == ".":
            if type(right) is not ast.KeywordConstant:
                raise _Unsupported()
            r = self.value(left)
            self._guard(f"type({r}) is _FD or type({r}) is dict")
            return self._temp(f"{r}.get({self._bind(right.value)})")
        if op not in _ARITHMETIC and op not in _COMPARISON and op not in (
                "mod", "/", "=", "!="):
            raise _Unsupported()
        a, b = self.value(left), self.value(right)
        if op in _ARITHMETIC:
            self._guard(f"{_SMALL_INTS.format(a, b)} or {_FLOATS.format(a, b)}")
            return self._temp(f"{a} {_ARITHMETIC[op]} {b}")
        if op == "mod":
            self._guard(f"type({a}) is int and type({b}) is int")
            return self._temp(f"{a} % {b}")
        if op == "/":
            self._guard(f"type({a}) is int and type({b}) is int")
            return self._temp(f"{a} // {b}")
        if op in _COMPARISON:
            self._guard(f"({_NUMBER.format(a)} and {_NUMBER.format(b)})"
                        f" or (type({a}) is str and type({b}) is str)")
            return self._temp(f"{a} {_COMPARISON[op]} {b}")
        self._guard(_PLAIN_EQ.format(a, b))
        return self._temp(f"{a} {'==' if op == '=' else '!='} {b}")

    def _function(self, node: t.Any) -> str:
        name, args = node.name, node.args
        table = self.compiler.functions
        if name in table.functions:   # a builtin of the language: its own path
            raise _Unsupported()
        if name == "dict" and "dict" in table.compiled_functions and args and all(
                type(a) is ast.MappingRuleExpression for a in args):
            pairs = []
            for rule in args:
                key = (self._bind(rule.source.value) if type(rule.source) is ast.KeywordConstant
                       else self.value(rule.source))
                pairs.append(f"({key}, {self.value(rule.destination)})")
            return self._temp(f"_row(engine, [{', '.join(pairs)}])")
        if any(type(a) is ast.MappingRuleExpression for a in args):
            raise _Unsupported()
        if name == "concat" and "concat" in table.compiled_functions and args:
            values = [self.value(a) for a in args]
            self._guard(" and ".join(f"type({v}) is str" for v in values))
            joined = ", ".join(values)
            self.lines.append("    " * self.depth
                              + f"_check_string(_active(), sum(map(len, ({joined},))))")
            return self._temp(f"''.join(({joined},))")
        if name == "str" and name in table.fast_functions and name not in (
                table.compiled_functions) and len(args) == 1:
            result = self._temp(f"{self._bind(table.fast_functions[name])}"
                                f"({self.value(args[0])})")
            self._guard(f"{result} is not _NO_VALUE")
            return result
        raise _Unsupported()


_GLOBALS = {"_S": _SMALL, "_FD": utils.FrozenDict, "_EQ": frozenset(
    (int, float, str, bool, type(None))), "_row": dict_row, "_NO_VALUE": NO_VALUE,
    "_check_string": limits.check_string, "_active": limits.active}


def item_code(compiler: Compiler, node: t.Any) -> Maker | None:
    """The generated fast path of the lambda ``node``, or None when it uses
    anything beyond the operations above."""
    if compiler.legacy:
        return None
    source = _Source(compiler)
    try:
        result = source.value(node)
    except _Unsupported:
        return None
    body = "\n".join("            " + line for line in source.lines)
    inner = "            " + "    " * source.depth + f"return {result}"
    text = (f"def make(scope, general):\n"
            f"    engine = _engine(scope, False)\n"
            f"    def key(item):\n"
            f"        try:\n"
            f"{body}\n{inner}\n"
            f"        except Exception:\n"
            f"            pass\n"
            f"        return general(item)\n"
            f"    return key\n")
    namespace = dict(_GLOBALS, _engine=engine_of, **source.names)
    exec(compile(text, "<query lambda>", "exec"), namespace)  # noqa: S102 - our own text
    maker: Maker = namespace["make"]
    return maker
