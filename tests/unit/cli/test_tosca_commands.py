"""laguna validate and laguna outputs, and TOSCA environments beside others."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring
from laguna.deploy.frontend import FrontendRegistry
from laguna.frontends.tosca.frontend import ToscaFrontend

from unit.deploy.fakes import WEB, FakeFrontend, Ticker, write_blueprint

TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_3
metadata:
  template_name: small
topology_template:
  inputs:
    port: {type: integer, default: 80, constraints: [{less_than: 1024}]}
  node_templates:
    app: {type: tosca.nodes.SoftwareComponent}
  outputs:
    port: {value: {get_input: port}}
    greeting: {value: {concat: [hello, " ", world]}}
"""


@pytest.fixture()
def wiring() -> Wiring:
    return Wiring(FrontendRegistry([ToscaFrontend(), FakeFrontend()]), clock=Ticker())


def run(wiring: Wiring, *args: str) -> Result:
    return CliRunner().invoke(cli, list(args), obj=wiring)


def write(tmp_path: Path, text: str = TEMPLATE) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_validate_prints_every_problem_on_stderr(wiring: Wiring, tmp_path: Path) -> None:
    path = write(tmp_path, TEMPLATE.replace("default: 80", "default: 8080")
                 .replace("SoftwareComponent}", "SoftwareComponent, size: 1}"))
    result = run(wiring, "validate", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{path}:6:27: error[LAG-E1505]: input port: port: default 8080 is not "
        "less than 1024 [constraint_violation]",
        f"{path}:8:48: error[LAG-E1502]: node app: unknown keyname 'size' (expected "
        "one of artifacts, attributes, capabilities, copy, description, directives, "
        "interfaces, metadata, node_filter, properties, requirements, type) "
        "[invalid_template]",
        "2 problem(s)"]


def test_validate_with_inputs_checks_them(wiring: Wiring, tmp_path: Path) -> None:
    inputs = tmp_path / "in.yaml"
    inputs.write_text("port: 2000\n")
    result = run(wiring, "validate", str(write(tmp_path)), "--inputs", str(inputs), "--json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert (error["kind"], error["message"]) == (
        "constraint_violation",
        f"{tmp_path}/small.yaml:6:5: input port: the value given: 2000 is not less than 1024")


def test_validate_summarises_a_valid_topology(wiring: Wiring, tmp_path: Path) -> None:
    result = run(wiring, "validate", str(write(tmp_path)), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["status"], data["language"], data["name"]) == ("ok", "tosca", "small")
    assert data["summary"]["tosca"]["topology"] == {
        "name": "small", "inputs": ["port"],
        "nodes": {"app": {"type": "tosca.nodes.SoftwareComponent", "instances": 1,
                          "requirements": {}}},
        "outputs": ["greeting", "port"], "groups": [], "policies": [], "workflows": []}


def test_outputs_and_environments(wiring: Wiring, tmp_path: Path) -> None:
    work = str(tmp_path / "work")
    assert run(wiring, "--workdir", work, "deploy", str(write(tmp_path)), "--json"
               ).exit_code == 0
    assert run(wiring, "--workdir", work, "deploy",
               str(write_blueprint(tmp_path, "shop", components=[WEB])), "--json"
               ).exit_code == 0
    outputs = run(wiring, "--workdir", work, "outputs", "small")
    # as `status` shows them: text unquoted (--json keeps the types)
    assert (outputs.exit_code, outputs.stdout) == (0, 'port: 80\ngreeting: hello world\n')
    assert json.loads(run(wiring, "--workdir", work, "outputs", "small", "--json").stdout) == {
        "port": 80, "greeting": "hello world"}
    listed = json.loads(run(wiring, "--workdir", work, "environments",
                            "--json").stdout)["environments"]
    assert sorted((e["name"], e["language"], e["state"]) for e in listed) == [
        ("shop", "fake", "ready"), ("small", "tosca", "ready")]
    missing = run(wiring, "--workdir", work, "outputs", "nope")
    assert (missing.exit_code, missing.stderr) == (
        2, "error[LAG-E1002]: no environment named 'nope' [environment_not_found]\n")


