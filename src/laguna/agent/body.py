"""The ``Body`` of a v2 plan, run by a small interpreter instead of ``exec``.

murano-agent wrapped ``Body`` in a Python function and ``exec``-ed it, with each
script as a callable (``deploy(commandline, input)``) and ``args`` (the plan's
``Parameters``, keys readable as attributes) as globals. Bodies in the wild are
tiny: ``return deploy(args.appName).stdout``, ``return runCommand()``,
``return putFile("'{0}'".format(args.path)).exitCode == 0``, a call or two and
an ``if``. laguna runs exactly that language and nothing more: statements
``return``, ``if``/``elif``/``else``, ``pass``, expression statements and
assignments to names; expressions: literals, names, calls, attributes (keys of
dicts), subscripts, f-strings, arithmetic, comparisons and boolean logic, and
a handful of ``str`` methods and builtins. Names and attributes starting with
``_`` are refused, and so is everything else Python has (loops, ``def``,
``lambda``, ``import``, comprehensions, ``**``). The whole Body is checked when
the plan is parsed, so a plan with an unsupported Body runs no script.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import _string  # type: ignore[import-not-found]
import ast
import operator
import re
import string
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from laguna.agent.errors import AgentError, PlanError, PlanFailed

MAX_SIZE = 1_000_000
MAX_FORMAT_WIDTH = 10_000
MAX_INT_BITS = 64_000

_STATEMENTS = (ast.Expr, ast.Return, ast.Assign, ast.If, ast.Pass)
_EXPRESSIONS = (
    ast.Constant, ast.Name, ast.Load, ast.Store, ast.Call, ast.keyword, ast.Attribute,
    ast.Subscript, ast.Slice, ast.JoinedStr, ast.FormattedValue, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.Compare, ast.IfExp, ast.Dict, ast.List, ast.Tuple,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod,
    ast.Not, ast.USub, ast.UAdd, ast.And, ast.Or,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
)
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_BUILTINS: dict[str, Callable[..., Any]] = {
    "str": str, "int": int, "float": float, "bool": bool, "len": len,
    "list": list, "dict": dict, "min": min, "max": max, "abs": abs, "sorted": sorted,
}
_CONVERSIONS: dict[str, Callable[[Any], str]] = {"r": repr, "s": str, "a": ascii}
_STR_METHODS = frozenset({
    "format", "strip", "lstrip", "rstrip", "split", "splitlines", "join", "lower",
    "upper", "replace", "startswith", "endswith",
})
_DICT_METHODS = frozenset({"get", "keys", "values", "items"})


class ScriptFunction:
    """A script of the plan as the Body sees it: ``name(commandline='', input=None)``."""

    def __init__(self, name: str, run: Callable[[str, str | None], dict[str, Any]]) -> None:
        self.name = name
        self._run = run

    def __call__(self, commandline: Any = "", input: Any = None) -> dict[str, Any]:
        return self._run(str(commandline), None if input is None else str(input))


class _Refused(LagunaError):
    """Something the Body may not do; becomes a PlanFailed naming the Body line."""

    code = "LAG-E1105"


# not an error: how a Body's ``return`` leaves it (so no LagunaError, which error
# handlers catch)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Body(NamedTuple):
    """A checked Body; ``run`` evaluates it and returns what it returns (``None`` if nothing)."""

    source: str
    statements: tuple[ast.stmt, ...]

    @classmethod
    def compile(cls, source: str) -> Body:
        text = textwrap.dedent(source.expandtabs(4))
        try:
            module = ast.parse("def __body__():\n" + textwrap.indent(text or "pass", "    "))
        except SyntaxError as exc:
            line = (exc.lineno or 1) - 1
            raise PlanError(f"Body line {line}: invalid syntax ({exc.msg})") from exc
        function = module.body[0]
        assert isinstance(function, ast.FunctionDef)
        for statement in function.body:
            _check(statement)
        return cls(source, tuple(function.body))

    def run(self, scripts: Mapping[str, ScriptFunction], args: Mapping[str, Any]) -> Any:
        """Run the Body; the agent's own errors pass through, any other becomes ``PlanFailed``."""
        frame = _Frame(scripts, args)
        try:
            frame.block(self.statements)
        except _Return as returned:
            return returned.value
        return None


