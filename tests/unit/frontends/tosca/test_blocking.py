"""AMP's explicit happens-before controls (seed 003): BlockUntilRunning and NoOp
implementations, RequiresRunning's timeout and abort_if_on_fire, the get_attribute wait
modes, and that no wait outlives a failed deploy."""

from __future__ import annotations

import textwrap
import threading
import time
import typing as t
from pathlib import Path

import pytest
import yaml

from laguna.frontends.tosca import blocking
from laguna.frontends.tosca.runtime import DeployFailed, Runtime
from laguna.frontends.tosca.topology import load_topology

HEADER = "tosca_definitions_version: tosca_simple_yaml_1_3\n"


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self.lines.append(f"{object_id}: {text}")

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        pass


def write(tmp_path: Path, body: str, scripts: t.Mapping[str, str] | None = None) -> Path:
    for name, text in (scripts or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / "service.yaml"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def problems_of(tmp_path: Path, body: str, scripts: t.Mapping[str, str] | None = None
                ) -> list[str]:
    topology, problems = load_topology(write(tmp_path, body, scripts))
    assert topology is None
    return [f"{p.kind}: {p.brief()}" for p in problems.sorted()]


def runtime(tmp_path: Path, body: str, scripts: t.Mapping[str, str] | None = None,
            settings: t.Mapping[str, str] | None = None, timeout: float = 20.0) -> Runtime:
    topology, problems = load_topology(write(tmp_path, body, scripts))
    assert topology is not None, [p.brief() for p in problems.sorted()]
    return Runtime(topology, tmp_path, tmp_path / "logs", Recorder(), timeout=timeout,
                   settings=settings)


def deploy_fails(run: Runtime) -> DeployFailed:
    with pytest.raises(DeployFailed) as caught:
        run.deploy()
    return caught.value


def states(run: Runtime) -> dict[str, str]:
    return {name: run.node_state(name) for name in run.instances}


def tosca_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("tosca-"))


# -- validation ----------------------------------------------------------------------------
FORMS = """\
topology_template:
  node_templates:
    a:
      type: tosca.nodes.SoftwareComponent
    b:
      type: tosca.nodes.SoftwareComponent
      artifacts:
        waiter:
          type: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
      interfaces:
        Standard:
          create:
            implementation: brooklyn.tosca.artifacts.Implementation.NoOp
          configure:
            implementation:
              primary: {type: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning}
            inputs: {target: a, timeout: 30 s, abort_if_on_fire: true}
          start:
            implementation: waiter
            inputs: {target: a}
      requirements:
        - dependency:
            node: a
            relationship:
              type: tosca.relationships.DependsOn
              interfaces:
                Configure:
                  pre_configure_source:
                    implementation:
                      primary: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
"""


def test_every_way_of_naming_a_built_in_implementation(tmp_path: Path) -> None:
    topology, problems = load_topology(write(tmp_path, FORMS))
    assert topology is not None, [p.brief() for p in problems.sorted()]
    standard = topology.nodes["b"].interfaces["Standard"]
    assert {name: (op.builtin, op.primary) for name, op in standard.items()} == {
        "create": (blocking.NOOP, None),
        "configure": (blocking.BLOCK_UNTIL_RUNNING, None),
        "start": (blocking.BLOCK_UNTIL_RUNNING, None)}
    assert standard["configure"].inputs == {"target": "a", "timeout": "30 s",
                                            "abort_if_on_fire": True}
    configure = topology.nodes["b"].requirements[0].operations["pre_configure_source"]
    # in a relationship operation the target defaults to the relationship's target
    assert (configure.builtin, configure.inputs) == (blocking.BLOCK_UNTIL_RUNNING, {})
    # a built-in type is known to the registry and needs no file
    assert blocking.builtin_type(_registry(tmp_path), "brooklyn.tosca.artifacts."
                                 "Implementation.NoOp") == blocking.NOOP


def _registry(tmp_path: Path) -> t.Any:
    from laguna.frontends.tosca.problems import Problems
    from laguna.frontends.tosca.types import Registry
    return Registry(Problems())


