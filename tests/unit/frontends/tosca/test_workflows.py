"""Imperative workflows: inputs, preconditions, the step graph, activities, failures,
and what validation says of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.frontends.tosca.actions import ActionFailed, ActionRefused
from laguna.frontends.tosca.topology import load_topology
from laguna.frontends.tosca.workflows import WorkflowRun, bind_inputs

from .day2 import cleanup, deployed, lines, write

SCRIPTS = {
    # each appends its name (or $mark) to `trace`; `slow` waits so that a join is tested
    "note.sh": "echo \"${mark}\" >> trace\n",
    "slow.sh": "sleep 0.3\necho \"${mark}\" >> trace\n",
    "fail.sh": "echo \"${mark}\" >> trace\nexit 5\n",
    "start.sh": "echo started-$id >> trace\n",
    "stop.sh": "echo stopped >> trace\n",
}
NODES = """\
topology_template:
  inputs:
    site: {type: string, default: here}
  node_templates:
    app:
      type: my.nodes.Server
      interfaces:
        Standard:
          start: {implementation: start.sh, inputs: {id: {get_attribute: [SELF, tosca_name]}}}
          stop: stop.sh
        Admin:
          operations:
            note: {implementation: note.sh, inputs: {mark: note}}
            backup: {implementation: slow.sh, inputs: {mark: slow}}
            fail: {implementation: fail.sh, inputs: {mark: fail}}
    db:
      type: my.nodes.Server
      interfaces:
        Admin:
          operations:
            note: {implementation: note.sh, inputs: {mark: db}}
  groups:
    both: {type: tosca.groups.Root, members: [app, db]}
"""


def run(tmp_path: Path, workflows: str, name: str, args: dict[str, str] | None = None
        ) -> tuple[WorkflowRun, dict[str, str]]:
    runtime = deployed(tmp_path, NODES + workflows, SCRIPTS)
    (tmp_path / "trace").unlink(missing_ok=True)
    flow = WorkflowRun(runtime)
    try:
        return flow, flow.run(name, args or {})
    finally:
        cleanup(runtime)


def note(mark: str) -> str:
    return f"{{call_operation: {{operation: Admin.note, inputs: {{mark: {mark}}}}}}}"


def test_parallel_branches_join_before_the_next_step(tmp_path: Path) -> None:
    _, steps = run(tmp_path, f"""\
  workflows:
    fan:
      steps:
        first: {{target: app, activities: [{note('first')}], on_success: [fast, slow]}}
        fast: {{target: app, activities: [{note('fast')}], on_success: [join]}}
        slow:
          target: app
          activities: [{{call_operation: {{operation: Admin.backup, inputs: {{mark: slow}}}}}}]
          on_success: [join]
        join: {{target: app, activities: [{note('join')}]}}
""", "fan")
    assert lines(tmp_path / "trace") == ["first", "fast", "slow", "join"]
    assert steps == {"first": "succeeded", "fast": "succeeded", "slow": "succeeded",
                     "join": "succeeded"}


def test_a_failure_follows_on_failure_and_skips_the_success_branch(tmp_path: Path) -> None:
    _, steps = run(tmp_path, f"""\
  workflows:
    guarded:
      steps:
        risky:
          target: app
          activities: [{{call_operation: Admin.fail}}]
          on_success: [happy]
          on_failure: [repair]
        happy: {{target: app, activities: [{note('happy')}], on_success: [after]}}
        after: {{target: app, activities: [{note('after')}]}}
        repair: {{target: app, activities: [{note('repair')}, {{set_state: error}}]}}
""", "guarded")
    assert lines(tmp_path / "trace") == ["fail", "repair"]
    assert steps == {"risky": "failed", "happy": "skipped", "after": "skipped",
                     "repair": "succeeded"}


def test_a_failure_without_on_failure_fails_the_workflow(tmp_path: Path) -> None:
    with pytest.raises(ActionFailed) as failed:
        run(tmp_path, f"""\
  workflows:
    broken:
      steps:
        risky: {{target: app, activities: [{{call_operation: Admin.fail}}], on_success: [next]}}
        next: {{target: app, activities: [{note('next')}]}}
