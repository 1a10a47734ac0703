"""Every direct path of the compiler, deterministically.

Each row is an expression, the variables it sees and what it must give: a
value of an exact type (so `true`, `1` and `1.0` are told apart) or an error
of an exact kind and message. For expressions plain yaql can evaluate, the
value must also be what the yaql library itself computes: that is what the
original engine gave. Method calls on MuranoPL objects (which only the engine
knows) run in a class of their own below.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
import typing as t

import pytest
import yaql
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.classes import PackageClasses
from laguna.lang.compiler import compile_statement
from laguna.lang.dispatch import freeze
from laguna.lang.executor import Executor
from laguna.lang.scope import Scope
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry
from laguna.yaql import engine


@dataclasses.dataclass(frozen=True)
class Err:
    kind: str
    message: str


NO_MATCH = "NoMatchingFunctionException"


def no_match(function: str) -> Err:
    return Err(NO_MATCH, f'No function "{function}" matches supplied arguments')


def no_method(method: str, receiver: t.Any) -> Err:
    return Err("NoMatchingMethodException",
               f'No method "{method}" for receiver {receiver} matches supplied arguments')


VARIABLES = {"i": 7, "j": -2, "k": 0, "f": 1.5, "s": "ab", "t": True, "n": None,
             "lst": [10, 20, 30], "d": {"a": {"b": 1}, "k": "v"}}

ROWS: list[tuple[str, t.Any]] = [
    # integer division floors, as yaql's does; a float makes it true division
    ("7 / 2", 3), ("-7 / 2", -4), ("7 / -2", -4), ("-7 / -2", 3), ("$i / $j", -4),
    ("-$i / 2", -4), ("6 / 3", 2), ("7.0 / 2", 3.5), ("-7 / 2.0", -3.5), ("$i / $f", 7 / 1.5),
    ("1 / 0", Err("ZeroDivisionError", "integer division or modulo by zero")),
    ("$i / $k", Err("ZeroDivisionError", "integer division or modulo by zero")),
    ("1.0 / 0", Err("ZeroDivisionError", "float division by zero")),
    ("true / 1", no_match("#operator_/")), ("'a' / 1", no_match("#operator_/")),
    # mod takes the sign of the divisor, as Python's % and yaql's mod do
    ("7 mod 3", 1), ("-7 mod 3", 2), ("7 mod -3", -2), ("-7 mod -3", -1), ("$i mod $j", -1),
    ("5.5 mod 2", 1.5), ("$i mod 2.0", 1.0), ("-5.5 mod 2", 0.5),
    ("7 mod 0", Err("ZeroDivisionError", "integer modulo by zero")),
    ("true mod 2", no_match("#operator_mod")),
    # and/or give an operand, and never evaluate the right one when the left decides
    ("true and 0", 0), ("1 and 2", 2), ("0 and 2", 0), ("null and 1", None),
    ("0 or 'a'", "a"), ("null or false", False), ("[] or [1]", (1,)), ("$s or 1", "ab"),
    ("false and 1 / 0", False), ("0 and $d.a.b.c.d", 0), ("true or 1 / 0", True),
    ("$s or $i / $k", "ab"), ("$n and 1 / 0", None),
    ("true and 1 / 0", Err("ZeroDivisionError", "integer division or modulo by zero")),
    ("false or 1 / 0", Err("ZeroDivisionError", "integer division or modulo by zero")),
    ("not true", False), ("not 0", True), ("not $n", True), ("not $s", False),
    ("not []", True),
    # precedence and associativity, no parentheses
    ("2 + 3 * 4", 14), ("2 * 3 + 4", 10), ("10 - 4 - 3", 3), ("100 / 10 / 5", 2),
    ("2 * 3 mod 4", 2), ("7 mod 4 * 2", 6), ("1 + 2 * 3 - 4 / 2", 5), ("2 - -2", 4),
    ("-2 * -3", 6), ("- $i * 2", -14), ("-$i mod 3", 2), ("+$i", 7), ("-$f", -1.5),
    ("1 + 2 = 3", True), ("3 > 2 = true", True), ("1 < 2 and 2 < 3", True),
    ("true or false and false", True), ("false and true or true", True),
    ("not false and false", False), ("not 1 = 2", True), ("1 = 1 and 2 != 2", False),
    ("3 > 2 > 1", no_match("#operator_>")),
    ("1 + 2 in [3]", True), ("$i * 2 + $j * 3", 8), ("$lst[1] + $lst[2] * 2", 80),
    ("[1] + [2] + [3]", (1, 2, 3)), ("'a' + 'b' + 'c'", "abc"),
    # arithmetic and comparison across types
    ("1 + 1.5", 2.5), ("1.5 + 1", 2.5), ("2 * 1.5", 3.0), ("3 - 1.0", 2.0), ("1 + 1", 2),
    ("$i + $f", 8.5), ("$f * 2", 3.0), ("-0.5 * 2", -1.0),
    ("true + 1", no_match("#operator_+")), ("1 + true", no_match("#operator_+")),
    ("$n + 1", no_match("#operator_+")), ("'a' + 1", no_match("#operator_+")),
    ("1 - 'a'", no_match("#operator_-")), ("true * 2", no_match("#operator_*")),
    ("1 < 1.5", True), ("2 >= 2.0", True), ("$i > $f", True), ("1 <= 0", False),
    ("'a' < 'b'", True), ("'a' > 'B'", True), ("'ab' >= 'abc'", False),
    ("null < 1", True), ("null < null", False),
    ("'a' < 1", no_match("#operator_<")), ("true < 1", no_match("#operator_<")),
    ("true > false", no_match("#operator_>")), ("[1] < [2]", no_match("#operator_<")),
    ("1 = 1.0", True), ("1 = true", True), ("0 = false", True), ("'1' = 1", False),
    ("null = false", False), ("null = null", True), ("$i = $f", False), ("1 != true", False),
    ("'a' != 'a'", False), ("[1, 2] = [1, 2]", True), ("[1] = [true]", True),
    ("{a => 1} = {a => 1}", True), ("{a => 1} != {a => 2}", True),
    # string and list operators
    ("'ab' + 'cd'", "abcd"), ("$s + $s", "abab"), ("'ab' * 3", "ababab"),
    ("3 * 'ab'", "ababab"), ("[1] * 2", (1, 1)), ("[1] + [2]", (1, 2)),
    ("$lst + [40]", (10, 20, 30, 40)), ("[] + []", ()),
    ("$s + 1", no_match("#operator_+")), ("[1] + 1", no_match("#operator_+")),
    ("1 in [1, 2]", True), ("3 in [1, 2]", False), ("1 in [true]", True),
    ("'a' in ['a', 'b']", True), ("[1] in [[1]]", True), ("null in [null]", True),
    ("'b' in 'abc'", True), ("20 in $lst", True), ("a in $d", no_match("#operator_in")),
    # indexing
    ("[1, 2, 3][0]", 1), ("[1, 2, 3][-1]", 3), ("$lst[$i - 6]", 20), ("$lst[-$i + 4]", 10),
    ("$d[a][b]", 1), ("$d[k]", "v"), ("[1, 2][true]", 2), ("[[1, 2], [3]][0][1]", 2),
    ("[1, 2][5]", Err("IndexError", "tuple index out of range")),
    ("{a => 1}[b]", Err("KeyError", "'b'")),
    ("[1, 2][1.0]", no_match("#indexer")), ("'abc'[1]", no_match("#indexer")),
    ("$s[0]", no_match("#indexer")),
    # attributes and methods of plain data
    ("$d.a.b", 1), ("$d.a", utils.FrozenDict({"b": 1})), ("$missing", None),
    ("$n?.a", None), ("$lst.len()", 3), ("$s.len()", 2), ("$s.toUpper()", "AB"),
    ("'a,b'.split(',')", ("a", "b")), ("$lst.select($ * 2)", (20, 40, 60)),
    ("$lst.where($ > 15).first()", 20), ("[3, 1, 2].orderBy($)", (1, 2, 3)),
    ("$lst.toList()", (10, 20, 30)), ("$lst.where($ > 15).toList()", (20, 30)),
    ("range(5000).select($ mod 2).toList().len()", 5000), ("[3, 1, 2].orderBy($).toList()", (1, 2, 3)),
    ("$s.toList()", no_method("toList", "ab")),
    ("{a => 1}.get(b, 5)", 5), ("$i.foo()", Err("NoMethodRegisteredException",
                                                'Unknown method "foo" for receiver 7')),
    ("$i?.a", Err("NoFunctionRegisteredException", 'Unknown function "#property#a"')),
    ("$d.a.b.c", Err("NoFunctionRegisteredException", 'Unknown function "#property#c"')),
    # functions with a direct path
    ("list(1, 'a')", (1, "a")), ("list()", ()), ("str(1)", "1"), ("str(true)", "true"),
    ("str(null)", "null"), ("str(1.5)", "1.5"), ("str($s)", "ab"),
    ("str([1])", "(1,)"),  # yaql 3 prints its frozen lists as tuples
    # replace with a mapping: strings direct, in the mapping's order; the rest yaql's
    ("'%a% %b% %a%'.replace({'%a%' => 'x', '%b%' => 'y'})", "x y x"),
    ("'aaa'.replace({a => b, b => c})", "ccc"), ("'aaa'.replace({b => c, a => b})", "bbb"),
    ("'aaa'.replace({a => b}, 2)", "bba"), ("'aaa'.replace({a => b}, 0)", "aaa"),
    ("'aaa'.replace({a => b}, -1)", "bbb"), ("$s.replace({})", "ab"),
    ("'ab'.replace({'' => '-'})", "-a-b-"), ("$s.replace({a => $s})", "abb"),
    ("'a1'.replace({1 => 2, a => true})", "true2"), ("'a-'.replace({'-' => null})", "anull"),
    ("'aaa'.replace({a => b}, true)", "baa"),     # yaql takes the boolean as 1
    ("'aaa'.replace({a => b}, null)", no_method("replace", "aaa")),
    ("'abc'.replace(b, x)", "axc"), ("'aaa'.replace(a, b, 1)", "baa"),
    ("$i.replace({a => b})", no_method("replace", 7)),
    ("$n.replace({a => b})", no_method("replace", None)),
    ("$s.replace([a])", no_method("replace", "ab")),
    # set on a dict: each form direct, keys in yaql's order (later wins); the rest yaql's
    ("{a => 1}.set(b => 2, a => 3)", utils.FrozenDict(a=3, b=2)),
    ("$d.set(k => [1], z => $i)", utils.FrozenDict(a=utils.FrozenDict(b=1), k=(1,), z=7)),
    ("{a => 1}.set({b => 2, a => 0})", utils.FrozenDict(a=0, b=2)),
    ("{}.set($s, $lst)", utils.FrozenDict(ab=(10, 20, 30))), ("{}.set({})", utils.FrozenDict()),
    ("{a => 1}.set(1, null)", utils.FrozenDict({"a": 1, 1: None})),
    ("$i.set(a => 1)", no_method("set", 7)), ("$n.set({a => 1})", no_method("set", None)),
    ("$s.set(a, 1)", no_method("set", "ab")), ("{a => 1}.set([b])", no_method("set", "{'a': 1}")),
]

# Where laguna deliberately differs from yaql 3 (docs/LANGUAGE.md): only pinned.
NOT_YAQL = {
    "$d.missing": None,           # yaql 3 raises KeyError; the original engine gave null
}


def same(actual: t.Any, expected: t.Any) -> bool:
    """Equal and of the same types all the way down (True is not 1 is not 1.0)."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, tuple):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, utils.FrozenDict):
        return (list(actual) == list(expected)
                and all(same(actual[k], expected[k]) for k in expected))
    return bool(actual == expected)


