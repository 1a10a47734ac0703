"""${} resolution and conversion to declared types."""

from __future__ import annotations

import typing as t

import pytest

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.descriptor import DataType, PropertyDef
from laguna.frontends.assembly.values import (
    MISSING,
    BadValue,
    Unresolved,
    convert,
    resolve,
)
from laguna.source import Span

SPAN = Span("a.yaml", 3, 5)
VALUES: dict[str, t.Any] = {
    "n": 3, "on": True, "m": {"nested-property": {"list": ["e1", "e22"], "x": {"y": 1.5}}},
    "l": [{"c": 1}, {"c": 2}], "none": None}


def lookup(key: str) -> t.Any:
    return VALUES.get(key, MISSING)


def prop(kind: str, **kw: t.Any) -> PropertyDef:
    return PropertyDef(name="p", span=SPAN, type=kind, **kw)


def test_one_reference_keeps_its_type() -> None:
    assert resolve("${n}", lookup) == 3
    assert resolve(" ${on} ", lookup) is True
    assert resolve("${l}", lookup) == [{"c": 1}, {"c": 2}]


def test_paths_walk_maps_and_lists() -> None:
    assert resolve("${m.nested-property.list[1]}", lookup) == "e22"
    assert resolve("${l[0].c}", lookup) == 1
    assert resolve("${m.nested-property.x.y}", lookup) == 1.5


def test_several_references_are_interpolated() -> None:
    assert resolve("n=${n} on=${on} l=${l} none=${none}", lookup) == \
        'n=3 on=true l=[{"c":1},{"c":2}] none='


def test_resolution_walks_lists_and_maps_of_values() -> None:
    assert resolve({"a": ["${n}", "x"]}, lookup) == {"a": [3, "x"]}


@pytest.mark.parametrize("text", ["${nope}", "${m.missing}", "${l[2]}", "${n.x}", "${l.c}"])
def test_unknown_names_keys_and_indexes_are_unresolved(text: str) -> None:
    with pytest.raises(Unresolved) as raised:
        resolve(text, lookup)
    assert raised.value.path == text[2:-1]


@pytest.mark.parametrize("kind,given,wanted", [
    ("string", 2, "2"), ("string", True, "true"), ("integer", "42", 42), ("integer", 4.0, 4),
    ("float", "1.5", 1.5), ("float", 2, 2.0), ("boolean", "False", False),
    ("boolean", True, True), ("list", "[1, 2]", [1, 2]), ("map", '{"a": 1}', {"a": 1}),
    ("timestamp", "2019-09-07T15:50-04:00", "2019-09-07T15:50-04:00"),
])
def test_values_convert_to_declared_types(kind: str, given: t.Any, wanted: t.Any) -> None:
    assert convert(given, prop(kind), {}) == wanted


@pytest.mark.parametrize("kind,given,message", [
    ("integer", "three", '"three" is not an integer'), ("integer", True, "true is not an integer"),
    ("boolean", "yes", '"yes" is not a boolean'), ("float", "x", '"x" is not a float'),
    ("list", {"a": 1}, '{"a": 1} is not a list'), ("string", [1], "[1] is not a string"),
])
def test_values_that_do_not_convert(kind: str, given: t.Any, message: str) -> None:
    with pytest.raises(BadValue, match=f"^{message.replace('[', '.').replace(']', '.')}$"):
        convert(given, prop(kind), {})


def test_entry_schema_converts_each_entry() -> None:
    schema = PropertyDef(name="p[]", span=SPAN, type="integer")
    assert convert(["1", 2], prop("list", entry_schema=schema), {}) == [1, 2]
    assert convert({"a": "1"}, prop("map", entry_schema=schema), {}) == {"a": 1}


def _types() -> dict[str, DataType]:
    base = DataType("base", SPAN, None, {
        "source": PropertyDef("source", SPAN, type="string", default="ext", has_default=True)})
    sap = DataType("sap", SPAN, "base", {
        "id": PropertyDef("id", SPAN, type="integer", required=True),
        "n": PropertyDef("n", SPAN, type="float")})
    return {"base": base, "sap": sap}


def test_data_type_fields_convert_default_inherit_and_extra_fields_stay() -> None:
    assert convert({"id": "7", "more": [1]}, prop("sap"), _types()) == \
        {"id": 7, "more": [1], "source": "ext"}


def test_a_required_data_type_field_is_enforced_at_the_top() -> None:
    with pytest.raises(e.DescriptorError) as raised:
        convert({"n": 1}, prop("sap"), _types(), check_required=True)
    assert raised.value.kind == e.MISSING_REQUIRED_PROPERTY
    assert raised.value.message == \
        "a.yaml:3:5: required field 'id' of sap value of 'p' has no value"
    assert convert({"n": 1}, prop("sap"), _types()) == {"n": 1.0, "source": "ext"}
