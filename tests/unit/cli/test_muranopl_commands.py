"""The MuranoPL front end through the CLI, on a package that needs no cloud:
``laguna action`` checked before it runs, ``status`` listing actions,
``deploy --dry-run``'s plan, ``--set`` and ``validate``."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring
from laguna.deploy.context import Resources
from laguna.deploy.frontend import FrontendRegistry
from laguna.frontends.muranopl import MuranoPlFrontend
from laguna.hosts.factory import host_resources

from unit.deploy.fakes import Ticker

GREETER = """\
Namespaces:
  =: com.example
  std: io.murano
Name: Greeter
Extends: std:Application
Properties:
  name:
    Contract: $.string().notNull()
    Default: greeter
  greeting:
    Contract: $.string().notNull()
    Default: hello
  said:
    Contract: $.string()
    Usage: Out
Methods:
  deploy:
    Body:
      - $.said: $.greeting
  greet:
    Scope: Public
    Arguments:
      - who:
          Contract: $.string().notNull()
      - loud:
          Contract: $.bool().notNull()
          Default: false
    Body:
      - $.said: format('{0}, {1}', $.greeting, $who)
      - Return: $.said
  helper:
    Body:
      - Return: 1
"""

GREETER_ID = "1" * 32
OTHER_ID = "2" * 32


def write_package(folder: Path, name: str = "Greeter", source: str = GREETER) -> Path:
    """Package com.example.NAME, of the one class com.example.NAME (``source``)."""
    package = folder / name.lower()
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(textwrap.dedent(f"""\
        Format: MuranoPL/1.4
        Type: Application
        FullName: com.example.{name}
        Name: {name}
        Classes:
          com.example.{name}: {name}.yaml
        """))
    (package / "Classes" / f"{name}.yaml").write_text(source)
    return package


def write_model(folder: Path, names: tuple[str, ...] = ("greeter",)) -> Path:
    """Applications of the Greeter class, the first with GREETER_ID, the second OTHER_ID."""
    apps = [{"?": {"id": object_id, "type": "com.example.Greeter"}, "name": name}
            for object_id, name in zip((GREETER_ID, OTHER_ID), names)]
    path = folder / "hello.json"
    path.write_text(json.dumps(apps))
    return path


def recording(state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
    """Recording cloud and agents for real runs too: loading a stored model asks
    the cloud for its stack's template."""
    return host_resources(state_dir, environment_id, True)


@pytest.fixture()
def wiring() -> Wiring:
    return Wiring(FrontendRegistry([MuranoPlFrontend()]), resources=recording, clock=Ticker())


