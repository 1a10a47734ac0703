"""An action's argument fields from its contracts, and the values a form gives."""

from __future__ import annotations

import pytest

from laguna.dashboard.arguments import ArgumentError, fields_of, values_of

ARGUMENTS = [{"name": "message", "required": True, "type": "$.string().notNull()"},
             {"name": "count", "required": False, "type": "$.int().check($ > 0)"},
             {"name": "force", "required": False, "type": "$.bool()"},
             {"name": "hosts", "required": False, "type": "[$.string()]"},
             {"name": "port", "required": False, "type": "integer"},
             {"name": "anything", "required": False, "type": ""}]


def test_each_contract_has_its_widget() -> None:
    assert [(f.name, f.kind) for f in fields_of(ARGUMENTS)] == [
        ("message", "text"), ("count", "integer"), ("force", "boolean"), ("hosts", "json"),
        ("port", "integer"), ("anything", "text")]


def test_values_follow_the_fields() -> None:
    sent = {"arg.message": " hi ", "arg.count": "3", "arg.force": "on",
            "arg.hosts": '["a", "b"]', "arg.port": "", "arg.anything": ""}
    assert values_of(fields_of(ARGUMENTS), sent.get) == {
        "message": " hi ", "count": 3, "force": True, "hosts": ["a", "b"]}
    assert values_of(fields_of(ARGUMENTS), {"arg.message": "x"}.get) == {
        "message": "x", "force": False}


@pytest.mark.parametrize(("sent", "message"), [
    ({}, "message is required"),
    ({"arg.message": "x", "arg.count": "three"}, "count must be an integer, not 'three'"),
    ({"arg.message": "x", "arg.hosts": "[a"},
     "hosts must be JSON (its contract is [$.string()]): Expecting value: line 1 column 2 "
     "(char 1)"),
    ({"arg.message": "x" * (64 * 1024 + 1)},
     "message: the value is longer than 65536 characters"),
])
def test_what_a_field_cannot_take_is_refused_by_name(sent: dict[str, str],
                                                     message: str) -> None:
    with pytest.raises(ArgumentError) as refused:
        values_of(fields_of(ARGUMENTS), sent.get)
    assert str(refused.value) == message