""", "broken")
    assert failed.value.kind == "operation_failed"
    assert failed.value.message == (
        f"workflow broken: step risky: node app: operation Admin.fail failed: "
        f"sh {tmp_path / 'fail.sh'} exited with 5")
    assert {k: failed.value.details[k] for k in ("workflow", "step", "node", "operation",
                                                 "exit_code")} == {
        "workflow": "broken", "step": "risky", "node": "app", "operation": "Admin.fail",
        "exit_code": 5}
    assert lines(tmp_path / "trace") == ["fail"]


def test_inputs_reach_activities_and_inline_workflows(tmp_path: Path) -> None:
    flow, steps = run(tmp_path, """\
  workflows:
    outer:
      inputs:
        label: {type: string, constraints: [{min_length: 2}]}
        times: {type: integer, default: 1}
      steps:
        one:
          target: app
          activities:
            - call_operation: {operation: Admin.note, inputs: {mark: {get_input: label}}}
            - inline: {workflow: inner, inputs: {tag: {concat: [{get_input: label}, -in]}}}
            - call_operation: {operation: Admin.note, inputs: {mark: {get_input: site}}}
    inner:
      inputs:
        tag: {type: string}
      steps:
        only:
          target: db
          activities: [{call_operation: {operation: Admin.note, inputs: {mark: {get_input: tag}}}}]
""", "outer", {"label": "42"})
    # a string input keeps the text it was given ("42", not 42)
    assert lines(tmp_path / "trace") == ["42", "42-in", "here"]
    assert steps == {"one": "succeeded"}


def test_a_group_target_runs_on_every_member_and_a_filter_leaves_some_out(
        tmp_path: Path) -> None:
    run(tmp_path, """\
  workflows:
    everyone:
      steps:
        all: {target: both, activities: [{call_operation: Admin.note}], on_success: [some]}
        some:
          target: both
          filter: [{tosca_name: [{equal: db}]}]
          activities: [{call_operation: {operation: Admin.note, inputs: {mark: filtered}}}]
""", "everyone")
    assert sorted(lines(tmp_path / "trace")[:2]) == ["db", "note"]
    assert lines(tmp_path / "trace")[2:] == ["filtered"]


def test_delegate_and_set_state(tmp_path: Path) -> None:
    flow, _ = run(tmp_path, """\
  workflows:
    cycle:
      steps:
        down: {target: app, activities: [{delegate: undeploy}], on_success: [up]}
        up: {target: app, activities: [{delegate: deploy}, {set_state: configured}]}
""", "cycle")
    assert lines(tmp_path / "trace") == ["stopped", "started-app"]
    assert flow.runtime.instances["app"][0].state == "configured"


def test_preconditions_are_checked_before_anything_runs(tmp_path: Path) -> None:
    workflows = f"""\
  workflows:
    careful:
      preconditions:
        - target: app
          condition:
            - or: [{{state: [{{equal: error}}]}}, {{assert: [{{tosca_name: [{{equal: x}}]}}]}}]
      steps:
        a: {{target: app, activities: [{note('a')}]}}
"""
    with pytest.raises(ActionRefused) as refused:
        run(tmp_path, workflows, "careful")
    assert (refused.value.kind, refused.value.message) == (
        "precondition_failed", "workflow careful: precondition on app does not hold: none "
        "of these holds: state 'started' is not equal to 'error'; tosca_name 'app' is not "
        "equal to 'x'")
    assert lines(tmp_path / "trace") == []


def test_binding_inputs() -> None:
    defs = {"n": {"type": "integer", "constraints": [{"in_range": [1, 3]}]},
            "s": {"type": "string", "default": "x"},
            "o": {"type": "boolean", "required": False}}
    assert bind_inputs("w", defs, {"n": "2"}) == {"n": 2, "s": "x"}
    cases = [({"n": "7"}, "constraint_violation", "workflow w: input n: 7 is not in range "
              "[1, 3]"),
             ({"n": "two"}, "type_mismatch", "workflow w: input n: 'two' is not an integer"),
             ({}, "missing_required", "workflow w: input n needs a value (--arg n=...)"),
             ({"n": "1", "m": "1"}, "unknown_input", "workflow w has no input 'm' (it takes: "
              "n, o, s)")]
    for given, kind, message in cases:
        with pytest.raises(ActionRefused) as refused:
            bind_inputs("w", defs, given)
        assert (refused.value.kind, refused.value.message) == (kind, message)


def test_an_unknown_workflow(tmp_path: Path) -> None:
    with pytest.raises(ActionRefused) as refused:
        run(tmp_path, "", "nope")
    assert (refused.value.kind, refused.value.message) == (
        "unknown_workflow", "topology service has no workflow 'nope' (workflows: none)")


def test_validation_of_workflows(tmp_path: Path) -> None:
    path = write(tmp_path, NODES + """\
  workflows:
    bad:
      inputs:
        n: {type: integer, default: 1}
      preconditions:
        - target: ghost
          condition: [{state: [{equal: started}]}, {nonsense: 3}]
      steps:
        a:
          target: app
          filter: [{state: [{bogus: 1}]}]
          activities:
            - delegate: redeploy
            - call_operation: {operation: Admin.note, inputs: {mark: {get_input: n}}}
            - call_operation: tosca.interfaces.node.lifecycle.Standard.stop
          on_success: [b]
        b: {target: app, activities: [{inline: loop}], on_success: [a]}
    loop:
      steps:
        c: {target: app, activities: [{inline: bad}]}