def run(wiring: Wiring, workdir: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--workdir", str(workdir), *args], obj=wiring)


@pytest.fixture()
def deployed(wiring: Wiring, tmp_path: Path) -> Path:
    """A working directory holding environment ``hello``: one greeter, deployed."""
    package = write_package(tmp_path)
    result = run(wiring, tmp_path, "deploy", str(write_model(tmp_path)), "-l", str(package),
                 "--json")
    assert result.exit_code == 0, result.output
    return tmp_path


def history(wiring: Wiring, workdir: Path) -> list[str]:
    listed = json.loads(run(wiring, workdir, "deployments", "hello",
                            "--json").stdout)["deployments"]
    return [f"{d['operation']} {d['state']}" for d in listed]


ACTIONS_OF_GREETER = [
    "actions",
    "ACTION OBJECT  TYPE                ARGUMENTS",
    "greet  greeter com.example.Greeter who [loud]",
]


def test_an_unknown_action_is_refused_before_anything_runs(wiring: Wiring,
                                                            deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", GREETER_ID, "nosuch")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "error[LAG-E1014]: greeter (com.example.Greeter) has no action 'nosuch'; "
        "its actions: greet [action_not_found]", *ACTIONS_OF_GREETER]
    # nothing written: no deployment, the environment as it was
    assert history(wiring, deployed) == ["deploy success"]
    status = json.loads(run(wiring, deployed, "status", "hello", "--json").stdout)
    assert (status["state"], status["components"][GREETER_ID]["state"]) == ("ready", "deployed")


def test_a_method_that_is_no_action_is_refused(wiring: Wiring, deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", GREETER_ID, "helper", "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["status"], data["state"]) == (2, "rejected", "ready")
    assert data["error"] == {
        "kind": "action_not_found", "code": "LAG-E1014",
        "message": "greeter (com.example.Greeter) has no action 'helper'; its actions: greet",
        "actions": [{"object": GREETER_ID, "object_name": "greeter",
                     "object_type": "com.example.Greeter", "name": "greet",
                     "arguments": [
                         {"name": "who", "required": True, "type": "$.string().notNull()"},
                         {"name": "loud", "required": False, "type": "$.bool().notNull()"}],
                     "open": False}]}
    assert history(wiring, deployed) == ["deploy success"]


def test_a_missing_argument_is_refused_naming_it(wiring: Wiring, deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", GREETER_ID, "greet")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error[LAG-E1015]: action greet of greeter (com.example.Greeter) needs "
        "--arg who=... [argument_invalid]", *ACTIONS_OF_GREETER]
    assert history(wiring, deployed) == ["deploy success"]


def test_an_argument_the_action_does_not_take_is_refused(wiring: Wiring,
                                                         deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", GREETER_ID, "greet", "--arg", "who=x",
                 "--arg", "whom=y")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (
        2, "error[LAG-E1015]: action greet of greeter (com.example.Greeter) takes no "
           "argument 'whom'; its arguments: loud, who [argument_invalid]")


def test_an_unknown_object_is_refused_listing_every_action(wiring: Wiring,
                                                           deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", "nobody", "greet")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error[LAG-E1013]: environment 'hello' has no object 'nobody' with actions "
        "(name an object by its id or name) [object_not_found]",
        "actions",
        "ACTION OBJECT  TYPE                  ARGUMENTS",
        "deploy hello   io.murano.Environment -",
        "greet  greeter com.example.Greeter   who [loud]",
    ]


def test_an_object_is_named_by_its_name(wiring: Wiring, deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", "greeter", "greet", "--arg", "who=you",
                 "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["status"], data["state"]) == (0, "ok", "ready")
    assert data["outputs"] == {"greeter.said": "hello, you"}
    listed = json.loads(run(wiring, deployed, "deployments", "hello",
                            "--json").stdout)["deployments"]
    assert listed[-1]["action"] == {"object": GREETER_ID, "method": "greet",
                                    "arguments": {"who": "you"}}


def test_a_name_two_objects_share_is_refused_naming_their_ids(wiring: Wiring,
                                                              tmp_path: Path) -> None:
    package = write_package(tmp_path)
    assert run(wiring, tmp_path, "deploy", str(write_model(tmp_path, ("twin", "twin"))),
               "-l", str(package), "--json").exit_code == 0
    result = run(wiring, tmp_path, "action", "hello", "twin", "greet", "--arg", "who=x")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (
        2, f"error[LAG-E1013]: environment 'hello' has 2 objects named 'twin': name "
           f"one by its id ({GREETER_ID}, {OTHER_ID}) [object_not_found]")
    by_id = run(wiring, tmp_path, "action", "hello", OTHER_ID, "greet", "--arg", "who=x",
                "--json")
    assert by_id.exit_code == 0


def test_status_lists_the_actions(wiring: Wiring, deployed: Path) -> None:
    result = run(wiring, deployed, "status", "hello")
    assert (result.exit_code, result.stdout.splitlines()) == (0, [
        "environment hello: ready",
        "ID                               TYPE                NAME    STATE",
        f"{GREETER_ID} com.example.Greeter greeter deployed",
        "output greeter.said: hello",
        "actions",
        "ACTION OBJECT  TYPE                  ARGUMENTS",
        "deploy hello   io.murano.Environment -",
        "greet  greeter com.example.Greeter   who [loud]",
    ])


def test_status_json_lists_the_actions_by_object_id(wiring: Wiring, deployed: Path) -> None:
    data = json.loads(run(wiring, deployed, "status", "hello", "--json").stdout)
    assert [(a["object"], a["name"]) for a in data["actions"]] == [
        (data["model"]["Objects"]["?"]["id"], "deploy"), (GREETER_ID, "greet")]


def test_a_first_dry_run_plans_to_create_the_application(wiring: Wiring,
                                                         tmp_path: Path) -> None:
    package = write_package(tmp_path)
    result = run(wiring, tmp_path, "deploy", str(write_model(tmp_path)), "-l", str(package),
                 "--dry-run")
    assert (result.exit_code, result.stdout.splitlines()[-2:]) == (0, [
        "+ create  greeter  (com.example.Greeter)",
        "Plan: 1 to create, 0 to change, 0 to destroy. Nothing was applied (dry run).",
    ])
    assert "environment hello: ready" not in result.stdout


def test_a_redeploy_dry_run_plans_to_change_what_the_model_changes(
        wiring: Wiring, deployed: Path) -> None:
    model = write_model(deployed)
    unchanged = run(wiring, deployed, "deploy", str(model), "--dry-run")
    assert (unchanged.exit_code, unchanged.stdout.splitlines()[-1]) == (
        0, "Plan: 0 to create, 0 to change, 0 to destroy. Nothing was applied (dry run).")
    result = run(wiring, deployed, "deploy", str(model), "--set", "greeting=hi", "--dry-run",
                 "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["plan_summary"]) == (0, {
        "create": 0, "change": 1, "destroy": 0, "applied": False,
        "changes": [{"action": "change", "object": GREETER_ID, "name": "greeter",
                     "type": "com.example.Greeter"}]})
    text = run(wiring, deployed, "deploy", str(model), "--set", "greeting=hi", "--dry-run")
    assert text.stdout.splitlines()[-2:] == [
        "~ change  greeter  (com.example.Greeter)",
        "Plan: 0 to create, 1 to change, 0 to destroy. Nothing was applied (dry run).",
    ]
    assert history(wiring, deployed) == ["deploy success"]


def test_set_of_a_property_the_class_lacks_is_refused_naming_its_properties(
        wiring: Wiring, tmp_path: Path) -> None:
    package = write_package(tmp_path)
    result = run(wiring, tmp_path, "deploy", str(package), "--set", "nosuchprop=1")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"error[LAG-E1016]: {package}: --set nosuchprop: com.example.Greeter has "
               "no property 'nosuchprop'; its properties: greeting, name [setting_unknown]\n")
    assert not (tmp_path / ".laguna").exists()


