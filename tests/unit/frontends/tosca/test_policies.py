"""Policies that act, on a topology deployed here with real scripts: the
auto-scaler's rule, its stabilization delay on a clock the test moves, `resize`
refusals, AMP's policy types as the validator sees them."""

from __future__ import annotations

import datetime
import typing as t
from pathlib import Path

import pytest

from laguna.frontends.tosca import policies
from laguna.frontends.tosca.runtime import Runtime
from laguna.frontends.tosca.topology import load_topology
from laguna.frontends.tosca.watching import Memory, Pass, run_checks, unhealed

from .day2 import cleanup, deployed, reporter

TOPOLOGY = """\
topology_template:
  node_templates:
    web:
      type: my.nodes.Server
      attributes:
        load: {get_attribute: [SELF, brooklyn.tosca.interfaces.node.lifecycle.CheckRunning.check_running.LOAD]}
      interfaces:
        Standard:
          start: start.sh
        CheckRunning:
          inputs: {period: 2 s}
          operations:
            check_running: check.sh
  policies:
    - scaler:
        type: org.apache.brooklyn.policy.autoscaling.AutoScalerPolicy
        targets: [web]
        properties:
          metric: load
          metricLowerBound: 1
          metricUpperBound: 4
          minPoolSize: 1
          maxPoolSize: 3
          resizeUpStabilizationDelay: 10 s
"""
SCRIPTS = {
    "start.sh": "true\n",
    "check.sh": "export LOAD=\"$(cat load)\"\n",
}
T0 = datetime.datetime(2026, 11, 27, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.fixture
def runtime(tmp_path: Path) -> t.Iterator[Runtime]:
    (tmp_path / "load").write_text("0")
    runtime = deployed(tmp_path, TOPOLOGY, SCRIPTS)
    yield runtime
    cleanup(runtime)


def one_pass(runtime: Runtime, memory: Memory, now: datetime.datetime) -> Pass:
    this = Pass(now)
    run_checks(runtime, memory, this)
    policies.run_policies(runtime, memory, this)
    unhealed(runtime, this)
    return this


@pytest.mark.parametrize(("size", "metric", "wanted"), [
    (1, 10.0, 3),     # ceil(10 x 1 / 4): 3
    (2, 5.0, 3),      # ceil(5 x 2 / 4): 3
    (2, 4.5, 3),      # ceil(9 / 4) = 3
    (3, 100.0, 5),    # capped by maxPoolSize
    (3, 0.5, 1),      # floor(1.5 / 1) = 1
    (3, 0.9, 2),      # floor(2.7 / 1) = 2
    (1, 0.0, 1),      # never below minPoolSize
    (2, 2.0, 2),      # between the bounds: unchanged
    (2, 4.01, 3),     # above: at least one more
])
def test_the_auto_scalers_rule(size: int, metric: float, wanted: int) -> None:
    assert policies.desired_size(size, metric, 1.0, 4.0, 1, 5) == wanted


def test_a_resize_up_waits_for_its_stabilization_delay(runtime: Runtime,
                                                      tmp_path: Path) -> None:
    memory = Memory()
    assert one_pass(runtime, memory, T0).changed is False
    (tmp_path / "load").write_text("9")
    later = T0 + datetime.timedelta(seconds=2)
    this = one_pass(runtime, memory, later)
    # wanted since `later`: due again when the delay ends (and at the next check)
    assert (this.changed, len(runtime.instances["web"])) == (False, 1)
    assert sorted(this.dues) == [later + datetime.timedelta(seconds=2),
                                 later + datetime.timedelta(seconds=10)]
    this = one_pass(runtime, memory, later + datetime.timedelta(seconds=9))
    assert (this.changed, len(runtime.instances["web"])) == (False, 1)
    this = one_pass(runtime, memory, later + datetime.timedelta(seconds=10))
    assert this.changed is True
    assert [(i.id, i.state) for i in runtime.instances["web"]] == [
        ("web", "started"), ("web.1", "started"), ("web.2", "started")]
    ids = {i.attributes["tosca_id"] for i in runtime.instances["web"]}
    assert len(ids) == 3


def test_a_resize_out_of_bounds_is_refused(runtime: Runtime) -> None:
    with pytest.raises(policies.PolicyRefused,
                       match=r"^policy scaler: size 4 is out of bounds \(between 1 and 3\)$"):
        policies.resize_size(runtime, "scaler", "resize", {"size": "4"})
    with pytest.raises(policies.PolicyRefused,
                       match=r"^policy scaler: --arg size=many: not a whole number$"):
        policies.resize_size(runtime, "scaler", "resize", {"size": "many"})
    with pytest.raises(policies.PolicyRefused,
                       match=r"^policy scaler has no action 'grow' \(actions: resize\)$"):
        policies.resize_size(runtime, "scaler", "grow", {"size": "2"})
    assert policies.scaling_policy(runtime, "policy", {}) == "scaler"
    assert policies.scaling_policy(runtime, "web", {}) is None


def test_amp_policy_types_take_their_config_keys_only(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("""\
tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    web: {type: tosca.nodes.SoftwareComponent}
  policies:
    - restarter:
        type: org.apache.brooklyn.policy.ha.ServiceRestarter
        targets: [web]
        properties: {failOnRecurringFailuresInThisDuration: 1 h, restartLimit: 3}
""")
    topology, problems = load_topology(tmp_path / "t.yaml", {})
    assert [(p.kind, p.message, p.entity, p.span.line, p.span.col) for p in problems] == [
        ("invalid_template", "unknown property 'restartLimit'", "policy restarter", 9, 66)]


def test_triggers_that_could_not_act_are_refused(tmp_path: Path) -> None:
    (tmp_path / "s.sh").write_text("true\n")
    (tmp_path / "t.yaml").write_text("""\
tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    web:
      type: tosca.nodes.SoftwareComponent
      interfaces: {Standard: {start: s.sh}}
  policies:
    - p:
        type: tosca.policies.Root
        targets: [web]
        triggers:
          t1:
            event: failed
            action: [{call_operation: Admin.fix}, {inline: nope}, {scale: many}]
          t2:
            event: load_high
            condition: {constraint: [{load: 3}], every: 1 s}
            action: [{notify: x}]
""")
    topology, problems = load_topology(tmp_path / "t.yaml", {})
    assert [(p.kind, p.message, p.span.line) for p in problems] == [
        ("invalid_template", "trigger t1: call_operation: web has no operation Admin.fix", 14),
        ("invalid_template", "trigger t1: inline: unknown workflow 'nope'", 14),
        ("invalid_template", "trigger t1: scale: 'many' is not a size (N) or a change "
                             "(+N, -N)", 14),
        ("invalid_template", "trigger t2: condition: unknown keyname 'every' (expected one "
                             "of condition, constraint, evaluations, method, period)", 17),
        ("invalid_template", "trigger t2: an activity is one of call_operation, inline, "
                             "delegate, scale", 18)]
    assert {p.entity for p in problems} == {"policy p"}


WORKFLOW_TOPOLOGY = """\
topology_template:
  node_templates:
    web:
      type: my.nodes.Server
      interfaces:
        Standard: {start: start.sh}
        Admin: {operations: {note: note.sh}}
        CheckRunning: {inputs: {period: 1 s}, operations: {check_running: check.sh}}
  workflows:
    repair:
      steps:
        mark: {target: web, activities: [{call_operation: Admin.note}]}
  policies:
    - on_fire:
        type: tosca.policies.Root
        targets: [web]
        triggers:
          repair_it:
            event: failed
            action: [{inline: repair}]
"""


def test_a_trigger_runs_a_workflow_when_its_target_fails(tmp_path: Path) -> None:
    (tmp_path / "up").touch()
    runtime = deployed(tmp_path, WORKFLOW_TOPOLOGY, {
        "start.sh": "true\n", "note.sh": "echo noted >> notes\ntouch up\n",
        "check.sh": "[ -f up ]\n"})
    try:
        memory = Memory()
        assert one_pass(runtime, memory, T0).changed is False
        (tmp_path / "up").unlink()
        this = one_pass(runtime, memory, T0 + datetime.timedelta(seconds=1))
        assert this.changed is True
        assert (tmp_path / "notes").read_text() == "noted\n"
        [instance] = runtime.instances["web"]
        # the trigger took care of it: on fire, not failed; running at the next check
        assert (instance.state, instance.attributes["service.state"]) == ("error", "on-fire")
        this = one_pass(runtime, memory, T0 + datetime.timedelta(seconds=2))
        assert (instance.state, instance.attributes["service.state"]) == (
            "started", "running")
        assert [text for _, text, _ in reporter(runtime).reports if ": sh " not in text] == [
            "node web: CheckRunning.check_running exited with 1: not running (on fire)",
            "policy on_fire: trigger repair_it fired on web (event failed)",
            "workflow repair: step mark on web",
            "policy on_fire: trigger repair_it: inline repair done",
            "node web: CheckRunning.check_running passed: running again"]
    finally:
        cleanup(runtime)
