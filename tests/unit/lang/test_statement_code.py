"""Statements generated as one Python function of the scope (lang/codegen.py,
statement_code): which statements get one, and that each gives what its
compiled closures give, value or error, on variables of mixed types (a
hypothesis test)."""

from __future__ import annotations

import typing as t

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laguna.lang import codegen
from laguna.lang.compiler import Compiler
from laguna.lang.dispatch import freeze
from laguna.lang.scope import Scope
from laguna.yaql import engine
from tests.unit.lang.test_item_lambdas import node


@pytest.mark.parametrize(("text", "generated"), [
    ("$j * 2 + $i", True),
    ("$k mod 3 = 0", True),
    ("$i < 100", True),
    ("concat($s, str($i))", True),
    ("$d.k + 1", True),
    ("$", False),             # a read alone: its closure is as short
    ("$i", False),
    ("$d.k", False),          # may be a collection, which a statement freezes
    ("dict(a => $i)", False),
    ("$.f($i) + 1", False),   # a method call
    ("$i and $j", False),
])
def test_which_statements_are_generated(text: str, generated: bool) -> None:
    compiler = Compiler(False)
    made = codegen.statement_code(compiler, node(text), lambda scope: None)
    assert (made is not None) is generated


def test_legacy_and_contract_statements_are_not_generated() -> None:
    for compiler in (Compiler(True), Compiler(False, contract=True)):
        assert codegen.statement_code(compiler, node("$i < 100"), lambda scope: None) is None


STATEMENTS = [
    "$j * 2 + $i", "$k mod 3 = 0", "$i < $j", "not ($i != $j)", "concat($s, str($i))",
    "$d.k + $i", "$l[1] * $i - $j", "($i + $j) / $k >= $i", "$i = $s", "$ * 2 + $i",
    "$i / $j",
]
SCALARS = st.one_of(st.integers(-4, 4), st.integers(2 ** 31, 2 ** 62), st.floats(-3, 3),
                    st.sampled_from(["a", "b", ""]), st.none(), st.booleans())
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3),
                   st.fixed_dictionaries({"k": SCALARS}))


def evaluate(text: str, variables: dict[str, t.Any]) -> t.Any:
    context = engine.create_root_context(False)
    scope = Scope(context)
    for name, value in variables.items():
        scope.set_local("$" + name, freeze(value))
    fn = Compiler(False).statement(engine.parse(text, False))
    try:
        value = fn(scope)
        return ("ok", type(value).__name__, value)
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return ("error", type(error).__name__, str(error))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.sampled_from(STATEMENTS), values=st.fixed_dictionaries({
    "i": VALUES, "j": VALUES, "k": VALUES, "s": VALUES, "d": VALUES, "l": VALUES, "1": VALUES}))
def test_generated_equals_general(monkeypatch: pytest.MonkeyPatch, text: str,
                                  values: dict[str, t.Any]) -> None:
    generated = evaluate(text, values)
    with monkeypatch.context() as patch:
        patch.setattr(codegen, "statement_code", lambda compiler, node, general: None)
        general = evaluate(text, values)
    assert generated == general


def test_a_loop_body_statement_exact() -> None:
    assert evaluate("$j * 2 + $i", {"j": 7, "i": 3}) == ("ok", "int", 17)
    assert evaluate("$k mod 3 = 0", {"k": 9}) == ("ok", "bool", True)
    assert evaluate("$k mod $i", {"k": 9, "i": 0}) == (
        "error", "ZeroDivisionError", "integer modulo by zero")


def test_a_variable_of_an_outer_scope_is_read_as_the_closure_reads_it() -> None:
    context = engine.create_root_context(False)
    outer = Scope(context)
    outer.set_local("$i", 40)
    inner = Scope(outer)
    inner.set_local("$j", 1)
    assert Compiler(False).statement(engine.parse("$i + $j * 2", False))(inner) == 42
