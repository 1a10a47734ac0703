"""The scalar contract methods (`$.int()`, `$.string()`, `$.bool()`,
`$.notNull()`, `$.check()`) in each mode: what they convert the value to when
transforming, what they accept when only validating or checking, and the
exact message of a violation."""

from __future__ import annotations

import pytest

from laguna.lang import contracts, errors
from laguna.lang.contracts import CHECK, TRANSFORM, VALIDATE, ContractState, ObjRef


def state(mode: str) -> ContractState:
    return ContractState(mode, None, None, None, None, None)


def violation(fn, mode, *args) -> str:
    with pytest.raises(errors.ContractViolationException) as info:
        fn(state(mode), *args)
    return info.value.message


@pytest.mark.parametrize(("value", "expected"), [
    ("12", 12), (3.9, 3), (True, 1), (7, 7), (None, None), ("-4", -4)])
def test_int_converts_when_transforming(value, expected):
    result = contracts.c_int(state(TRANSFORM), value)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("value", ["x", "1.5", [1], {}])
def test_int_rejects_what_int_cannot_read(value):
    assert violation(contracts.c_int, TRANSFORM, value) == \
        f"Value {contracts.format_scalar(value)} violates int() contract"


@pytest.mark.parametrize("mode", [VALIDATE, CHECK])
def test_int_only_accepts_ints_and_null_when_not_transforming(mode):
    assert contracts.c_int(state(mode), 5) == 5
    assert contracts.c_int(state(mode), None) is None
    assert violation(contracts.c_int, mode, "5") == "Value '5' violates int() contract"
    assert violation(contracts.c_int, mode, True) == "Value True violates int() contract"
    assert violation(contracts.c_int, mode, 1.0) == "Value 1.0 violates int() contract"


@pytest.mark.parametrize(("value", "expected"), [
    ("a", "a"), (None, None), (12, "12"), (True, "True")])
def test_string_converts_when_transforming(value, expected):
    assert contracts.c_string(state(TRANSFORM), value) == expected


def test_string_of_a_str_subclass_is_a_plain_str():
    class Tagged(str):
        pass
    result = contracts.c_string(state(TRANSFORM), Tagged("a"))
    assert type(result) is str and result == "a"


@pytest.mark.parametrize("value", [[1], {"a": 1}, 1.5])
def test_string_rejects_structures_and_floats(value):
    assert violation(contracts.c_string, TRANSFORM, value) == \
        f"Value {value} violates string() contract"


@pytest.mark.parametrize("mode", [VALIDATE, CHECK])
def test_string_only_accepts_strings_and_null_when_not_transforming(mode):
    assert contracts.c_string(state(mode), "a") == "a"
    assert contracts.c_string(state(mode), None) is None
    assert violation(contracts.c_string, mode, 1) == "Value 1 violates string() contract"


@pytest.mark.parametrize(("value", "expected"), [
    (1, True), (0, False), ("", False), ("x", True), (None, None), (False, False)])
def test_bool_converts_when_transforming(value, expected):
    assert contracts.c_bool(state(TRANSFORM), value) is expected


@pytest.mark.parametrize("mode", [VALIDATE, CHECK])
def test_bool_only_accepts_bools_and_null_when_not_transforming(mode):
    assert contracts.c_bool(state(mode), False) is False
    assert contracts.c_bool(state(mode), None) is None
    assert violation(contracts.c_bool, mode, 1) == "Value 1 violates bool() contract"
    assert violation(contracts.c_bool, mode, "true") == "Value 'true' violates bool() contract"


def test_not_null():
    assert contracts.c_not_null(state(TRANSFORM), 0) == 0
    assert violation(contracts.c_not_null, TRANSFORM, None) == \
        "null value violates notNull() contract"


def test_check_passes_the_value_or_fails_with_the_message():
    assert contracts.c_check(state(TRANSFORM), 3, True, None) == 3
    assert violation(contracts.c_check, TRANSFORM, 3, False, "too big") == "too big"
    assert violation(contracts.c_check, TRANSFORM, "a", False, None) == \
        "Value 'a' doesn't match predicate"
    assert violation(contracts.c_check, TRANSFORM, "a", False, "") == \
        "Value 'a' doesn't match predicate"


def test_check_lets_an_object_reference_through_while_loading():
    ref = ObjRef("id1")
    assert contracts.c_check(state(TRANSFORM), ref, False, "no") is ref


def test_owned_lets_null_and_references_through():
    ref = ObjRef("id1")
    assert contracts.c_owned(state(TRANSFORM), None, True) is None
    assert contracts.c_owned(state(TRANSFORM), ref, False) is ref


def test_owned_rejects_a_value_that_is_not_an_object():
    assert violation(contracts.c_owned, TRANSFORM, 5, True) == "Value 5 is not an object"


def test_format_scalar_quotes_strings_only():
    assert contracts.format_scalar("a") == "'a'"
    assert contracts.format_scalar(1) == "1"
    assert contracts.format_scalar(None) == "None"


def test_object_reference_holds_its_id():
    assert ObjRef("x").object_id == "x"