def test_a_block_until_running_needs_a_known_target_and_good_values(tmp_path: Path) -> None:
    assert problems_of(tmp_path, """\
        topology_template:
          inputs:
            who: {type: string, default: nobody}
          node_templates:
            a:
              type: tosca.nodes.SoftwareComponent
              interfaces:
                Standard:
                  create:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                  configure:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: ghost}
                  start:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs:
                      target: {get_input: who}
                      timeout: 3 parsecs
                      abort_if_on_fire: maybe
        """) == [
        "invalid_template: service.yaml:11:13: node a: operation Standard.create: "
        "BlockUntilRunning needs a target input (the node to wait for) outside a "
        "relationship operation",
        "bad_function: service.yaml:14:22: node a: operation Standard.configure: "
        "BlockUntilRunning target: unknown node template 'ghost'",
        "bad_function: service.yaml:18:15: node a: operation Standard.start: "
        "BlockUntilRunning target: unknown node template 'nobody'",
        "type_mismatch: service.yaml:19:15: node a: operation Standard.start: "
        "BlockUntilRunning timeout: '3 parsecs' is not a time (such as 30 s)",
        "type_mismatch: service.yaml:20:15: node a: operation Standard.start: "
        "BlockUntilRunning abort_if_on_fire: 'maybe' is not true or false"]


def test_requires_running_properties_are_typed(tmp_path: Path) -> None:
    assert problems_of(tmp_path, """\
        topology_template:
          node_templates:
            a: {type: tosca.nodes.SoftwareComponent}
            b:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - dependency:
                    node: a
                    relationship:
                      type: brooklyn.tosca.relationships.RequiresRunning
                      properties: {timeout: soon, abort_if_on_fire: 3}
        """) == [
        "type_mismatch: service.yaml:12:28: node b: requirement dependency: property "
        "timeout: 'soon' is not a scalar-unit.time",
        "type_mismatch: service.yaml:12:43: node b: requirement dependency: property "
        "abort_if_on_fire: 3 is not a boolean"]


def test_the_wait_mode_in_metadata_is_checked(tmp_path: Path) -> None:
    assert problems_of(tmp_path, """\
        metadata:
          brooklyn.tosca.get_attribute_mode: wait_a_bit
          laguna.tosca.get_attribute_down_wait: 5 apples
        topology_template:
          node_templates:
            a: {type: tosca.nodes.SoftwareComponent}
        """) == [
        "invalid_template: service.yaml:3:3: metadata: brooklyn.tosca.get_attribute_mode: "
        "'wait_a_bit' is not one of wait_always, wait_unless_down, wait_unless_on_fire, "
        "no_wait",
        "invalid_template: service.yaml:4:3: metadata: laguna.tosca.get_attribute_down_wait"
        ": '5 apples' is not a time (such as 90 s)"]


# -- BlockUntilRunning and NoOp at run time --------------------------------------------------
def two_nodes(b_create: t.Any, a_start: str = "start_a.sh") -> str:
    """a starts with ``a_start``; b is created by ``b_create`` then configured."""
    b: dict[str, t.Any] = {"type": "tosca.nodes.SoftwareComponent", "interfaces": {
        "Standard": {"create": b_create, "configure": "configure_b.sh"}}}
    return yaml.safe_dump({"topology_template": {"node_templates": {
        "a": {"type": "tosca.nodes.SoftwareComponent",
              "interfaces": {"Standard": {"start": a_start}}},
        "b": b}}}, sort_keys=False)


BLOCK = "brooklyn.tosca.artifacts.Implementation.BlockUntilRunning"


SLOW_A = {"start_a.sh": "sleep 0.4; echo a started >> order\n",
          "configure_b.sh": "echo b configured >> order\n"}
#: for timeouts: a is far from started when the waiter gives up, however loaded the machine
SLOWER_A = {**SLOW_A, "start_a.sh": "sleep 1.5; echo a started >> order\n"}


def test_block_until_running_holds_the_node_until_its_target_is_started(
        tmp_path: Path) -> None:
    run = runtime(tmp_path, two_nodes(
        {"implementation": BLOCK, "inputs": {"target": "a"}}), SLOW_A)
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"
    assert states(run) == {"a": "started", "b": "started"}
    assert "b: Standard.create (BlockUntilRunning): waits for a to be started" in \
        t.cast(Recorder, run.reporter).lines


