"""Query lambdas generated as one Python function of the item
(lang/functions/itemcode.py): which lambdas get one, and that every query
gives with them what the general path gives, values, laziness and errors
included (a hypothesis test on generated rows of mixed types)."""

from __future__ import annotations

import typing as t

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laguna.lang.compiler import Compiler
from laguna.lang.functions import itemcode, itemlambdas
from tests.unit.lang.test_item_lambdas import evaluate as item_lambdas_evaluate
from tests.unit.lang.test_item_lambdas import node


@pytest.mark.parametrize(("text", "generated"), [
    ("$.value > 10", True),
    ("$[1]", True),
    ("not ($.v mod 3 = 0) != $.k", True),
    ("dict(id => $lim * 1000 + $, name => concat('item-', str($)), g => $ mod 17)", True),
    ("($ * 7 + $lim) / 101 <= $.v - 1", True),
    ("$.v.sum()", False),
    ("[$[0], $[1].sum()]", False),
    ("$.k and $.v", False),
    ("$ in [1, 2]", False),
    ("dict($)", False),
    ("len($)", False),
    ("$?.k", False),
])
def test_which_lambdas_are_generated(text: str, generated: bool) -> None:
    assert (itemcode.item_code(Compiler(False), node(text)) is not None) is generated


def test_legacy_lambdas_are_not_generated() -> None:
    assert itemcode.item_code(Compiler(True), node("$.value > 10")) is None


QUERIES = [
    "$rows.where($.v > $lim).select($.v * 2 - $.k)",
    "$rows.select(dict(id => $lim * 1000 + $.v, name => concat('item-', str($.k)), "
    "g => $.v mod 3, q => $.v / $lim))",
    "$rows.orderByDescending($.v).thenBy($.k).first()",
    "$rows.groupBy($.k, $.v, [$[0], $[1].sum()]).orderBy($[0])",
    "$rows.select($[1] = $.k)",
    "$rows.select($.v != $lim and not $.v)",
    "$rows.where($.v >= $.k).select($.v + $.v * $.v)",
    "$rows.select(concat($.k, $.k, str($.v)))",
    "$items.select($ mod 4 + $)",
    "$items.orderBy($).select($ / 2)",
]
SCALARS = st.one_of(st.integers(-4, 4), st.integers(2 ** 31, 2 ** 62),
                    st.floats(-3, 3), st.sampled_from(["a", "b", ""]), st.none(),
                    st.booleans())
ROWS = st.lists(st.one_of(
    st.fixed_dictionaries({"k": SCALARS, "v": SCALARS}),
    st.lists(SCALARS, max_size=3)), max_size=6)


def evaluate(text: str, rows: t.Any, items: t.Any, lim: t.Any) -> t.Any:
    return item_lambdas_evaluate(text, rows, lim, items=items)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.sampled_from(QUERIES), rows=ROWS, items=st.lists(SCALARS, max_size=5),
       lim=SCALARS)
def test_generated_equals_general(monkeypatch: pytest.MonkeyPatch, text: str, rows: t.Any,
                                  items: t.Any, lim: t.Any) -> None:
    generated = evaluate(text, rows, items, lim)
    with monkeypatch.context() as patch:
        patch.setattr(itemlambdas, "item_code", lambda compiler, node: None)
        general = evaluate(text, rows, items, lim)
    assert generated == general


def test_pipeline_row_exact() -> None:
    assert evaluate(QUERIES[1], [{"k": 5, "v": 7}], [], 2) == ("ok", ({
        "id": 2007, "name": "item-5", "g": 1, "q": 3},))


def test_error_of_a_missed_guard_is_the_general_paths() -> None:
    assert evaluate("$items.select($ mod $lim)", [], [3], 0) == (
        "error", "ZeroDivisionError", "integer modulo by zero")
