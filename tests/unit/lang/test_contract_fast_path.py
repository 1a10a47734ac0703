"""The fast path of contract expressions (`contracts._Steps`): which forms
take it, and that it answers exactly as the general path (the compiled
expression in a scope) does: the same value, the same violation message and
path, in every mode; a hypothesis test compares both on generated values."""

from __future__ import annotations


import typing as t

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.contracts import CHECK, TRANSFORM, VALIDATE, Contract, _Expression, _Steps
from laguna.lang.loader import expression_hook
from laguna.yamlio.loader import load_all
from tests.unit.lang.holders import empty_holder

FAST = ["$.int()", "$.int().notNull()", "$.string().notNull()", "$.bool()", "$",
        "$.notNull()", "$.int().check($ >= 0)", "$.string().check($ != '' and $ != x)",
        "$.int().check($ mod 2 = 0, 'must be even')", "$.check(not ($ = 3))"]
GENERAL = ["$.class(Holder)", "$.int().check($this = null)", "$.check(len($) > 1)",
           "$.string().check($.len() > 1)", "$.int().notNull().owned()", "list($)", "$.check(not $ in list(1, 2))",
           "$.int().check($ > 0, format('bad {0}', $))"]


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> t.Any:
    return empty_holder(tmp_path_factory.mktemp("fast"), "t.fast")


def contract_of(text: str, cls: t.Any, fast: bool = True) -> Contract:
    spec = load_all("Contract: " + text, "Holder.yaml", expression_hook(False))[0]["Contract"]
    return Contract(spec, cls, fast=fast)


def outcome(holder: t.Any, contract: Contract, value: t.Any, mode: str) -> t.Any:
    """What applying the contract gives: ("ok", value, type) or ("violation", message, path)."""
    executor, _, obj = holder
    try:
        result = executor.run(lambda: contract.apply(value, executor=executor, this=obj,
                                                     mode=mode))
    except errors.ContractViolationException as exc:
        return ("violation", exc.message, exc.path)
    return ("ok", result, type(result))


@pytest.mark.parametrize("text", FAST)
def test_common_forms_take_the_fast_path(holder: t.Any, text: str) -> None:
    assert type(contract_of(text, holder[1]).shape) is _Steps


@pytest.mark.parametrize("text", GENERAL)
def test_other_forms_take_the_general_path(holder: t.Any, text: str) -> None:
    assert type(contract_of(text, holder[1]).shape) is _Expression


def test_list_and_dict_shapes_hold_fast_items(holder: t.Any) -> None:
    shape = contract_of("[$.string()]", holder[1]).shape
    assert [type(item) for item in shape.items] == [_Steps]  # type: ignore[attr-defined]
    shape = contract_of("{a: $.int(), $.string(): $.bool()}", holder[1]).shape
    assert type(shape.fixed["a"]) is _Steps  # type: ignore[attr-defined]
    assert [type(s) for s in shape.others] == [_Steps, _Steps]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "value", "mode", "expected"), [
    ("$.int().notNull()", "12", TRANSFORM, ("ok", 12, int)),
    ("$.int().notNull()", None, TRANSFORM,
     ("violation", "null value violates notNull() contract", "")),
    ("$.int().notNull()", "x", TRANSFORM, ("violation", "Value 'x' violates int() contract", "")),
    ("$.int().notNull()", "12", VALIDATE,
     ("violation", "Value '12' violates int() contract", "")),
    ("$.int().check($ >= 0)", -1, TRANSFORM,
     ("violation", "Value -1 doesn't match predicate", "")),
    ("$.int().check($ >= 0)", "3", TRANSFORM, ("ok", 3, int)),
    ("$.int().check($ mod 2 = 0, 'must be even')", 3, CHECK, ("violation", "must be even", "")),
    ("$.string().notNull()", 7, TRANSFORM, ("ok", "7", str)),
    ("$.string().notNull()", 1.5, TRANSFORM,
     ("violation", "Value 1.5 violates string() contract", "")),
    ("$.bool()", "", TRANSFORM, ("ok", False, bool)),
    ("$.notNull()", [1, [2]], TRANSFORM, ("ok", (1, (2,)), tuple)),
    ("[$.string()]", ["a", 1], TRANSFORM, ("ok", ("a", "1"), tuple)),
    ("[$.string()]", ["a", 1.5], TRANSFORM,
     ("violation", "Value 1.5 violates string() contract", "[1]")),
    ("{a: $.int().notNull()}", {"a": None}, TRANSFORM,
     ("violation", "null value violates notNull() contract", "['a']")),
])
def test_fast_path_results_and_violations(holder: t.Any, text: str, value: t.Any, mode: str,
                                          expected: t.Any) -> None:
    assert outcome(holder, contract_of(text, holder[1]), value, mode) == expected


