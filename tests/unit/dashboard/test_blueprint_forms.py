"""The controls a blueprint's inputs make (laguna.dashboard.blueprints): each
TOSCA constraint as the HTML attribute that says the same, what a browser sends
converted by the input's type, and the API's refusal put beside its field."""

from __future__ import annotations

from laguna.dashboard.blueprints import controls, placed, values_of

INPUTS = [
    {"name": "count", "type": "integer", "required": True,
     "constraints": [{"greater_than": 0}, {"less_than": 10}]},
    {"name": "ratio", "type": "float", "required": False, "default": 0.5,
     "constraints": [{"greater_or_equal": 0.1}, {"less_or_equal": 0.9}]},
    {"name": "code", "type": "string", "required": True, "description": "Letters.",
     "constraints": [{"length": 3}, {"pattern": "[a-z]+"}]},
    {"name": "mode", "type": "string", "required": True, "constraints": [{"equal": "on"}]},
    {"name": "tags", "type": "list", "required": False, "default": ["a"], "constraints": []},
    {"name": "loud", "type": "boolean", "required": False, "default": True, "constraints": []},
]


def test_constraints_become_attributes_and_widgets() -> None:
    made = {c.name: c for c in controls(INPUTS)}
    assert (made["count"].widget, made["count"].attributes) == (
        "number", {"step": "1", "min": "1", "max": "9"})
    assert made["ratio"].attributes == {"step": "any", "min": "0.1", "max": "0.9"}
    assert (made["ratio"].value, made["ratio"].required) == (0.5, False)
    assert made["code"].attributes == {"minlength": "3", "maxlength": "3", "pattern": "[a-z]+"}
    assert made["code"].help == "Letters."
    assert (made["mode"].widget, made["mode"].options) == ("select", ["on"])
    assert (made["tags"].widget, made["tags"].value, made["tags"].help) == (
        "textarea", "[a]", "A list written as YAML or JSON.")
    assert (made["loud"].widget, made["loud"].value) == ("checkbox", True)


def test_values_are_converted_by_type_and_unreadable_text_is_said() -> None:
    made = controls(INPUTS)
    values, problems = values_of(made, {"count": "3", "ratio": "", "code": "abc",
                                        "mode": "on", "tags": "[x, y", "loud": None})
    assert values == {"count": 3, "code": "abc", "mode": "on", "loud": False}
    assert problems == {"tags": "not YAML: while parsing a flow sequence"}
    # a number that does not read as one goes as text, for the front end to refuse
    values, problems = values_of(made, {"count": "1.5", "ratio": "x", "tags": "{a: 1}",
                                        "loud": "true"})
    assert (values, problems) == ({"count": "1.5", "ratio": "x", "tags": {"a": 1},
                                   "loud": True}, {})


def test_the_api_s_refusal_is_put_beside_the_fields_it_names() -> None:
    made = controls(INPUTS)
    general = placed("The inputs of x are refused:\n"
                     "input count: the value given: 0 is not greater than 0\n"
                     "input other: is given but not declared\n"
                     "property 'code' (string): \"1\" is not a string", made)
    errors = {c.name: c.error for c in made if c.error}
    assert errors == {"count": "input count: the value given: 0 is not greater than 0",
                      "code": "property 'code' (string): \"1\" is not a string"}
    assert general == ["input other: is given but not declared"]