def test_block_until_running_times_out(tmp_path: Path) -> None:
    run = runtime(tmp_path, two_nodes(
        {"implementation": {"primary": {"type": BLOCK}},
         "inputs": {"target": "a", "timeout": "200 ms"}}), SLOWER_A)
    failure = deploy_fails(run)
    assert failure.message == ("node b: Standard.create (BlockUntilRunning): waiting for a "
                               "to be started: gave up after 0.2 s")
    assert failure.details == {"node": "b", "target": "a"}
    assert states(run)["b"] == "error"
    assert not (tmp_path / "order").read_text().count("b configured")


def failing_a(abort: bool) -> str:
    return two_nodes({"implementation": BLOCK,
                      "inputs": {"target": "a", "abort_if_on_fire": abort}}, "fail_a.sh")


FAIL_A = {"fail_a.sh": "sleep 0.2; echo a fails; exit 3\n", "configure_b.sh": "true\n"}


def test_abort_if_on_fire_fails_the_waiting_node_too(tmp_path: Path) -> None:
    run = runtime(tmp_path, failing_a(True), FAIL_A)
    failure = deploy_fails(run)
    # the deploy's error is the first failure, the target's own
    assert failure.message.startswith("node a: Standard.start failed: sh ")
    assert failure.details["exit_code"] == 3
    assert states(run) == {"a": "error", "b": "error"}


def test_without_abort_if_on_fire_the_waiting_node_only_stops(tmp_path: Path) -> None:
    run = runtime(tmp_path, failing_a(False), FAIL_A)
    failure = deploy_fails(run)
    assert failure.details["node"] == "a"
    assert states(run) == {"a": "error", "b": "creating"}


def test_in_a_relationship_the_target_is_the_relationships(tmp_path: Path) -> None:
    run = runtime(tmp_path, """\
        topology_template:
          node_templates:
            a:
              type: tosca.nodes.SoftwareComponent
              interfaces: {Standard: {start: start_a.sh}}
            b:
              type: tosca.nodes.SoftwareComponent
              interfaces: {Standard: {configure: configure_b.sh}}
              requirements:
                - dependency:
                    node: a
                    relationship:
                      type: tosca.relationships.DependsOn
                      interfaces:
                        Configure:
                          pre_configure_source:
                            implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
        """, SLOW_A)
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"


def test_a_target_given_by_a_function_is_evaluated(tmp_path: Path) -> None:
    run = runtime(tmp_path, two_nodes(
        {"implementation": BLOCK,
         "inputs": {"target": {"concat": ["", "a"]}}}), SLOW_A)
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"


def test_a_target_that_is_no_node_fails_the_operation(tmp_path: Path) -> None:
    run = runtime(tmp_path, two_nodes(
        {"implementation": BLOCK,
         "inputs": {"target": {"concat": ["no", "body"]}}}), SLOW_A)
    failure = deploy_fails(run)
    assert failure.message == ("node b: Standard.create (BlockUntilRunning): unknown node "
                               "'nobody'")
    assert failure.details == {"node": "b", "operation": "Standard.create"}


def test_a_noop_runs_nothing_but_its_get_attribute_inputs_wait(tmp_path: Path) -> None:
    run = runtime(tmp_path, """\
        topology_template:
          node_templates:
            a:
              type: tosca.nodes.SoftwareComponent
              interfaces:
                Standard:
                  start:
                    implementation: start_a.sh
                    outputs: {TOKEN: [SELF, token]}
            b:
              type: tosca.nodes.SoftwareComponent
              interfaces:
                Standard:
                  create:
                    implementation: brooklyn.tosca.artifacts.Implementation.NoOp
                    inputs: {ready: {get_attribute: [a, token]}}
                  configure: configure_b.sh
        """, {"start_a.sh": "sleep 0.4; echo a started >> order; export TOKEN=t1\n",
              "configure_b.sh": "echo b configured >> order\n"})
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"
    assert "b: Standard.create: no-op" in t.cast(Recorder, run.reporter).lines
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == [
        "a.Standard.start.log", "b.Standard.configure.log"]