def test_validate_summarises_a_topology_for_people(wiring: Wiring, tmp_path: Path) -> None:
    path = write(tmp_path)
    result = run(wiring, "validate", str(path))
    assert (result.exit_code, result.stdout.splitlines()) == (0, [
        f"{path}: a valid tosca blueprint (small)",
        "nodes: (1) app (tosca.nodes.SoftwareComponent)",
        "instances: 1",
        "inputs: (1) port",
        "outputs: (2) greeting, port",
        "workflows: -",
    ])


def test_set_of_an_undeclared_input_names_the_inputs_and_settings(wiring: Wiring,
                                                                  tmp_path: Path) -> None:
    result = run(wiring, "validate", str(write(tmp_path)), "--set", "nosuch=1")
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"{tmp_path}/small.yaml:5:3: error[LAG-E1502]: input nosuch: input 'nosuch' is given "
        "but "
        "not declared (its inputs: port; --set also takes the settings "
        "brooklyn.tosca.get_attribute_mode and laguna.tosca.get_attribute_down_wait) "
        "[invalid_template]",
        "1 problem(s)"])


OPERATIONS = """\
tosca_definitions_version: tosca_simple_yaml_1_3
metadata:
  template_name: ops
topology_template:
  node_templates:
    app:
      type: tosca.nodes.SoftwareComponent
      interfaces:
        Standard:
          create: {implementation: create.sh, inputs: {mark: made}}
  workflows:
    again:
      inputs:
        times: {type: integer}
        note: {type: string, default: x}
      steps:
        once: {target: app, activities: [{call_operation: Standard.create}]}
"""


@pytest.fixture()
def operations(wiring: Wiring, tmp_path: Path) -> Path:
    """A working directory holding environment ``ops``, deployed here."""
    (tmp_path / "create.sh").write_text('echo "$mark" >> made\n')
    path = write(tmp_path, OPERATIONS)
    assert run(wiring, "--workdir", str(tmp_path), "deploy", str(path), "--json"
               ).exit_code == 0
    return tmp_path


OPERATIONS_ACTIONS = [
    "ACTION          OBJECT   TYPE                          ARGUMENTS",
    "Standard.create app      tosca.nodes.SoftwareComponent [mark] ...",
    "again           workflow workflow                      times [note]",
]


def test_status_lists_node_operations_and_workflows(wiring: Wiring, operations: Path) -> None:
    result = run(wiring, "--workdir", str(operations), "status", "ops")
    assert (result.exit_code, result.stdout.splitlines()[-4:]) == (
        0, ["actions", *OPERATIONS_ACTIONS])


def history(wiring: Wiring, workdir: Path) -> list[str]:
    listed = json.loads(run(wiring, "--workdir", str(workdir), "deployments", "ops", "--json"
                            ).stdout)["deployments"]
    return [d["operation"] for d in listed]


@pytest.mark.parametrize(("target", "method", "args", "error"), [
    ("app", "Standard.nosuch", (),
     "error[LAG-E1521]: node app has no operation 'Standard.nosuch' (operations: "
     "Standard.create) [unknown_operation]"),
    ("db", "Standard.create", (),
     "error[LAG-E1520]: topology ops has no node template or instance 'db' (nodes: app; "
     "workflows: `workflow`) [unknown_node]"),
    ("workflow", "again", (),
     "error[LAG-E1504]: workflow again: input times needs a value (--arg times=...) "
     "[missing_required]"),
])
def test_an_action_the_topology_lacks_is_refused_before_anything_is_written(
        wiring: Wiring, operations: Path, target: str, method: str, args: tuple[str, ...],
        error: str) -> None:
    result = run(wiring, "--workdir", str(operations), "action", "ops", target, method, *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[0] == error
    assert history(wiring, operations) == ["deploy"]
    status = json.loads(run(wiring, "--workdir", str(operations), "status", "ops", "--json"
                            ).stdout)
    assert status["state"] == "ready"


def test_an_operation_the_topology_has_runs(wiring: Wiring, operations: Path) -> None:
    result = run(wiring, "--workdir", str(operations), "action", "ops", "app",
                 "tosca.interfaces.node.lifecycle.Standard.create", "--arg", "mark=again",
                 "--json")
    assert (result.exit_code, json.loads(result.stdout)["status"]) == (0, "ok")
    assert (operations / "made").read_text().splitlines() == ["made", "again"]
    assert history(wiring, operations) == ["deploy", "action"]
