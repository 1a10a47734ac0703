"""Assembly commands through click's CliRunner: the output object, exit codes, the
terminal view, and assemblies beside another language in one working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring
from laguna.deploy.frontend import FrontendRegistry
from laguna.frontends.assembly import AssemblyFrontend

from unit.deploy.fakes import WEB, FakeFrontend, Ticker, write_blueprint

CATALOG = Path(__file__).parents[2] / "conformance" / "descriptors" / "catalog"
ASSEMBLY = """\
name: assembly::t.cli::1.0
properties:
  # t.healer declares no ip: its label is what the assembly can read back
  ip: {type: string, read-only: true, value: '${s.label}'}
composition:
  s:
    type: resource::t.healer::1.0
    properties:
      label: {value: one}
"""


@pytest.fixture()
def wiring() -> Wiring:
    return Wiring(FrontendRegistry([AssemblyFrontend(), FakeFrontend()]), clock=Ticker())


def run(wiring: Wiring, workdir: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "-l", str(CATALOG), "--workdir", str(workdir)],
                              obj=wiring)


def _descriptor(tmp_path: Path) -> Path:
    path = tmp_path / "a.yaml"
    path.write_text(ASSEMBLY)
    return path


def test_deploy_json_is_the_assembly_object(wiring: Wiring, tmp_path: Path) -> None:
    result = run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo",
                 "--state", "Installed", "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    data = json.loads(result.stdout)
    assert list(data) == ["name", "descriptor", "language", "status", "state", "properties",
                          "outputs", "components", "reports"]
    assert {k: data[k] for k in list(data)[:8]} == {
        "name": "demo", "descriptor": "assembly::t.cli::1.0", "language": "assembly",
        "status": "ok", "state": "Installed", "properties": {"ip": "one"}, "outputs": {"ip": "one"},
        "components": {"demo__s": {"state": "Installed", "type": "resource::t.healer::1.0",
                                   "properties": {"label": "one", "fail_on": ""}}}}
    assert [r["text"] for r in data["reports"]] == ["Install demo__s"]


def test_intents_exit_codes_and_errors(wiring: Wiring, tmp_path: Path) -> None:
    run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo", "--json")
    failed = run(wiring, tmp_path, "intent", "demo", "upgrade", "--input", "x=1", "--json")
    assert failed.exit_code == 0
    unknown = run(wiring, tmp_path, "intent", "nope", "heal", "nope__s", "--json")
    assert unknown.exit_code == 2
    assert json.loads(unknown.stdout)["error"] == {
        "kind": "assembly_not_found", "code": "LAG-E1002",
        "message": "no environment named 'nope'"}
    usage = run(wiring, tmp_path, "intent", "demo", "heal", "--json")
    assert usage.exit_code == 2
    assert "intent heal needs a instance" in usage.stderr


def test_the_terminal_view_shows_the_assembly(wiring: Wiring, tmp_path: Path) -> None:
    run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo", "--json")
    result = run(wiring, tmp_path, "status", "demo")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "assembly demo (assembly::t.cli::1.0): Active",
        "INSTANCE TYPE                    STATE",
        "demo__s  resource::t.healer::1.0 Active",
        "output ip: one"]
    rejected = run(wiring, tmp_path, "intent", "demo", "scale-out", "s")
    assert (rejected.exit_code, rejected.stderr) == (
        2, "error[LAG-E1617]: 's' is not a cluster component of assembly::t.cli::1.0 "
           "[invalid_intent]\n")


def test_assemblies_live_beside_other_languages(wiring: Wiring, tmp_path: Path) -> None:
    run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo", "--json")
    other = write_blueprint(tmp_path, "shop", components=[WEB])
    assert run(wiring, tmp_path, "deploy", str(other), "--json").exit_code == 0
    listed = json.loads(run(wiring, tmp_path, "environments", "--json").stdout)["environments"]
    assert [(e["name"], e["language"], e["state"]) for e in listed] == [
        ("demo", "assembly", "ready"), ("shop", "fake", "ready")]
    shop = json.loads(run(wiring, tmp_path, "status", "shop", "--json").stdout)
    assert (shop["language"], "model" in shop) == ("fake", True)
    deleted = json.loads(run(wiring, tmp_path, "intent", "demo", "delete", "--json").stdout)
    assert (deleted["state"], deleted["components"]) == (None, {})


def test_set_of_a_property_the_descriptor_lacks_is_refused(wiring: Wiring,
                                                          tmp_path: Path) -> None:
    result = run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo",
                 "--set", "nosuch=1")
    assert (result.exit_code, result.stderr) == (
        2, "error[LAG-E1016]: --set nosuch: assembly::t.cli::1.0 has no property "
           "'nosuch'; its properties: ip [setting_unknown]\n")
    assert not (tmp_path / ".laguna" / "laguna.sqlite").exists()
    # the specification ignores an undeclared --input: so does laguna
    given = run(wiring, tmp_path, "deploy", str(_descriptor(tmp_path)), "--name", "demo",
                "--input", "nosuch=1", "--json")
    assert (given.exit_code, json.loads(given.stdout)["status"]) == (0, "ok")


def test_validate_summarises_a_descriptor_for_people(wiring: Wiring, tmp_path: Path) -> None:
    path = _descriptor(tmp_path)
    result = CliRunner().invoke(cli, ["validate", str(path), "-l", str(CATALOG)], obj=wiring)
    assert (result.exit_code, result.stdout.splitlines()) == (0, [
        f"{path}: a valid assembly blueprint (a)",
        "descriptor: assembly::t.cli::1.0",
        "components: (1) s (resource::t.healer::1.0)",
        "inputs: (1) ip",
        "intended state: Active",
    ])