# -- RequiresRunning -----------------------------------------------------------------------
def requires_running(properties: t.Mapping[str, t.Any], a_start: str = "start_a.sh",
                     template: bool = False) -> str:
    relationship: t.Any = {"type": "brooklyn.tosca.relationships.RequiresRunning",
                           "properties": dict(properties)}
    topology: dict[str, t.Any] = {"node_templates": {
        "a": {"type": "tosca.nodes.SoftwareComponent",
              "interfaces": {"Standard": {"start": a_start}}},
        "b": {"type": "tosca.nodes.SoftwareComponent",
              "interfaces": {"Standard": {"configure": "configure_b.sh"}},
              "requirements": [{"dependency": {"node": "a", "relationship": "needs_a"
                                               if template else relationship}}]}}}
    if template:
        topology["relationship_templates"] = {"needs_a": relationship}
    return yaml.safe_dump({"topology_template": topology}, sort_keys=False)


def test_requires_running_times_out_as_its_property_says(tmp_path: Path) -> None:
    started = time.monotonic()
    failure = deploy_fails(runtime(tmp_path, requires_running({"timeout": "100 ms"}),
                                   SLOWER_A))
    assert failure.message == ("node b: requirement dependency (RequiresRunning): waiting "
                               "for a to be started: gave up after 0.1 s")
    assert failure.details == {"node": "b", "target": "a"}
    assert time.monotonic() - started < 5


def test_a_relationship_templates_timeout_counts_too(tmp_path: Path) -> None:
    failure = deploy_fails(runtime(tmp_path, requires_running({"timeout": "100 ms"},
                                                              template=True), SLOWER_A))
    assert failure.message.endswith("waiting for a to be started: gave up after 0.1 s")


def test_requires_running_waits_without_a_timeout(tmp_path: Path) -> None:
    run = runtime(tmp_path, requires_running({}), SLOW_A)
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"


@pytest.mark.parametrize("abort, b_state", [(True, "error"), (False, "initial")])
def test_requires_running_abort_if_on_fire(tmp_path: Path, abort: bool, b_state: str
                                           ) -> None:
    run = runtime(tmp_path, requires_running({"abort_if_on_fire": abort}, "fail_a.sh"),
                  FAIL_A)
    failure = deploy_fails(run)
    assert failure.details["node"] == "a"
    assert states(run) == {"a": "error", "b": b_state}


# -- get_attribute modes -------------------------------------------------------------------
def reads_token(a_start: str) -> str:
    return yaml.safe_dump({"topology_template": {"node_templates": {
        "a": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "start": {"implementation": a_start, "outputs": {"TOKEN": ["SELF", "token"]}}}}},
        "b": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "create": {"implementation": "read.sh",
                       "inputs": {"t": {"get_attribute": ["a", "token"]}},
                       "outputs": {"GOT": ["SELF", "got"]}}}}}}}}, sort_keys=False)


READ = {"read.sh": "export GOT=\"[$t]\"\n", "no_token.sh": "true\n",
        "fail_a.sh": "sleep 0.2; exit 3\n", "late_token.sh": "sleep 0.3; export TOKEN=t1\n"}


def test_wait_always_waits_for_a_started_node_that_never_sets_it(tmp_path: Path) -> None:
    failure = deploy_fails(runtime(tmp_path, reads_token("no_token.sh"), READ, timeout=0.5))
    assert failure.message == "node b: get_attribute a token: gave up after 0.5 s"


def test_wait_always_is_the_default_and_gets_a_late_value(tmp_path: Path) -> None:
    run = runtime(tmp_path, reads_token("late_token.sh"), READ)
    run.deploy()
    assert run.instances["b"][0].attributes["got"] == "[t1]"


def test_no_wait_reads_null_when_unset(tmp_path: Path) -> None:
    # wait_always would wait for ever here (test_wait_always_waits_for_a_started_node...)
    run = runtime(tmp_path, reads_token("no_token.sh"), READ,
                  settings={blocking.MODE_KEY: "no_wait"})
    run.deploy()
    assert run.instances["b"][0].attributes["got"] == "[]"