def _check(node: ast.AST, line: int = 1) -> None:
    line = getattr(node, "lineno", line + 1) - 1
    kind = type(node).__name__
    if isinstance(node, ast.stmt) and not isinstance(node, _STATEMENTS):
        raise PlanError(f"Body line {line}: {kind} statements are not supported "
                        "(laguna runs a restricted Body, see docs/AGENT.md)")
    if isinstance(node, ast.operator | ast.unaryop | ast.boolop | ast.cmpop):
        if not isinstance(node, _EXPRESSIONS):
            raise PlanError(f"Body line {line}: operator {kind} is not supported")
    elif not isinstance(node, _STATEMENTS + _EXPRESSIONS):
        raise PlanError(f"Body line {line}: {kind} is not supported "
                        "(laguna runs a restricted Body, see docs/AGENT.md)")
    if isinstance(node, ast.Assign) and not (
            len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        raise PlanError(f"Body line {line}: only assignments to one name are supported")
    name = (node.id if isinstance(node, ast.Name)
            else node.attr if isinstance(node, ast.Attribute) else None)
    if name is not None and name.startswith("_"):
        raise PlanError(f"Body line {line}: name {name!r} is not allowed")
    for child in ast.iter_child_nodes(node):
        _check(child, line)


class _SafeFormatter(string.Formatter):
    """``str.format`` whose fields read dict keys as attributes, never Python attributes."""

    def __init__(self) -> None:
        self.size = 0

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        first, rest = _split_field(field_name)
        value = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            if is_attr:
                value = _attribute(value, key)
            else:
                value = value[key]
        return value, first

    def format_field(self, value: Any, format_spec: str) -> Any:
        text = _format(value, format_spec)
        self.size += len(text)
        return _check_size(text, self.size)


def _split_field(field_name: str) -> tuple[Any, list[tuple[bool, Any]]]:
    first, rest = _string.formatter_field_name_split(field_name)
    return first, list(rest)


def _format(value: Any, spec: str) -> str:
    if any(int(width) > MAX_FORMAT_WIDTH for width in re.findall(r"\d+", spec)):
        raise _Refused(f"format width in {spec!r} is too large")
    return format(value, spec)


def _attribute(value: Any, name: str) -> Any:
    if name.startswith("_"):
        raise _Refused(f"attribute {name!r} is not allowed")
    if isinstance(value, Mapping):
        if name not in value:
            raise _Refused(f"{name!r} is not a key of {_describe(value)}")
        return value[name]
    raise _Refused(f"{type(value).__name__} value has no attribute {name!r}")


def _describe(value: Mapping[str, Any]) -> str:
    return "the mapping with keys " + ", ".join(map(repr, value)) if value else "an empty mapping"


def _check_size(value: Any, size: int | None = None) -> Any:
    """Keeps values small: the Body only glues script results and parameters together."""
    if size is None and isinstance(value, str | list | tuple | bytes):
        size = len(value)
    if (size or 0) > MAX_SIZE:
        raise _Refused(f"a value of the Body grew over {MAX_SIZE} items")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _Refused(f"a number of the Body grew over {MAX_INT_BITS} bits")
    return value


class _Frame:
    def __init__(self, scripts: Mapping[str, ScriptFunction], args: Mapping[str, Any]) -> None:
        self.scripts = scripts
        self.args = args
        self.locals: dict[str, Any] = {}

    def block(self, statements: tuple[ast.stmt, ...] | list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Return):
            raise _Return(None if node.value is None else self.value(node.value))
        if isinstance(node, ast.Expr):
            self.value(node.value)
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
            assert isinstance(target, ast.Name)
            self.locals[target.id] = self.value(node.value)
        elif isinstance(node, ast.If):
            self.block(node.body if self.value(node.test) else node.orelse)

    def value(self, node: ast.expr) -> Any:
        try:
            return self._value(node)
        except (AgentError, _Return):
            raise
        except _Refused as exc:
            raise PlanFailed(f"Body line {node.lineno - 1}: {exc}") from exc
        except Exception as exc:
            raise PlanFailed(
                f"Body line {node.lineno - 1}: {type(exc).__name__}: {exc}") from exc

    def _value(self, node: ast.expr) -> Any:
        match node:
            case ast.Constant(value=value):
                return value
            case ast.Name(id=name):
                return self.name(name)
            case ast.Attribute(value=target, attr=attr):
                return _attribute(self.value(target), attr)
            case ast.Subscript(value=target, slice=index):
                return self.value(target)[self.value(index)]
            case ast.Slice(lower=lower, upper=upper, step=step):
                return slice(*(None if part is None else self.value(part)
                               for part in (lower, upper, step)))
            case ast.Call():
                return _check_size(self.call(node))
            case ast.BinOp(left=left, op=op, right=right):
                return _check_size(self.binary(op, self.value(left), self.value(right)))
            case ast.UnaryOp(op=op, operand=operand):
                value = self.value(operand)
                return (not value if isinstance(op, ast.Not)
                        else -value if isinstance(op, ast.USub) else +value)
            case ast.BoolOp(op=op, values=values):
                result: Any = None
                for item in values:
                    result = self.value(item)
                    if bool(result) != isinstance(op, ast.And):
                        return result
                return result
            case ast.Compare(left=left, ops=ops, comparators=comparators):
                current = self.value(left)
                for test, comparator in zip(ops, comparators):
                    following = self.value(comparator)
                    if not _COMPARE[type(test)](current, following):
                        return False
                    current = following
                return True
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self.value(body) if self.value(test) else self.value(orelse)
            case ast.JoinedStr(values=values):
                pieces = [self.value(item) for item in values]
                return _check_size("".join(pieces), sum(map(len, pieces)))
            case ast.FormattedValue(value=inner, conversion=conversion, format_spec=spec):
                value = self.value(inner)
                if conversion != -1:
                    value = _CONVERSIONS[chr(conversion)](value)
                return _format(value, "" if spec is None else self.value(spec))
            case ast.Dict(keys=keys, values=values):
                if any(key is None for key in keys):
                    raise _Refused("dict unpacking (**) is not supported")
                return {self.value(k): self.value(v)
                        for k, v in zip(keys, values) if k is not None}
            case ast.List(elts=items):
                return [self.value(item) for item in items]
            case ast.Tuple(elts=items):
                return tuple(self.value(item) for item in items)
        raise _Refused(f"{type(node).__name__} is not supported")

    def name(self, name: str) -> Any:
        if name in self.locals:
            return self.locals[name]
        if name in self.scripts:
            return self.scripts[name]
        if name == "args":
            return self.args
        if name in _BUILTINS:
            return _BUILTINS[name]
        raise _Refused(f"name {name!r} is not defined (scripts of the plan: "
                         f"{', '.join(sorted(self.scripts)) or 'none'})")

    def call(self, node: ast.Call) -> Any:
        positional = [self.value(arg) for arg in node.args]
        keywords = {kw.arg: self.value(kw.value) for kw in node.keywords if kw.arg is not None}
        if any(kw.arg is None for kw in node.keywords) or any(
                isinstance(arg, ast.Starred) for arg in node.args):
            raise _Refused("argument unpacking is not supported")
        if isinstance(node.func, ast.Attribute):
            target = self.value(node.func.value)
            method = node.func.attr
            if isinstance(target, ScriptFunction):
                # murano-agent's FunctionRunner: `script.function(...)` names a function of
                # Chef/Puppet scripts; an Application script ignores it.
                return target(*positional, **keywords)
            if isinstance(target, str) and method in _STR_METHODS:
                if method == "format":
                    return _SafeFormatter().vformat(target, tuple(positional), keywords)
                if method == "replace" and len(positional) >= 2:
                    old, new = str(positional[0]), str(positional[1])
                    _check_size(target, len(target) + (target.count(old) + 1) * len(new))
                return getattr(target, method)(*positional, **keywords)
            if isinstance(target, Mapping) and method in _DICT_METHODS and method not in target:
                return getattr(target, method)(*positional, **keywords)
            function = _attribute(target, method)
        else:
            function = self.value(node.func)
        if isinstance(function, ScriptFunction) or function in _BUILTINS.values():
            return function(*positional, **keywords)
        raise _Refused(f"{type(function).__name__} value is not callable")

    @staticmethod
    def binary(op: ast.operator, left: Any, right: Any) -> Any:
        if isinstance(op, ast.Mult):
            count = right if isinstance(left, str | list | tuple) else left
            other = left if count is right else right
            if isinstance(other, str | list | tuple) and isinstance(count, int) and (
                    len(other) * count > MAX_SIZE):
                raise _Refused(f"a value of the Body grew over {MAX_SIZE} items")
        if isinstance(op, ast.Mod) and isinstance(left, str):
            if isinstance(right, Mapping) or re.search(r"%[^a-zA-Z%]*(\*|\d{5})", left):
                raise _Refused("%-formatting takes a tuple or a value, without `*` or "
                               "widths over 9999; use format()")
            values = right if isinstance(right, tuple) else (right,)
            _check_size(left, len(left) + sum(len(str(value)) for value in values))
            return left % right
        return _BINARY[type(op)](left, right)