""", SCRIPTS)
    topology, problems = load_topology(path)
    assert topology is None
    assert [p.brief() for p in problems.sorted()] == [
        "service.yaml:34:3: workflows: workflows inline form a cycle: bad -> loop -> bad",
        "service.yaml:39:11: workflow bad: precondition: unknown target 'ghost'",
        "service.yaml:40:11: workflow bad: precondition: attribute nonsense: a list of "
        "constraint clauses is expected",
        "service.yaml:41:7: workflow bad: steps form a cycle: b -> a -> b",
        "service.yaml:44:11: workflow bad: step a: filter: attribute state: unknown constraint "
        "operator 'bogus' (expected one of equal, greater_than, greater_or_equal, less_than, "
        "less_or_equal, in_range, valid_values, length, min_length, max_length, pattern, "
        "schema)",
        "service.yaml:45:11: workflow bad: step a: delegate: 'redeploy' is not a declarative "
        "workflow (deploy, undeploy)",
    ]


RELATED = """\
topology_template:
  node_templates:
    db: {type: tosca.nodes.SoftwareComponent}
    app:
      type: tosca.nodes.SoftwareComponent
      requirements:
        - dependency:
            node: db
            relationship:
              type: tosca.relationships.DependsOn
              interfaces:
                Configure:
                  post_configure_source:
                    implementation: link.sh
                    inputs:
                      pair: {concat: [{get_attribute: [SOURCE, tosca_name]}, "->",
                                      {get_attribute: [TARGET, tosca_name]}]}
  workflows:
    relink:
      steps:
        link:
          target: app
          target_relationship: dependency
          activities:
            - call_operation: Configure.post_configure_source
            - call_operation:
                operation: tosca.interfaces.relationship.Configure.post_configure_source
                inputs: {pair: again}
"""


def test_a_relationship_step_runs_the_relationship_operation(tmp_path: Path) -> None:
    runtime = deployed(tmp_path, RELATED, {"link.sh": "echo \"$pair\" >> trace\n"})
    (tmp_path / "trace").unlink()
    try:
        assert WorkflowRun(runtime).run("relink", {}) == {"link": "succeeded"}
    finally:
        cleanup(runtime)
    assert lines(tmp_path / "trace") == ["app->db", "again"]


def test_a_relationship_step_is_validated(tmp_path: Path) -> None:
    path = write(tmp_path, RELATED.replace("target_relationship: dependency",
                                           "target_relationship: host").replace(
        "call_operation: Configure.post_configure_source",
        "call_operation: Standard.start"), {"link.sh": ""})
    _, problems = load_topology(path)
    assert [p.brief() for p in problems.sorted()] == [
        "service.yaml:33:11: workflow relink: step link: target_relationship: app has no "
        "requirement 'host'"]
    path = write(tmp_path, RELATED.replace("call_operation: Configure.post_configure_source",
                                           "call_operation: Configure.add_target"),
                 {"link.sh": ""})
    _, problems = load_topology(path)
    assert [p.brief() for p in problems.sorted()] == [
        "service.yaml:34:11: workflow relink: step link: call_operation: relationship "
        "dependency of app has no operation Configure.add_target"]