def outcome(evaluate: t.Callable[[], t.Any]) -> t.Any:
    try:
        return freeze(evaluate())
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return Err(type(error).__name__, str(error))


def agrees(actual: t.Any, expected: t.Any) -> bool:
    if isinstance(expected, Err):
        return actual == expected
    return same(actual, expected)


def compiled(text: str) -> t.Any:
    context = engine.create_root_context(False)
    for name, value in VARIABLES.items():
        context[name] = freeze(value)
    fn = compile_statement(engine.parse(text, False), False)
    return outcome(lambda: fn(Scope(context)))


def interpreted(text: str) -> t.Any:
    """The yaql library alone: its parser, its evaluator, its standard library."""
    context = yaql.create_context()
    for name, value in VARIABLES.items():
        context[name] = value
    return outcome(lambda: yaql.factory.YaqlFactory().create()(text).evaluate(context=context))


@pytest.mark.parametrize(("text", "expected"), ROWS, ids=[text for text, _ in ROWS])
def test_compiled(text: str, expected: t.Any) -> None:
    assert agrees(compiled(text), expected), compiled(text)


@pytest.mark.parametrize(("text", "expected"), ROWS, ids=[text for text, _ in ROWS])
def test_yaql_gives_the_pinned_value(text: str, expected: t.Any) -> None:
    assert agrees(interpreted(text), expected), interpreted(text)


