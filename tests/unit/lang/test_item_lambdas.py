"""Query lambdas that keep nothing of their scope run on one scope per query
call (lang/functions/itemlambdas.py): which expressions qualify, and that the
results equal those of a fresh scope per item, laziness and errors included
(a hypothesis test on generated rows)."""

from __future__ import annotations

import typing as t

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaql.language import expressions as ast

from laguna.lang.compiler import Compiler
from laguna.lang.dispatch import freeze
from laguna.lang.functions import itemlambdas
from laguna.lang.scope import Scope
from laguna.yaql import engine


def node(text: str) -> t.Any:
    parsed = engine.parse(text, False)
    return parsed.expression if isinstance(parsed, ast.Statement) else parsed


@pytest.mark.parametrize(("text", "scope_free"), [
    ("$.value > 10", True),
    ("$[1]", True),
    ("[$.k, $.v * 2 + $lim, {a => $?.k}]", True),
    ("not ($.k in [1, 2]) or $.v mod 3 = 0", True),
    ("$.v.sum()", False),
    ("$.where($ > 1)", False),
    ("dict(a => $)", False),
    ("$ -> $ + 1", False),
    ("$ is $x", False),
])
def test_which_lambdas_keep_nothing(text: str, scope_free: bool) -> None:
    assert itemlambdas.keeps_nothing(node(text)) is scope_free


QUERIES = [
    "$rows.where($.v > $lim).select([$.k, $.v * 2])",
    "$rows.orderBy($.k).thenByDescending($.v).select($.v)",
    "$rows.orderByDescending($.v).thenBy($.k).first()",
    "$rows.groupBy($.k, $.v, [$[0], $[1].sum()]).orderBy($[0])",
    "[$rows.select($.v), $rows.select($.k)]",
    "$rows.select($.v / $lim)",
    "$rows.distinct($.k)",
    "$rows.any($.v > $lim)",
    "$rows.all($.v > $lim)",
    "$rows.select($.where($ > 0))",
]
ROWS = st.lists(st.fixed_dictionaries({
    "k": st.one_of(st.integers(0, 3), st.sampled_from(["a", "b"])),
    "v": st.integers(-3, 3)}), max_size=6)


def evaluate(text: str, rows: t.Any, lim: t.Any, **more: t.Any) -> t.Any:
    """The query's value or error, with `$rows`, `$lim` and ``more`` variables."""
    context = engine.create_root_context(False)
    context["$rows"] = freeze(rows)
    context["$lim"] = lim
    for name, value in more.items():
        context["$" + name] = freeze(value)
    fn = Compiler(False).statement(engine.parse(text, False))
    try:
        return ("ok", freeze(fn(Scope(context))))
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return ("error", type(error).__name__, str(error))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.sampled_from(QUERIES), rows=ROWS, lim=st.integers(-1, 2))
def test_one_scope_per_call_equals_one_per_item(monkeypatch: pytest.MonkeyPatch, text: str,
                                                rows: t.Any, lim: int) -> None:
    shared = evaluate(text, rows, lim)
    with monkeypatch.context() as patch:
        patch.setattr(itemlambdas, "keeps_nothing", lambda node: False)
        fresh = evaluate(text, rows, lim)
    assert shared == fresh


def test_a_query_gives_what_it_gave() -> None:
    rows = [{"k": "a", "v": 2}, {"k": 1, "v": 3}, {"k": "a", "v": -1}]
    assert evaluate(QUERIES[0], rows, 0) == ("ok", (("a", 4), (1, 6)))
    assert evaluate(QUERIES[4], rows, 0) == ("ok", ((2, 3, -1), ("a", 1, "a")))
    assert evaluate(QUERIES[5], rows, 0)[:2] == ("error", "ZeroDivisionError")