def test_a_failing_predicate_is_declared_at_the_contract(holder: t.Any) -> None:
    # `'a' > 1` has no yaql operator: the error names the contract's place
    executor, cls, obj = holder
    contract = contract_of("$.check($ > 1)", cls)
    assert type(contract.shape) is _Steps
    with pytest.raises(Exception) as info:
        executor.run(lambda: contract.apply("a", executor=executor, this=obj))
    assert info.value.declared_at.line == 1  # type: ignore[attr-defined]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-3, 3),
                    st.sampled_from(["", "x", "7", "-2", "1.5", "True"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3),
                   st.dictionaries(st.sampled_from(["a", "b"]), SCALARS, max_size=2))
CONTRACTS = FAST + ["[$.string()]", "[$.int().notNull(), 1, 3]", "[$.int()]", "[$.bool(), 2]",
                    "{a: $.int(), $.string(): $.bool()}", "$.int().check($ > 1 or $ < -1)",
                    "$.string().notNull().check($ != '7', 'no sevens')"]


@settings(max_examples=300, deadline=None)
@given(text=st.sampled_from(CONTRACTS), value=VALUES,
       mode=st.sampled_from([TRANSFORM, VALIDATE, CHECK]))
def test_fast_path_equals_general_path(holder: t.Any, text: str, value: t.Any,
                                       mode: str) -> None:
    fast = contract_of(text, holder[1])
    general = contract_of(text, holder[1], fast=False)

    def answer(contract: Contract) -> t.Any:
        try:
            return outcome(holder, contract, value, mode)
        except Exception as exc:   # the same Python error either way
            return ("error", type(exc), str(exc))
    fast_answer, general_answer = answer(fast), answer(general)
    assert fast_answer == general_answer
    if fast_answer[0] == "ok":
        assert type(fast_answer[1]) is type(general_answer[1])
    assert not isinstance(fast_answer[1], (list, dict)) or isinstance(
        fast_answer[1], utils.FrozenDict)





@pytest.mark.parametrize(("text", "unchanged"), [
    ("$.int().notNull()", {int}),
    ("$.int()", {int, type(None)}),
    ("$.string().notNull()", {str}),
    ("$.bool()", {bool, type(None)}),
    ("$", {int, str, bool, float, type(None)}),
    ("$.notNull()", {int, str, bool, float}),
    ("$.int().string()", {type(None)}),
    ("$.int().check($ >= 0)", set()),
    ("$.class(Holder)", set()),
])
def test_values_a_contract_gives_back_as_they_are_are_checked_by_type(
        holder: t.Any, text: str, unchanged: set[type]) -> None:
    # (the hypothesis test above compares this shortcut with the general path too)
    assert contract_of(text, holder[1]).unchanged == unchanged
    assert contract_of(text, holder[1], fast=False).unchanged == frozenset()


def test_a_tuple_of_items_a_list_contract_keeps_is_its_own_result(holder: t.Any) -> None:
    executor, cls, obj = holder
    contract = contract_of("[$.string()]", cls)
    assert contract.shape.unchanged == {str, type(None)}  # type: ignore[attr-defined]
    tags = ("small", "plain")
    assert executor.run(lambda: contract.apply(tags, executor=executor, this=obj)) is tags
    assert executor.run(lambda: contract.apply(("a", 1), executor=executor,
                                               this=obj)) == ("a", "1")
    assert contract_of("[$.string(), $.int()]", cls).shape.unchanged == frozenset()  # type: ignore[attr-defined]
