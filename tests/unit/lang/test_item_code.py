"""Query lambdas generated as one Python function of the item
(lang/codegen.py): which lambdas get one, and that every query
gives with them what the general path gives, values, laziness and errors
included (a hypothesis test on generated rows of mixed types)."""

from __future__ import annotations

import typing as t

import pytest
import yaql
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaql.language import utils

from laguna.lang.compiler import Compiler, compile_statement
from laguna.lang.dispatch import DEEP_MARK, freeze
from laguna.lang.executor import Executor
from laguna.lang import codegen as itemcode
from laguna.lang.functions import itemlambdas, queries
from laguna.lang.rows import RULE_SIZE
from laguna.lang.limits import STRING_BYTES
from laguna.lang.scope import Frame, Scope
from laguna.testing.packages import core_registry
from laguna.yaql import engine
from laguna.yaql.engine import Limits
from tests.unit.lang.test_item_lambdas import evaluate as item_lambdas_evaluate
from tests.unit.lang.test_item_lambdas import node


@pytest.mark.parametrize(("text", "generated"), [
    ("$.value > 10", True),
    ("$[1]", True),
    ("not ($.v mod 3 = 0) != $.k", True),
    ("dict(id => $lim * 1000 + $, name => concat('item-', str($)), g => $ mod 17)", True),
    ("($.v * 7 + $lim) / 101 <= $.k - 1", True),
    # a number after `$ * 7` can never be read as a dict: no generated path
    ("$ * 7 + $.v", False),
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


# -- the limits, where the generated code and the direct queries decide them ------
def _executor_outcome(text: str, data: t.Any, limits: Limits) -> t.Any:
    """``text`` run as code of a class by an executor with ``limits``, `$` = ``data``."""
    executor = Executor(core_registry(), limits)
    cls = executor.find_class("io.murano.Object")
    scope = executor.new_scope(cls)
    scope.frame = Frame(executor, None, None, cls, None)
    scope.set_local("$1", freeze(data))
    fn = compile_statement(engine.parse(text, False), False, functions=executor.functions)
    try:
        return ("ok", freeze(executor.run(lambda: fn(scope))))
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return ("error", type(error).__name__, str(error))


def _yaql_outcome(text: str, data: t.Any, limits: Limits) -> t.Any:
    """The yaql library alone under the same limits."""
    context = yaql.create_context()
    context["$"] = utils.convert_input_data(data)
    options = {"yaql.limitIterators": limits.iterators, "yaql.memoryQuota": limits.memory_quota,
               "yaql.convertTuplesToLists": False}
    parsed = yaql.factory.YaqlFactory().create(options=options)(text)
    try:
        return ("ok", freeze(parsed.evaluate(context=context)))
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        return ("error", type(error).__name__, str(error))


ROW_QUERY = "$.select(dict(a => $, b => concat('x', str($)), c => $ * 2, d => $ mod 3))"


@pytest.mark.parametrize("quota", [
    itemcode.ROW_SIZE - 1, itemcode.ROW_SIZE, 4 * RULE_SIZE - 1, 4 * RULE_SIZE,
    4 * RULE_SIZE + 1])
def test_rows_within_the_memory_quota_exactly_as_the_general_path(
        monkeypatch: pytest.MonkeyPatch, quota: int) -> None:
    # (the general path builds rows as yaql's dict() does: rules, then the row)
    limits = Limits(memory_quota=quota)
    generated = _executor_outcome(ROW_QUERY, [1, 2], limits)
    with monkeypatch.context() as patch:
        patch.setattr(itemlambdas, "item_code", lambda compiler, node: None)
        assert _executor_outcome(ROW_QUERY, [1, 2], limits) == generated
    assert generated == (
        ("error", "MemoryQuotaExceededException", "Expression consumed too much memory")
        if quota < 4 * RULE_SIZE else ("ok", ({"a": 1, "b": "x1", "c": 2, "d": 1},
                                              {"a": 2, "b": "x2", "c": 4, "d": 2})))


def test_a_string_past_the_quota_in_generated_code_is_the_limit_error() -> None:
    query = "$.select(concat($, $, 'b'))"
    quota = 50 + STRING_BYTES
    within = Limits(memory_quota=quota)
    assert _executor_outcome(query, ["a" * 24], within) == ("ok", ("a" * 48 + "b",))
    assert _executor_outcome(query, ["a" * 25], within) == (
        "error", "LimitExceededError",
        f"memory_quota limit of {quota} bytes exceeded by a string of 51 characters")


@pytest.mark.parametrize(("quota", "outcome"), [
    (300, ("error", "MemoryQuotaExceededException", "Expression consumed too much memory")),
    (400, ("error", "ZeroDivisionError", "integer division or modulo by zero")),
    (700, ("ok", tuple((k, tuple(range(k, 30, 20))) for k in range(20)))),
])
def test_group_by_refuses_at_the_item_yaql_refuses(quota: int, outcome: t.Any) -> None:
    # a dict of 6 keys is 352 bytes (5: 224), of 20 keys 632
    limits = Limits(memory_quota=quota)
    if quota == 700:
        query, data = "$.groupBy($ mod 20)", list(range(30))
    else:   # the 6th key is past a quota of 300; the 7th item's key an error
        query, data = "$.groupBy(60 / $)", [1, 2, 3, 4, 5, 6, 0]
    assert _executor_outcome(query, data, limits) == outcome
    assert _yaql_outcome(query, data, limits) == outcome


def test_generated_rows_of_flat_values_are_marked_frozen() -> None:
    flat = evaluate("$items.select(dict(a => $ mod 2, b => str($)))", [], [3], 0)
    kept = evaluate("$items.select(dict(a => $))", [], [3], 0)
    assert flat == ("ok", ({"a": 1, "b": "3"},)) and kept == ("ok", ({"a": 3},))
    assert getattr(flat[1][0], DEEP_MARK, False) is True
    # `$` itself might be anything: that row is walked when frozen
    maker = itemcode.item_code(Compiler(False), node("dict(a => $)"))
    assert maker is not None
    row = maker(Scope(engine.create_root_context(False)), lambda item: None)(3)
    assert row == {"a": 3} and not hasattr(row, DEEP_MARK)


@settings(max_examples=200, deadline=None)
@given(size=st.integers(0, 6), limit=st.integers(-1, 6), kind=st.sampled_from(
    ["range", "map", "generator"]))
def test_limited_iterator_reads_and_refuses_as_yaqls(size: int, limit: int, kind: str) -> None:
    def source(read: list[int]) -> t.Iterator[int]:
        if kind == "range":
            return iter(range(size))
        if kind == "map":
            return map(lambda i: read.append(i) or i, range(size))   # type: ignore[func-returns-value]
        return (read.append(i) or i for i in range(size))   # type: ignore[func-returns-value]

    def run(limited: t.Iterator[int], read: list[int]) -> t.Any:
        try:
            return ("ok", list(limited), list(read))
        except Exception as error:  # noqa: BLE001 - the kind and message are the result
            return ("error", type(error).__name__, str(error), list(read))
    ours: list[int] = []
    theirs: list[int] = []
    assert run(queries._limited_iterator(source(ours), limit), ours) == run(
        utils.limit_iterable(source(theirs), limit), theirs)