@pytest.mark.parametrize(("text", "expected"), NOT_YAQL.items())
def test_compiled_where_laguna_differs_from_yaql(text: str, expected: t.Any) -> None:
    assert agrees(compiled(text), expected)
    assert not agrees(interpreted(text), expected)


# -- method calls and property reads on MuranoPL objects ----------------------

CLASS = """\
    Namespaces:
      =: t.fast
    Name: Calc
    Properties:
      calls:
        Contract: [$.string()]
        Default: []
        Usage: InOut
      child:
        Contract: $.class(Calc)
        Usage: InOut
      items:
        Contract: [$.int()]
        Default: [5, 6, 7]
        Usage: InOut
      ratio:
        Contract: $.int()
        Default: 4
        Usage: InOut
    Methods:
      add:
        Arguments:
          - a:
              Contract: $.int()
          - b:
              Contract: $.int()
              Default: 10
        Body:
          - Return: $a + $b
      seen:
        # returns its value and records that it was evaluated
        Arguments:
          - tag:
              Contract: $.string()
          - value:
              Contract: $
        Body:
          - $.calls: $.calls + [$tag]
          - Return: $value
      makeChild:
        Body:
          - $.child: new(Calc, ratio => 3)
          - Return: $.child
      run:
        Arguments:
          - case:
              Contract: $.string()
        Body:
          - $.makeChild()
          - $value: $.dispatch($case)
          - Return: [$.calls, $value]
      dispatch:
        Arguments:
          - case:
              Contract: $.string()
        Body:
    """

