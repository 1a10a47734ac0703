"""Pushes cost what changed: unchanged resources are neither checked nor
evaluated again, and the results are those of a push from scratch."""

from __future__ import annotations

import typing as t

import pytest

from laguna.cloud import RecordingCloud, hot, stacks
from laguna.cloud.errors import CloudError, TemplateError
from laguna.cloud.hot import Diff
from laguna.cloud.state import Records, ResourceRecord


def server(name: str, **properties: t.Any) -> dict[str, t.Any]:
    return {"type": "OS::Nova::Server", "properties": {"name": name, **properties}}


def env(*names: str) -> dict[str, t.Any]:
    """A network, and one server on a port of it per name; outputs by get_resource
    and by get_attr."""
    resources: dict[str, t.Any] = {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "env-net"}}}
    outputs: dict[str, t.Any] = {}
    for name in names:
        resources[f"port-{name}"] = {"type": "OS::Neutron::Port",
                                     "properties": {"network": {"get_resource": "net"}}}
        resources[name] = server(name, networks=[{"port": {"get_resource": f"port-{name}"}}])
        outputs[f"{name}-id"] = {"value": {"get_resource": name}}
        outputs[f"{name}-ip"] = {"value": {"get_attr": [name, "first_address"]}}
    return {"resources": resources, "outputs": outputs}


@pytest.fixture
def evaluated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the resources' properties and outputs each push evaluates."""
    paths: list[str] = []
    evaluate = stacks._Evaluator.evaluate

    def spy(self: stacks._Evaluator, value: t.Any, path: t.Any) -> t.Any:
        if isinstance(path, str):
            paths.append(path)
        return evaluate(self, value, path)
    monkeypatch.setattr(stacks._Evaluator, "evaluate", spy)
    return paths


def test_push_of_an_unchanged_template_evaluates_nothing(evaluated: list[str]) -> None:
    cloud = RecordingCloud()
    first = cloud.push_stack("env-1", env("a", "b"))
    evaluated.clear()
    again = cloud.push_stack("env-1", env("a", "b"))
    assert evaluated == []
    assert again.diff == Diff((), (), ())
    assert again.outputs == first.outputs
    assert again.hosts == first.hosts


def test_push_adding_a_server_evaluates_it_and_what_reads_attributes(
        evaluated: list[str]) -> None:
    cloud = RecordingCloud()
    cloud.push_stack("env-1", env("a"))
    evaluated.clear()
    result = cloud.push_stack("env-1", env("a", "b"))
    assert result.diff == Diff(("port-b", "b"), (), ())
    # get_attr outputs are computed again (attributes may depend on other
    # resources: a volume lists its attachments); a-id and the rest are kept
    assert evaluated == ["resources.port-b.properties", "resources.b.properties",
                         "outputs.a-ip.value", "outputs.b-id.value", "outputs.b-ip.value"]
    assert result.outputs == RecordingCloud().push_stack("env-1", env("a", "b")).outputs


def test_a_resource_referring_to_a_recreated_one_is_evaluated_again(
        evaluated: list[str]) -> None:
    cloud = RecordingCloud()
    template = {"resources": {
        "cfg": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "echo 1"}},
        "a": server("a", user_data={"get_resource": "cfg"}),
        "b": server("b")}}
    first = cloud.push_stack("env-1", template)
    # another type under the same name: the config is made again, with a new id
    template["resources"]["cfg"] = {"type": "OS::Heat::CloudConfig",
                                    "properties": {"cloud_config": {"hostname": "a"}}}
    evaluated.clear()
    second = cloud.push_stack("env-1", template)
    # a is evaluated again (b is not); a dry run's ids are stable (uuid5 of the
    # stack and the name), so its properties come out the same
    assert evaluated == ["resources.cfg.properties", "resources.a.properties"]
    assert second.diff == Diff(("cfg",), ("cfg",), ())
    assert second.hosts == first.hosts


def test_changed_parameters_evaluate_everything_again(evaluated: list[str]) -> None:
    cloud = RecordingCloud()
    template = {"parameters": {"flavor": {"type": "string", "default": "small"}},
                "resources": {"a": server("a", flavor={"get_param": "flavor"}),
                              "b": server("b")}}
    cloud.push_stack("env-1", template)
    evaluated.clear()
    result = cloud.push_stack("env-1", template, {"flavor": "large"})
    assert evaluated == ["resources.a.properties", "resources.b.properties"]
    assert result.diff == Diff((), (), ("a",))


