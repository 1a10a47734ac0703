"""Node operations as actions on a deployed topology, and the CheckRunning refresh."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from laguna.deploy.result import Component
from laguna.frontends.tosca import actions
from laguna.frontends.tosca.actions import ActionFailed, ActionRefused
from laguna.frontends.tosca.deployed import kept_instances, restore
from laguna.frontends.tosca.runtime import Runtime

from .day2 import Recorder, cleanup, deployed, lines, reporter

TOPOLOGY = """\
topology_template:
  node_templates:
    web:
      type: my.nodes.Server
      interfaces:
        Standard:
          start: start.sh
          stop: stop.sh
          delete: delete.sh
        Admin:
          inputs: {level: low}
          operations:
            backup:
              inputs: {target: /default, who: {get_attribute: [SELF, tosca_name]}}
              implementation: backup.sh
              outputs: {DONE: [SELF, last_backup]}
            fail: fail.sh
            note: {inputs: {x: 1}}
        CheckRunning:
          operations:
            check_running: check.sh
  policies:
    - two: {type: tosca.policies.Scaling, targets: [web], properties: {default_instances: 2}}
"""
SCRIPTS = {
    "start.sh": "touch \"running.$id\"\n",
    "stop.sh": "echo stopped >> stops\n",
    "delete.sh": "echo deleted >> deletes\n",
    "backup.sh": "echo \"$target $level $who\" >> backups\nexport DONE=\"$target\"\n",
    "fail.sh": "echo broken\nexit 4\n",
    "check.sh": "[ -f up ] && export IS_RUNNING=true || export IS_RUNNING=false\n",
}


@pytest.fixture
def runtime(tmp_path: Path) -> t.Iterator[Runtime]:
    (tmp_path / "up").touch()
    runtime = deployed(tmp_path, TOPOLOGY, SCRIPTS)
    yield runtime
    cleanup(runtime)


def test_an_operation_runs_on_every_instance_with_args_over_its_inputs(
        runtime: Runtime, tmp_path: Path) -> None:
    result = actions.run(runtime, "web", "Admin.backup", {"target": "/srv"})
    assert result == {"web.0": {"DONE": "/srv"}, "web.1": {"DONE": "/srv"}}
    assert sorted(lines(tmp_path / "backups")) == ["/srv", "/srv", "low", "low", "web", "web"]
    for instance in runtime.instances["web"]:
        assert instance.attributes["last_backup"] == "/srv"
        assert instance.attributes["my.interfaces.Admin.backup.DONE"] == "/srv"
        assert instance.state == "started"


def test_one_instance_by_id_and_the_interface_by_its_type_name(
        runtime: Runtime, tmp_path: Path) -> None:
    result = actions.run(runtime, "web.1", "my.interfaces.Admin.backup", {})
    assert result == {"web.1": {"DONE": "/default"}}
    assert "last_backup" not in runtime.instances["web"][0].attributes
    assert runtime.instances["web"][1].attributes["last_backup"] == "/default"


def test_unknown_node_and_operation_are_refused_before_anything_runs(runtime: Runtime) -> None:
    with pytest.raises(ActionRefused) as refused:
        actions.run(runtime, "db", "Admin.backup", {})
    assert (refused.value.kind, refused.value.message) == (
        "unknown_node", "topology service has no node template or instance 'db' (nodes: "
        "web; workflows: `workflow`)")
    with pytest.raises(ActionRefused) as refused:
        actions.run(runtime, "web", "Admin.restore", {})
    assert (refused.value.kind, refused.value.message) == (
        "unknown_operation", "node web has no operation 'Admin.restore' (operations: "
        "Admin.backup, Admin.fail, CheckRunning.check_running, Standard.delete, "
        "Standard.start, Standard.stop)")
    with pytest.raises(ActionRefused) as refused:
        actions.run(runtime, "web", "Admin.note", {})
    assert refused.value.message.startswith("node web has nothing to run for 'Admin.note' "
                                            "(operations: Admin.backup, ")


def test_a_failing_operation_names_each_instance_and_leaves_the_state(
        runtime: Runtime) -> None:
    with pytest.raises(ActionFailed) as failed:
        actions.run(runtime, "web", "Admin.fail", {})
    script = runtime.topology.root / "fail.sh"
    assert failed.value.kind == "operation_failed"
    assert failed.value.message == (
        f"node web.0: Admin.fail failed: sh {script} exited with 4; "
        f"node web.1: Admin.fail failed: sh {script} exited with 4")
    assert failed.value.details["exit_code"] == 4
    assert [i.state for i in runtime.instances["web"]] == ["started", "started"]


def test_standard_operations_move_the_state(runtime: Runtime, tmp_path: Path) -> None:
    actions.run(runtime, "web.0", "Standard.stop", {})
    assert [i.state for i in runtime.instances["web"]] == ["configured", "started"]
    actions.run(runtime, "web", "tosca.interfaces.node.lifecycle.Standard.delete", {})
    assert [i.state for i in runtime.instances["web"]] == ["deleted", "deleted"]
    assert lines(tmp_path / "stops") == ["stopped"]
    assert lines(tmp_path / "deletes") == ["deleted", "deleted"]
    # the node is as far as its least advanced instance
    assert reporter(runtime).states[-2:] == [("web", "deleting"), ("web", "deleted")]


def test_check_running_sets_error_then_started_again(runtime: Runtime, tmp_path: Path) -> None:
    (tmp_path / "up").unlink()
    with pytest.raises(ActionFailed) as failed:
        actions.run(runtime, "web", "CheckRunning.check_running", {})
    assert failed.value.kind == "not_running"
    assert failed.value.message == (
        "node web.0: CheckRunning.check_running reported IS_RUNNING=false: not running; "
        "node web.1: CheckRunning.check_running reported IS_RUNNING=false: not running")
    assert [i.state for i in runtime.instances["web"]] == ["error", "error"]
    assert runtime.node_state("web") == "error"
    (tmp_path / "up").touch()
    result = actions.run(runtime, "web", "CheckRunning.check_running", {})
    assert result == {"web.0": {"IS_RUNNING": "true"}, "web.1": {"IS_RUNNING": "true"}}
    assert [i.state for i in runtime.instances["web"]] == ["started", "started"]


def test_check_running_leaves_instances_not_expected_to_run(
        runtime: Runtime, tmp_path: Path) -> None:
    actions.run(runtime, "web.1", "Standard.stop", {})
    (tmp_path / "up").unlink()
    with pytest.raises(ActionFailed) as failed:
        actions.run(runtime, "web", "CheckRunning.check_running", {})
    assert failed.value.message == ("node web.0: CheckRunning.check_running reported "
                                    "IS_RUNNING=false: not running")
    assert [i.state for i in runtime.instances["web"]] == ["error", "configured"]
    assert ("info", "CheckRunning.check_running: web.1 is configured, not expected to run: "
            "not checked", "web") in reporter(runtime).reports


def test_a_non_zero_exit_means_not_running(runtime: Runtime, tmp_path: Path) -> None:
    (tmp_path / "check.sh").write_text("exit 2\n")
    with pytest.raises(ActionFailed) as failed:
        actions.run(runtime, "web.0", "CheckRunning.check_running", {})
    assert failed.value.message == ("node web.0: CheckRunning.check_running exited with 2: "
                                    "not running")
    assert failed.value.details == {"node": "web", "instance": "web.0", "exit_code": 2}


def test_a_deploy_is_kept_and_restored(runtime: Runtime, tmp_path: Path) -> None:
    actions.run(runtime, "web.1", "Admin.backup", {"target": "/b"})
    actions.run(runtime, "web.0", "Standard.stop", {})
    kept = json.loads(json.dumps(kept_instances(runtime)))
    assert kept["web.1"]["state"] == "started"
    assert kept["web.1"]["outputs"] == {"Admin.backup": {"DONE": "/b"},
                                        "CheckRunning.check_running": {"IS_RUNNING": "true"}}
    again = Runtime(runtime.topology, tmp_path, tmp_path / "logs", Recorder())
    restore(again, kept, {})
    for old, new in zip(runtime.instances["web"], again.instances["web"]):
        assert (new.state, new.attributes, new.outputs, new.sessions) == (
            old.state, old.attributes, old.outputs, old.sessions)
    assert again.instances["web"][0].state == "configured"


def test_a_model_kept_before_day_2_restores_from_the_components(
        runtime: Runtime, tmp_path: Path) -> None:
    shown = Component("my.nodes.Server", "web", "started", {"instances": [
        {"id": "web.0", "state": "error", "attributes": {"entity.id": "e0", "x": "1"}}]})
    again = Runtime(runtime.topology, tmp_path, tmp_path / "logs", Recorder())
    restore(again, {"web.0": {"node": "web", "sessions": [12]}}, {"web": shown})
    first, second = again.instances["web"]
    assert (first.state, first.attributes["entity.id"], first.attributes["x"],
            first.sessions) == ("error", "e0", "1", [12])
    assert second.state == "initial"