# (expression inside a method of Calc, expected value or error, the `seen` calls made)
OBJECT_ROWS: list[tuple[str, t.Any, tuple[str, ...]]] = [
    ("$.add(2, 3)", 5, ()),
    ("$.add(2)", 12, ()),
    ("$.add(b => 3, a => 2)", 5, ()),
    ("$.add(2, 3) * 2 + 1", 11, ()),
    ("1 + $.add(2, 3) * 2", 11, ()),
    ("$.add($.add(1, 2), -$.ratio)", -1, ()),
    ("-$.add(7, 0) / 2", -4, ()),
    ("$.add(-7, 0) mod 3", 2, ()),
    ("$.ratio / 3", 1, ()),
    ("$.ratio * 1.0", 4.0, ()),
    ("$.items[1]", 6, ()),
    ("$.items[-1] + $.items[0]", 12, ()),
    ("$.items.len()", 3, ()),
    ("$this.items.select($ * 2)", (10, 12, 14), ()),
    ("$.child.ratio", 3, ()),
    ("$.child.add(1, $.child.ratio)", 4, ()),
    ("$.child.child", None, ()),
    ("$.child.child?.ratio", None, ()),
    ("$.ratio = 4 and $.child.ratio = 3", True, ()),
    # short circuit: the right side's calls are not made
    ("$.seen(l, false) and $.seen(r, true)", False, ("l",)),
    ("$.seen(l, 0) and $.seen(r, 1)", 0, ("l",)),
    ("$.seen(l, true) and $.seen(r, 2)", 2, ("l", "r")),
    ("$.seen(l, 1) or $.seen(r, true)", 1, ("l",)),
    ("$.seen(l, null) or $.seen(r, 'x')", "x", ("l", "r")),
    ("$.seen(a, false) and $.seen(b, true) or $.seen(c, 3)", 3, ("a", "c")),
    ("$.seen(a, true) or $.seen(b, true) and $.seen(c, false)", True, ("a",)),
    # operands left to right, each once
    ("$.seen(l, 1) + $.seen(r, 2) * $.seen(m, 3)", 7, ("l", "r", "m")),
    ("$.seen(l, [1, 2])[$.seen(r, 0)]", 1, ("l", "r")),
    ("$.seen(l, {a => 1}).a", 1, ("l",)),
    ("$.seen(o, $.child).ratio", 3, ("o",)),
    # errors, by kind and message
    ("$.nothing()", Err("NoMethodRegisteredException",
                        'Unknown method "nothing" for receiver <t.fast.Calc/0.0.0 ID>'), ()),
    # a missing argument without a Default is null, which its contract may refuse
    ("$.add(b => 1)", no_match("#operator_+"), ()),
    ("$.add(1, 2, 3)", Err("NoMatchingMethodException",
                           "Method add takes 2 positional arguments but 3 were given"), ()),
    ("$.add(1, c => 2)", Err("NoMatchingMethodException",
                             "Method add has no argument named c"), ()),
    # int() converts what Python's int() takes, as the original engine's did
    ("$.add(true, 1)", 2, ()),
    ("$.add('7', 1.9)", 8, ()),
    ("$.add([1])", Err("ContractViolationException", "argument a of method t.fast.Calc::add: "
                       "Value (1,) violates int() contract (contract: $.int())"), ()),
    ("$.child.add(1) / 0", Err("ZeroDivisionError", "integer division or modulo by zero"), ()),
    ("$.seen(l, 1) or $.nothing()", 1, ("l",)),
]


def _calc(expression: str) -> tuple[t.Any, tuple[str, ...]]:
    registry = core_registry()
    body = textwrap.dedent(CLASS) + f"          - Return: {expression}\n"
    registry.add(PackageClasses(RuntimePackage("t.fast"), [("Classes/Calc.yaml", lambda: body)]))
    executor = Executor(registry)
    calc = executor.new_object(executor.find_class("t.fast.Calc"), None, {})
    try:
        calls, value = executor.call(calc, "run", "x")
    except errors.MuranoPlError as error:
        message = re.sub(r" [0-9a-f]{32}>", " ID>", error.message)
        return Err(error.names[0].rsplit(".", 1)[-1], message), ()
    return value, tuple(calls)


@pytest.mark.parametrize(("expression", "expected", "calls"), OBJECT_ROWS,
                         ids=[e for e, _, _ in OBJECT_ROWS])
def test_on_objects(expression: str, expected: t.Any, calls: tuple[str, ...]) -> None:
    value, made = _calc(expression)
    assert agrees(value, expected), value
    assert made == calls
