"""The direct paths of lang/functions/dicts.py (`mergeWith`) and
lang/functions/values.py (`coalesce`, `bool`, `keys`, `values`, `contains`)
against yaql's own functions.

Each expression is compiled twice: with the language's function table (the
direct paths) and with a table without those modules, where the call goes
through yaql's overload resolution. Both must give the same value, of the
same types all the way down (dict and FrozenDict, tuple and list are told
apart), or the same error by kind and message; and the pinned rows say what
that value is.
"""

from __future__ import annotations

import typing as t

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from yaql.language import runner, utils

from laguna.lang import builtins, dispatch
from laguna.lang.compiler import compile_statement
from laguna.lang.dispatch import freeze
from laguna.lang.functions import queries, strings
from laguna.lang.functions.table import build_table, language_functions
from laguna.lang.scope import Scope
from laguna.yaql import engine

WITHOUT_DICTS = build_table([dispatch, builtins, queries, strings])
FD = utils.FrozenDict


def typed(value: t.Any) -> t.Any:
    """``value`` with the type of every container spelled out."""
    if isinstance(value, (dict, FD)):
        return (type(value).__name__, [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [typed(v) for v in value])
    return (type(value).__name__, value)


def run(text: str, variables: dict[str, t.Any], table: t.Any) -> t.Any:
    context = engine.create_root_context(False)
    for name, value in variables.items():
        context[name] = freeze(value)
    fn = compile_statement(engine.parse(text, False), False, functions=table)
    try:
        return typed(fn(Scope(context)))
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return (type(error).__name__, str(error))


def direct(text: str, **variables: t.Any) -> t.Any:
    return run(text, variables, language_functions())


def through_yaql(text: str, **variables: t.Any) -> t.Any:
    return run(text, variables, WITHOUT_DICTS)


ROWS: list[tuple[str, t.Any]] = [
    ("{a => 1, c => [1, 2]}.mergeWith({d => 5, b => 3, c => [2, 3]})",
     {"a": 1, "c": (1, 2, 3), "d": 5, "b": 3}),
    ("{a => {x => [1]}, k => v}.mergeWith({a => {x => [1, 2], y => null}})",
     {"a": {"x": (1, 2), "y": None}, "k": "v"}),
    ("{}.mergeWith({})", {}),
    ("{a => 1}.mergeWith({a => null})", {"a": None}),
    ("{a => [1, 1]}.mergeWith({a => []})", {"a": (1,)}),
]

def no_method(method: str, receiver: str) -> tuple[str, str]:
    return ("NoMatchingMethodException",
            f'No method "{method}" for receiver {receiver} matches supplied arguments')


VALUE_ROWS: list[tuple[str, t.Any]] = [
    ("coalesce(null, 1, x)", 1), ("coalesce()", None), ("coalesce(null, null)", None),
    ("coalesce(null, false, 1)", False), ("coalesce($n, [], 1)", ()),
    ("coalesce(1, 1 / 0)", 1),      # evaluated in order, and no further
    ("coalesce(null, 1 / 0)", ("ZeroDivisionError", "integer division or modulo by zero")),
    ("bool(0)", False), ("bool([])", False), ("bool({})", False), ("bool('')", False),
    ("bool(null)", False), ("bool(a)", True), ("bool([0])", True), ("bool(0.0)", False),
    ("bool(1, 2)", ("NoMatchingFunctionException",
                    'No function "bool" matches supplied arguments')),
    ("{b => 1, a => 2}.keys()", ("b", "a")), ("{b => 1, a => [2]}.values()", (1, (2,))),
    ("{}.keys()", ()), ("$d.values().concat([3])", ("v", 3)),
    ("[1].keys()", no_method("keys", "(1,)")), ("null.values()", no_method("values", "None")),
    ("{a => 1}.keys(1)", no_method("keys", "{'a': 1}")),
    ("[1, 2].contains(2)", True), ("[1, 2].contains(3)", False), ("[null].contains(null)", True),
    ("[1, 2].select($ * 2).contains(4)", True), ("set(1, 2).contains(1)", True),
    ("[[1]].contains([1])", True), ("[1].contains(1.0)", True),
    ("abc.contains(b)", no_method("contains", "abc")),
    ("{a => 1}.contains(a)", no_method("contains", "{'a': 1}")),
    ("null.contains(1)", no_method("contains", "None")),
]


@pytest.mark.parametrize(("text", "expected"), VALUE_ROWS, ids=[text for text, _ in VALUE_ROWS])
def test_value_functions(text: str, expected: t.Any) -> None:
    got = direct(text, n=None, d={"k": "v"})
    assert got == through_yaql(text, n=None, d={"k": "v"})
    is_error = isinstance(expected, tuple) and expected and expected[0] in (
        "ZeroDivisionError", "NoMatchingFunctionException", "NoMatchingMethodException")
    assert got == (expected if is_error else typed(freeze(expected)))


def test_value_functions_resolve_no_overload(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        raise AssertionError(f"{name} went through yaql's resolution")
    monkeypatch.setattr(runner, "call", refuse)
    text = "[coalesce(null, 2), bool($x), $x.keys(), $x.values(), [1, 2].contains(2)]"
    assert direct(text, x={"a": 1}) == typed(freeze((2, True, ("a",), (1,), True)))


ERRORS: list[tuple[str, tuple[str, str]]] = [
    ("{a => [1]}.mergeWith({a => {b => 1}})",
     ("TypeError", "Cannot merge <class 'tuple'> with <class "
                   "'yaql.language.utils.FrozenDict'>")),
    ("{a => s}.mergeWith({a => [1]})",
     ("TypeError", "Cannot merge <class 'str'> with <class 'tuple'>")),
    ("{a => 1}.mergeWith(3)",
     ("NoMatchingMethodException",
      "No method \"mergeWith\" for receiver {'a': 1} matches supplied arguments")),
    ("null.mergeWith({})",
     ("NoMatchingMethodException",
      'No method "mergeWith" for receiver None matches supplied arguments')),
    ("[1].mergeWith({})",
     ("NoMatchingMethodException",
      'No method "mergeWith" for receiver (1,) matches supplied arguments')),
]


@pytest.mark.parametrize(("text", "expected"), ROWS, ids=[text for text, _ in ROWS])
def test_values(text: str, expected: dict[str, t.Any]) -> None:
    got = direct(text)
    assert got == through_yaql(text)
    assert got == typed(freeze(expected))


@pytest.mark.parametrize(("text", "expected"), ERRORS, ids=[text for text, _ in ERRORS])
def test_errors(text: str, expected: tuple[str, str]) -> None:
    assert direct(text) == expected
    assert through_yaql(text) == expected


def test_the_direct_path_resolves_no_overload(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        raise AssertionError(f"{name} went through yaql's resolution")
    monkeypatch.setattr(runner, "call", refuse)
    assert direct("$a.mergeWith($b)", a={"x": [1]}, b={"x": [2]}) == \
        typed(freeze({"x": (1, 2)}))


def test_forms_with_mergers_go_to_yaql() -> None:
    text = "{a => [1], b => 2}.mergeWith({a => [1], b => 3}, $1 + $2, $1)"
    assert direct(text) == through_yaql(text) == typed(freeze({"a": (1, 1), "b": 2}))


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from("ab"))
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                      st.dictionaries(st.sampled_from("xyz"), inner, max_size=3)),
    max_leaves=8)
_DICTS = st.dictionaries(st.sampled_from("xyz"), _VALUES, max_size=4)


@settings(max_examples=150, deadline=None)
@given(_DICTS, _DICTS)
def test_any_two_dicts_merge_as_in_yaql(first: dict[str, t.Any],
                                         second: dict[str, t.Any]) -> None:
    assert direct("$a.mergeWith($b)", a=first, b=second) == \
        through_yaql("$a.mergeWith($b)", a=first, b=second)
