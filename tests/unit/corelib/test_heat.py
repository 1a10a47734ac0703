"""HeatStack: the template merge and the push/output cycle through services."""

from __future__ import annotations

import pytest

from laguna.corelib.heat import HeatStackError, Stack, merge
from laguna.corelib.services import RecordingServices


def test_merge_dicts_recursively_and_lists_as_union() -> None:
    base = {"resources": {"a": {"type": "X", "properties": {"networks": [{"port": 1}]}}},
            "description": "old"}
    update = {"resources": {"a": {"properties": {"networks": [{"port": 1}, {"port": 2}],
                                                 "name": "n"}},
                            "b": {"type": "Y"}},
              "description": "new"}
    assert merge(base, update) == {
        "resources": {"a": {"type": "X", "properties": {"networks": [{"port": 1}, {"port": 2}],
                                                        "name": "n"}},
                      "b": {"type": "Y"}},
        "description": "new"}


def test_merge_keeps_base_when_string_meets_null() -> None:
    assert merge({"k": "kept"}, {"k": None}) == {"k": "kept"}
    assert merge({"k": None}, {"k": "ignored"}) == {"k": None}


def test_merge_refuses_other_type_clashes() -> None:
    with pytest.raises(HeatStackError):
        merge({"k": [1]}, {"k": {"a": 1}})


def test_update_rejects_other_template_versions() -> None:
    stack = Stack("s", None, RecordingServices())
    with pytest.raises(HeatStackError, match="2013-05-23"):
        stack.update_template({"heat_template_version": "2016-10-14"})


def test_push_sends_template_with_version_and_description_once() -> None:
    services = RecordingServices()
    stack = Stack("murano-env", "made by laguna", services)
    stack.update_template({"resources": {"vm": {"type": "OS::Nova::Server"}},
                           "outputs": {"vm-id": {"value": {"get_resource": "vm"}}}})
    stack.push()
    stack.push()   # nothing changed: nothing sent
    pushes = services.recorded("push")
    assert len(pushes) == 1
    assert pushes[0].target == "murano-env"
    assert pushes[0].data["template"] == {
        "resources": {"vm": {"type": "OS::Nova::Server"}},
        "outputs": {"vm-id": {"value": {"get_resource": "vm"}}},
        "heat_template_version": "2013-05-23", "description": "made by laguna"}
    assert stack.output()["vm-id"].startswith("vm-")


def test_push_without_resources_deletes_the_stack() -> None:
    services = RecordingServices()
    stack = Stack("s", None, services)
    stack.update_template({"resources": {"a": {"type": "T"}}})
    stack.push()
    stack.set_template({"outputs": {}})
    stack.push()
    assert [r.kind for r in services.log] == ["push", "delete"]
    assert stack.current() == {}


def test_current_reads_the_cloud_template_once() -> None:
    services = RecordingServices()
    services.stacks["s"] = {"resources": {"a": {"type": "T"}}}
    stack = Stack("s", None, services)
    assert stack.current() == {"resources": {"a": {"type": "T"}}}
    stack.update_template({"resources": {"b": {"type": "U"}}})
    assert set(stack.current()["resources"]) == {"a", "b"}