def test_wait_unless_down_gives_up_on_a_started_node(tmp_path: Path) -> None:
    run = runtime(tmp_path, reads_token("no_token.sh"), READ, timeout=20, settings={
        blocking.MODE_KEY: "wait_unless_down", blocking.DOWN_WAIT_KEY: "300 ms"})
    started = time.monotonic()
    failure = deploy_fails(run)
    assert failure.message == ("node b: get_attribute a token: a is started, not starting, "
                               "and the value stayed unset for 0.3 s (wait_unless_down)")
    assert failure.details == {"node": "b"}
    assert 0.3 <= time.monotonic() - started < 5


def test_wait_unless_down_waits_while_the_node_is_starting(tmp_path: Path) -> None:
    run = runtime(tmp_path, reads_token("late_token.sh"), READ, settings={
        blocking.MODE_KEY: "wait_unless_down", blocking.DOWN_WAIT_KEY: "100 ms"})
    run.deploy()
    assert run.instances["b"][0].attributes["got"] == "[t1]"


def test_wait_unless_on_fire_fails_the_reader_at_once(tmp_path: Path) -> None:
    run = runtime(tmp_path, reads_token("fail_a.sh"), READ,
                  settings={blocking.MODE_KEY: "wait_unless_on_fire"})
    failure = deploy_fails(run)
    assert failure.details["node"] == "a"
    assert states(run) == {"a": "error", "b": "error"}


def test_the_mode_comes_from_metadata_and_set_overrides_it() -> None:
    from laguna.frontends.tosca.runtime import blocking_settings
    metadata = {blocking.MODE_KEY: "no_wait", blocking.DOWN_WAIT_KEY: "2 s", "other": 1}
    assert blocking_settings({}, {}) == blocking.WaitSettings("wait_always", 60.0)
    assert blocking_settings(metadata, {}) == blocking.WaitSettings("no_wait", 2.0)
    assert blocking_settings(metadata, {blocking.MODE_KEY: "wait_unless_down"}) == \
        blocking.WaitSettings("wait_unless_down", 2.0)


def test_a_wrong_set_is_rejected() -> None:
    from laguna.deploy.errors import Rejected
    from laguna.deploy.frontend import PrepareOptions
    from laguna.frontends.tosca.frontend import read_inputs, wait_settings
    options = PrepareOptions(settings={blocking.MODE_KEY: "sometimes", "port": "80"})
    with pytest.raises(Rejected) as caught:
        wait_settings(options)
    assert (caught.value.kind, caught.value.message) == (
        "invalid_template", "--set brooklyn.tosca.get_attribute_mode: 'sometimes' is "
        "not one of wait_always, wait_unless_down, wait_unless_on_fire, no_wait")
    # a wait setting is no input
    assert read_inputs(options) == {"port": 80}


# -- a failed deploy leaves nothing waiting ------------------------------------------------
def test_every_wait_ends_when_the_deploy_fails(tmp_path: Path) -> None:
    """a fails; b..e wait for it in every way there is, none with a limit of its own:
    the deploy ends at once and no thread is left."""
    run = runtime(tmp_path, yaml.safe_dump({"topology_template": {"node_templates": {
        "a": {"type": "tosca.nodes.Compute",
              "interfaces": {"Standard": {"configure": "fail_a.sh"}}},
        "b": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "create": {"implementation": "read.sh",
                       "inputs": {"t": {"get_attribute": ["a", "token"]}}}}}},
        "c": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "create": {"implementation": BLOCK, "inputs": {"target": "a"}}}}},
        "d": {"type": "tosca.nodes.SoftwareComponent", "requirements": [{"dependency": {
            "node": "a", "relationship": "brooklyn.tosca.relationships.RequiresRunning"}}]},
        "e": {"type": "tosca.nodes.SoftwareComponent", "requirements": [{"host": "a"}]},
        "f": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "create": {"implementation": "read.sh", "inputs": {
                "t": {"get_operation_output": ["a", "Standard", "configure", "X"]}}}}}},
    }}}), READ, timeout=60)
    started = time.monotonic()
    failure = deploy_fails(run)
    assert time.monotonic() - started < 10
    assert failure.details["node"] == "a"
    assert tosca_threads() == []
    assert states(run) == {"a": "error", "b": "creating", "c": "creating", "d": "initial",
                           "e": "initial", "f": "creating"}