def test_push_after_a_failed_one_evaluates_everything(evaluated: list[str]) -> None:
    cloud = RecordingCloud()
    cloud.push_stack("env-1", env("a"))
    broken = env("a")
    broken["resources"]["bad"] = server("bad", networks="not a list")
    with pytest.raises(CloudError, match="must be a list"):
        cloud.push_stack("env-1", broken)
    evaluated.clear()
    cloud.push_stack("env-1", env("a"))
    assert "resources.a.properties" in evaluated


def test_the_kept_template_does_not_follow_the_callers_changes() -> None:
    cloud = RecordingCloud()
    template = env("a")
    cloud.push_stack("env-1", template)
    template["resources"]["a"]["properties"]["name"] = "changed"
    assert cloud.get_template("env-1") == env("a")
    result = cloud.push_stack("env-1", template)
    assert result.diff == Diff((), (), ("a",))
    assert [h.server_name for h in result.hosts] == ["changed"]


def test_parse_with_a_previous_template_still_finds_missing_references() -> None:
    template = stacks.copy_data(env("a"))
    first = hot.parse(template, "env-1")
    shrunk = {"resources": {k: v for k, v in template["resources"].items()
                            if k != "port-a"}}
    with pytest.raises(TemplateError, match="reference to missing resource 'port-a'") as info:
        hot.parse(shrunk, "env-1", previous=first)
    assert info.value.path == "resources.a.properties.networks[0].port"


def test_parse_with_a_previous_template_gives_the_same_model() -> None:
    template = stacks.copy_data(env("a", "b"))
    first = hot.parse(template, "env-1")
    grown = {"resources": {**template["resources"], "c": server("c")},
             "outputs": template["outputs"]}
    again = hot.parse(grown, "env-1", previous=first)
    fresh = hot.parse(stacks.copy_data(grown), "env-1")
    assert again.order() == fresh.order()
    assert again.references == fresh.references
    assert again.output_references == fresh.output_references
    assert again.attribute_outputs == fresh.attribute_outputs == {"a-ip", "b-ip"}
    assert again.resources["a"] is first.resources["a"]


def test_share_copy_reuses_equal_parts_and_copies_the_rest() -> None:
    old = {"resources": {"a": {"type": "T", "properties": {"x": [1]}}}}
    new = {"resources": {"a": {"type": "T", "properties": {"x": [1]}},
                         "b": {"type": "T", "properties": {"y": [2]}}}}
    copy = stacks.share_copy(new, old)
    assert copy == new
    assert copy["resources"]["a"] is old["resources"]["a"]
    assert copy["resources"]["b"] is not new["resources"]["b"]
    assert copy["resources"]["b"]["properties"]["y"] is not new["resources"]["b"]["properties"]["y"]
    assert stacks.share_copy(dict(old), old) is old


def record(name: str, rtype: str, rid: str) -> ResourceRecord:
    return ResourceRecord(name, rtype, rid, {}, {})


def test_records_are_indexed_by_id_and_type_in_creation_order() -> None:
    records = Records([record("a", "S", "1"), record("b", "P", "2"), record("c", "S", "3")])
    assert [r.name for r in records.of_type("S")] == ["a", "c"]
    assert [r.name for r in records.of_type("S", "P")] == ["a", "b", "c"]
    assert records.by_id("2") is records["b"]
    del records["a"]
    records["a"] = record("a", "P", "4")
    assert list(records) == ["b", "c", "a"]
    assert [r.name for r in records.of_type("P")] == ["b", "a"]
    assert records.by_id("1") is None and records.by_id("4") is records["a"]
    assert records.by_id(["unhashable"]) is None


def test_order_is_graphlibs_a_round_at_a_time() -> None:
    import random
    chance = random.Random(7)
    for _ in range(200):
        names = [f"r{i}" for i in range(chance.randint(1, 25))]
        chance.shuffle(names)
        resources: dict[str, t.Any] = {}
        for i, name in enumerate(names):
            # depend only on names later in a hidden order: no cycles
            deps = chance.sample(names[i + 1:], k=min(len(names) - i - 1, chance.randint(0, 3)))
            resources[name] = {"type": "T", "depends_on": deps}
        order = list(resources)
        chance.shuffle(order)
        parsed = hot.parse({"resources": {n: resources[n] for n in order}}, "env-1")
        position = {n: i for i, n in enumerate(parsed.resources)}
        assert parsed.order() == parsed._sorted_by_graphlib(position)


def test_a_dependency_cycle_is_named_as_graphlib_finds_it() -> None:
    with pytest.raises(TemplateError, match="dependency cycle: ") as info:
        hot.parse({"resources": {"a": {"type": "T", "depends_on": "b"},
                                 "b": {"type": "T", "depends_on": ["c"]},
                                 "c": {"type": "T", "depends_on": ["a"]}}}, "env-1")
    assert info.value.path == "resources"
