"""Imperative workflows, TOSCA 1.3's last parts: workflow outputs mapped onto
attributes, an external ``implementation`` run as a shell script, and a step's
``operation_host``."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.frontends.tosca.actions import ActionFailed, ActionRefused
from laguna.frontends.tosca.runtime import LocalExecutor, Runtime
from laguna.frontends.tosca.topology import load_topology
from laguna.frontends.tosca.workflows import WorkflowRun

from .day2 import cleanup, deployed, lines, write

SCRIPTS = {
    "note.sh": "echo \"$mark\" >> trace\nexport VERSION=\"v-$mark\"\n",
    "migrate.sh": "echo \"$to $PWD\" > migrated\nexport DONE=\"yes-$to\" LEFT=1\n",
    "broken.sh": "echo half-way\nexit 4\n",
    "m.py": "print('never run')\n",
}
NODES = """\
topology_template:
  node_templates:
    app:
      type: my.nodes.Server
      interfaces:
        Admin:
          operations:
            note: {implementation: note.sh, inputs: {mark: app}}
    db:
      type: my.nodes.Server
      interfaces:
        Admin:
          operations:
            note: {implementation: note.sh, inputs: {mark: db}}
  workflows:
    report:
      steps:
        first: {target: app, activities: [{call_operation: Admin.note}], on_success: [last]}
        last: {target: db, activities: [{call_operation: Admin.note}]}
      outputs:
        VERSION: [app, version]
        MISSING: [db, gone]
    migrate:
      inputs:
        to: {type: integer}
      implementation: migrate.sh
      outputs:
        DONE: [db, migrated]
    broken:
      implementation: {primary: broken.sh}
    python_typed:
      implementation: {primary: {file: m.py, type: tosca.artifacts.Implementation.Python}}
    python_named:
      implementation: m.py
    no_script:
      implementation: brooklyn.tosca.artifacts.Implementation.NoOp
"""


def flow(tmp_path: Path) -> tuple[Runtime, WorkflowRun]:
    runtime = deployed(tmp_path, NODES, SCRIPTS)
    return runtime, WorkflowRun(runtime)


def test_outputs_are_what_the_steps_exported_mapped_onto_attributes(tmp_path: Path) -> None:
    runtime, run = flow(tmp_path)
    try:
        assert run.run("report", {}) == {"first": "succeeded", "last": "succeeded"}
    finally:
        cleanup(runtime)
    # the steps ran one after the other: the last export of VERSION is db's
    assert lines(tmp_path / "trace") == ["app", "db"]
    assert run.outputs == {"VERSION": "v-db", "MISSING": None}
    (app,), (db,) = runtime.instances["app"], runtime.instances["db"]
    assert app.attributes["version"] == "v-db"
    assert "gone" not in db.attributes and "version" not in db.attributes


def test_an_implementation_runs_here_with_the_inputs_exported(tmp_path: Path) -> None:
    runtime, run = flow(tmp_path)
    try:
        assert run.run("migrate", {"to": "7"}) == {}
    finally:
        cleanup(runtime)
    assert (tmp_path / "migrated").read_text() == f"7 {tmp_path}\n"
    assert run.outputs == {"DONE": "yes-7"}
    assert runtime.instances["db"][0].attributes["migrated"] == "yes-7"
    assert "migrated" not in runtime.instances["app"][0].attributes


def test_a_failing_implementation_fails_the_workflow(tmp_path: Path) -> None:
    runtime, run = flow(tmp_path)
    try:
        with pytest.raises(ActionFailed) as failed:
            run.run("broken", {})
    finally:
        cleanup(runtime)
    assert (failed.value.kind, failed.value.message) == (
        "operation_failed", f"workflow broken: sh {tmp_path / 'broken.sh'} exited with 4")
    assert failed.value.details == {"workflow": "broken", "exit_code": 4,
                                    "output": "half-way"}
    assert run.outputs == {}


@pytest.mark.parametrize("name", ["python_typed", "python_named"])
def test_an_implementation_other_than_a_shell_script_is_refused(tmp_path: Path,
                                                                name: str) -> None:
    runtime, run = flow(tmp_path)
    try:
        with pytest.raises(ActionRefused) as refused:
            run.run(name, {})
    finally:
        cleanup(runtime)
    assert (refused.value.kind, refused.value.message) == (
        "unsupported_workflow",
        f"workflow {name}: implementation {tmp_path / 'm.py'} is a "
        "tosca.artifacts.Implementation.Python artifact; laguna runs only shell scripts "
        "(tosca.artifacts.Implementation.Bash)")
    assert not (tmp_path / "trace").exists()


def test_an_implementation_with_no_script_is_refused(tmp_path: Path) -> None:
    runtime, run = flow(tmp_path)
    try:
        with pytest.raises(ActionRefused) as refused:
            run.run("no_script", {})
    finally:
        cleanup(runtime)
    noop = "brooklyn.tosca.artifacts.Implementation.NoOp"
    assert (refused.value.kind, refused.value.message) == (
        "unsupported_workflow", f"workflow no_script: implementation {noop} is a {noop} "
        "artifact; laguna runs only shell scripts (tosca.artifacts.Implementation.Bash)")


def test_validation_of_implementations_outputs_and_operation_hosts(tmp_path: Path) -> None:
    path = write(tmp_path, """\