def test_the_dry_run_plan_shows_built_in_implementations(tmp_path: Path) -> None:
    from laguna.frontends.tosca.frontend import plan
    topology, _ = load_topology(write(tmp_path, FORMS))
    assert topology is not None
    assert [(s["node"], s["operation"], s["implementation"], s["inputs"])
            for s in plan(topology) if s["node"] == "b"] == [
        ("b", "create", blocking.NOOP, {}),
        ("b", "configure", blocking.BLOCK_UNTIL_RUNNING,
         {"target": "a", "timeout": "30 s", "abort_if_on_fire": True}),
        ("b", "start", blocking.BLOCK_UNTIL_RUNNING, {"target": "a"}),
        ("b", "pre_configure_source", blocking.BLOCK_UNTIL_RUNNING, {})]


@pytest.mark.parametrize("configure, settings", [
    ({"implementation": BLOCK, "inputs": {"target": "a", "abort_if_on_fire": True}}, {}),
    ({"implementation": "configure_b.sh", "inputs": {"x": {"get_attribute": ["a", "x"]}}},
     {blocking.MODE_KEY: "wait_unless_on_fire"})])
def test_aborting_waits_see_a_target_that_failed_before_they_began(
        tmp_path: Path, configure: t.Any, settings: dict[str, str]) -> None:
    run = runtime(tmp_path, yaml.safe_dump({"topology_template": {"node_templates": {
        "a": {"type": "tosca.nodes.SoftwareComponent",
              "interfaces": {"Standard": {"create": "fail_now.sh"}}},
        "b": {"type": "tosca.nodes.SoftwareComponent", "interfaces": {"Standard": {
            "create": "slow_b.sh", "configure": configure}}}}}}),
        {"fail_now.sh": "exit 3\n", "slow_b.sh": "sleep 0.4\n",
         "configure_b.sh": "touch configured\n"}, settings=settings)
    failure = deploy_fails(run)
    assert failure.details["node"] == "a"
    assert states(run) == {"a": "error", "b": "error"}
    assert not (tmp_path / "configured").exists()


WAITER_TYPE = """\
node_types:
  my.Waiter:
    derived_from: tosca.nodes.SoftwareComponent
    artifacts:
      wait_for: {type: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning}
    interfaces:
      Standard:
        create:
          implementation: wait_for
          inputs: {target: a}
        configure: configure_b.sh
topology_template:
  node_templates:
    a:
      type: tosca.nodes.SoftwareComponent
      interfaces: {Standard: {start: start_a.sh}}
    b: {type: my.Waiter}
"""


def test_a_node_type_may_block_through_its_own_artifact(tmp_path: Path) -> None:
    run = runtime(tmp_path, WAITER_TYPE, SLOW_A)
    run.deploy()
    assert (tmp_path / "order").read_text() == "a started\nb configured\n"


def test_a_template_overriding_the_types_target_is_checked(tmp_path: Path) -> None:
    assert problems_of(tmp_path, WAITER_TYPE + """\
    c:
      type: my.Waiter
      interfaces: {Standard: {create: {inputs: {target: ghost}}}}
""", SLOW_A) == ["bad_function: service.yaml:21:49: node c: operation Standard.create: "
         "BlockUntilRunning target: unknown node template 'ghost'"]


def test_a_target_from_an_assigned_property_is_checked(tmp_path: Path) -> None:
    assert problems_of(tmp_path, """\
        node_types:
          my.Client:
            derived_from: tosca.nodes.SoftwareComponent
            properties:
              server: {type: string}
        topology_template:
          node_templates:
            a: {type: tosca.nodes.SoftwareComponent}
            good:
              type: my.Client
              properties: {server: a}
              interfaces:
                Standard:
                  create:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: {get_property: [SELF, server]}}
            bad:
              type: my.Client
              properties: {server: nowhere}
              interfaces:
                Standard:
                  create:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: {get_property: [good, server]}}
                  configure:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: {get_property: [SELF, server]}}
        """) == [
        "bad_function: service.yaml:28:22: node bad: operation Standard.configure: "
        "BlockUntilRunning target: unknown node template 'nowhere'"]