def test_set_on_a_model_file_is_checked_against_the_applications_classes(
        wiring: Wiring, tmp_path: Path) -> None:
    package = write_package(tmp_path)
    model = write_model(tmp_path, ("greeter", "other"))
    unknown = run(wiring, tmp_path, "validate", str(model), "-l", str(package), "--set",
                  "nosuch=1")
    assert (unknown.exit_code, unknown.stderr) == (
        2, f"error[LAG-E1016]: {model}: --set nosuch: no application of the model has "
           "a property 'nosuch' (set APP.PROPERTY; the applications' properties: greeter: "
           "greeting, name; other: greeting, name) [setting_unknown]\n")
    # a property no application of the file gives, but their class has: all of them
    known = run(wiring, tmp_path, "validate", str(model), "-l", str(package), "--set",
                "greeting=hi", "--set", "other.name=third", "--json")
    apps = json.loads(known.stdout)["summary"]["Objects"]["applications"]
    assert (known.exit_code, [(a["name"], a["greeting"]) for a in apps]) == (
        0, [("greeter", "hi"), ("third", "hi")])


def test_validate_summarises_a_model_for_people(wiring: Wiring, tmp_path: Path) -> None:
    package = write_package(tmp_path)
    model = write_model(tmp_path)
    result = run(wiring, tmp_path, "validate", str(model), "-l", str(package))
    assert (result.exit_code, result.stdout.splitlines()) == (0, [
        f"{model}: a valid muranopl blueprint",
        "objects: 3",
        "applications: (1) greeter (com.example.Greeter)",
        "inputs (--set): greeter: greeting, name",
        "packages: (1) com.example.Greeter 0.0.0",
    ])


def test_a_redeploy_dry_run_sends_plans_to_servers_only_the_real_cloud_holds(
        wiring: Wiring, tmp_path: Path) -> None:
    # the web server's action re-sends a plan to its deployed instance, which a
    # dry run's recording cloud has never made
    webserver = Path(__file__).parents[3] / "examples" / "webserver"
    assert run(wiring, tmp_path, "deploy", str(webserver), "--json").exit_code == 0
    result = run(wiring, tmp_path, "deploy", str(webserver), "--set", "message=hi",
                 "--dry-run", "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["status"], data["error"]) == (0, "ok", None)
    assert [(step["kind"], step.get("host")) for step in data["plan"]] == [("agent", "web1")]
    assert [(c["action"], c["name"]) for c in data["plan_summary"]["changes"]] == [
        ("change", "web")]


def test_an_action_s_progress_names_its_object(wiring: Wiring, deployed: Path) -> None:
    result = run(wiring, deployed, "action", "hello", "greeter", "greet", "--arg", "who=you")
    assert (result.exit_code, result.stdout.splitlines()[1:3]) == (0, [
        "2026-01-01T00:00:08.000000Z info greeter (com.example.Greeter): running action greet",
        "2026-01-01T00:00:09.000000Z info: the deployment finished"])


def test_status_without_actions_when_the_stored_packages_no_longer_read(
        wiring: Wiring, deployed: Path) -> None:
    store = sqlite3.connect(deployed / ".laguna" / "laguna.sqlite")
    with store:
        store.execute("UPDATE environment_packages SET archive = x'00'")
    store.close()
    result = run(wiring, deployed, "status", "hello", "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["state"], "actions" in data) == (0, "ready", False)