topology_template:
  node_templates:
    app:
      type: my.nodes.Server
      interfaces:
        Admin:
          operations:
            note: note.sh
  workflows:
    both:
      implementation: note.sh
      steps:
        a: {target: app, activities: [{call_operation: Admin.note}]}
    gone:
      implementation: {primary: absent.sh}
      outputs:
        X: [app]
        Y: [ghost, y]
    hosts:
      steps:
        a: {target: app, operation_host: SOMEWHERE, activities: [{call_operation: Admin.note}]}
        b: {target: app, operation_host: TARGET, activities: [{call_operation: Admin.note}]}
""", SCRIPTS)
    topology, problems = load_topology(path)
    assert topology is None
    assert [f"{p.kind}: {p.brief()}" for p in problems.sorted()] == [
        "invalid_template: service.yaml:21:7: workflow both: a workflow has steps or an "
        "implementation, not both",
        "missing_artifact: service.yaml:25:24: workflow gone: operation implementation: "
        "artifact file absent.sh does not exist",
        "invalid_template: service.yaml:27:9: workflow gone: output X maps to "
        "[node template, attribute]",
        "unresolved_requirement: service.yaml:28:9: workflow gone: output Y maps to unknown "
        "node template 'ghost'",
        "invalid_template: service.yaml:31:26: workflow hosts: step a: operation_host: "
        "'SOMEWHERE' is not one of SELF, HOST, SOURCE, TARGET, ORCHESTRATOR",
        "invalid_template: service.yaml:32:26: workflow hosts: step b: operation_host: "
        "TARGET names an end of a relationship, and the step has no target_relationship",
    ]


# -- operation_host -----------------------------------------------------------------------
HOSTED = """\
topology_template:
  node_templates:
    vm: {type: tosca.nodes.Compute}
    vm2: {type: tosca.nodes.Compute}
    db:
      type: tosca.nodes.SoftwareComponent
      requirements: [{host: vm2}]
    app:
      type: my.nodes.Server
      requirements:
        - host: vm
        - dependency:
            node: db
            relationship:
              type: tosca.relationships.DependsOn
              interfaces:
                Configure:
                  post_configure_source: {implementation: note.sh, inputs: {mark: link}}
      interfaces:
        Admin:
          operations:
            note: {implementation: note.sh, inputs: {mark: self}}
  workflows:
    where:
      steps:
        self: {target: app, activities: [{call_operation: Admin.note}], on_success: [here]}
        here:
          target: app
          operation_host: ORCHESTRATOR
          activities: [{call_operation: {operation: Admin.note, inputs: {mark: here}}}]
          on_success: [host]
        host:
          target: app
          operation_host: HOST
          activities: [{call_operation: {operation: Admin.note, inputs: {mark: host}}}]
          on_success: [source]
        source:
          target: app
          target_relationship: dependency
          activities: [{call_operation: Configure.post_configure_source}]
          on_success: [target]
        target:
          target: app
          target_relationship: dependency
          operation_host: TARGET
          activities: [{call_operation: {operation: Configure.post_configure_source,
                                         inputs: {mark: target}}}]
"""


class Machines:
    """Stands for the local cloud: each Compute instance's executor runs the script here
    but notes which host it was given to."""

    def __init__(self, local: LocalExecutor) -> None:
        self.local = local
        self.ran: list[tuple[str, str]] = []

    def executor(self, instance_id: str) -> t.Any:
        machines = self

        class OnHost:
            host_name = f"tosca_{instance_id}"

            def run(self, primary: Path, dependencies: t.Sequence[Path],
                    inputs: t.Mapping[str, t.Any], *rest: t.Any, **named: t.Any) -> t.Any:
                machines.ran.append((self.host_name, str(inputs["mark"])))
                return machines.local.run(primary, dependencies, inputs, *rest, **named)

            def place(self, *args: t.Any) -> str:
                return machines.local.place(*args)

        return OnHost()


def test_operation_host_chooses_where_a_call_operation_runs(tmp_path: Path) -> None:
    runtime = deployed(tmp_path, HOSTED, SCRIPTS)
    (tmp_path / "trace").unlink(missing_ok=True)
    machines = Machines(runtime.orchestrator())
    runtime.machines = t.cast(t.Any, machines)
    runtime.hosts = {"vm": "tosca_vm", "vm2": "tosca_vm2"}
    try:
        assert set(WorkflowRun(runtime).run("where", {}).values()) == {"succeeded"}
    finally:
        cleanup(runtime)
    assert lines(tmp_path / "trace") == ["self", "here", "host", "link", "target"]
    # ORCHESTRATOR ran on this machine, through no host; TARGET on db's host
    assert machines.ran == [("tosca_vm", "self"), ("tosca_vm", "host"), ("tosca_vm", "link"),
                            ("tosca_vm2", "target")]
