"""Intrinsic functions: evaluation, AMP's readiness, and how values reach scripts."""

from __future__ import annotations

import typing as t

import pytest

from laguna.frontends.tosca import functions


class Fake:
    """A resolver over fixed data that records what was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def input(self, name: str) -> t.Any:
        return {"port": 80, "words": ["a", "b"], "deep": {"x": [1, 2]}}[name]

    def property(self, ref: str, path: list[t.Any]) -> t.Any:
        self.asked.append(("property", ref, *map(str, path)))
        return "prop"

    def attribute(self, ref: str, path: list[t.Any]) -> t.Any:
        self.asked.append(("attribute", ref, *map(str, path)))
        return "10.0.0.1"

    def operation_output(self, ref: str, interface: str, operation: str, name: str) -> t.Any:
        return f"{ref}.{interface}.{operation}.{name}"

    def artifact(self, ref: str, name: str) -> t.Any:
        return f"/csar/{name}"

    def nodes_of_type(self, type_name: str) -> list[str]:
        return ["a", "b"]


@pytest.mark.parametrize(("value", "result"), [
    ({"concat": ["http://", {"get_attribute": ["HOST", "ip"]}, ":", {"get_input": "port"}]},
     "http://10.0.0.1:80"),
    ({"join": [{"get_input": "words"}, ", "]}, "a, b"),
    ({"join": [["x", 1, True]]}, "x1true"),
    ({"token": ["a.b-c", ".-", 2]}, "c"),
    ({"token": ["a.b", ".", 5]}, None),
    ({"get_input": ["deep", "x", 1]}, 2),
    ({"get_operation_output": ["SELF", "Standard", "create", "OUT"]},
     "SELF.Standard.create.OUT"),
    ({"get_artifact": ["SELF", "conf"]}, "/csar/conf"),
    ({"get_node_of_type": "tosca.nodes.Compute"}, ["a", "b"]),
    ({"map": {"get_input": "port"}}, {"map": 80}),
    (["plain", 1], ["plain", 1]),
])
def test_evaluate(value: object, result: object) -> None:
    assert functions.evaluate(value, Fake()) == result


def test_get_property_and_get_attribute_pass_their_paths() -> None:
    fake = Fake()
    functions.evaluate({"a": {"get_property": ["SELF", "host", "num_cpus"]},
                        "b": {"get_attribute": ["TARGET", "networks", "private", 0]}}, fake)
    assert fake.asked == [("property", "SELF", "host", "num_cpus"),
                          ("attribute", "TARGET", "networks", "private", "0")]


@pytest.mark.parametrize(("value", "ready"), [
    (None, False), ("", False), ("  ", False), (0, False), (0.0, False), (False, False),
    ("0", True), ("x", True), (1, True), (True, True), ([], True), ({}, True),
])
def test_truthy_is_amps_readiness(value: object, ready: bool) -> None:
    assert functions.truthy(value) is ready


@pytest.mark.parametrize(("value", "text"), [
    ("s", "s"), (True, "true"), (None, ""), (3, "3"), (1.5, "1.5"),
    ([1, "a"], '[1, "a"]'), ({"k": 1}, '{"k": 1}'),
])
def test_values_reach_scripts_as_text(value: object, text: str) -> None:
    assert functions.text(value) == text
