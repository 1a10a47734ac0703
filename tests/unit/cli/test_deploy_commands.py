"""The deployment commands through click's CliRunner, with the fake front end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring
from laguna.deploy.frontend import FrontendRegistry

from unit.deploy.fakes import DB, WEB, WEB_DEPLOYED, FakeFrontend, Ticker, write_blueprint


@pytest.fixture()
def wiring() -> Wiring:
    return Wiring(FrontendRegistry([FakeFrontend()]), clock=Ticker())


def run(wiring: Wiring, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), obj=wiring, env=env)


def test_deploy_json_prints_one_object(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "--workdir", str(tmp_path), "deploy", str(path), "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout) == WEB_DEPLOYED


def test_deploy_shows_plain_progress_off_a_terminal(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "deploy", str(path), "--workdir", str(tmp_path))
    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    assert lines[0].startswith("deploy of shop started (deployment ")
    assert lines[1:] == [
        "web (Web): deploying",
        "2026-01-01T00:00:03.000000Z info web (Web): deploying web",
        "web (Web): deployed",
        "2026-01-01T00:00:04.000000Z info web (Web): web deployed",
        "environment shop: ready",
        "ID   TYPE NAME STATE",
        "web1 Web  web  deployed",
        "output count: 1",
    ]


def test_workdir_after_the_command_name(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    assert run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path / "a")
               ).exit_code == 0
    listed = run(wiring, "environments", "--json", "--workdir", str(tmp_path / "a"))
    assert [e["name"] for e in json.loads(listed.stdout)["environments"]] == ["shop"]
    assert (tmp_path / "a" / ".laguna" / "laguna.sqlite").is_file()


def test_laguna_workdir_variable_and_the_option_wins(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    env = {"LAGUNA_WORKDIR": str(tmp_path / "from-env")}
    assert run(wiring, "deploy", str(path), "--json", env=env).exit_code == 0
    assert (tmp_path / "from-env" / ".laguna").is_dir()
    other = run(wiring, "--workdir", str(tmp_path / "other"), "environments", "--json",
                env=env)
    assert json.loads(other.stdout) == {"environments": []}
    assert not (tmp_path / "other" / ".laguna").exists()


def test_default_workdir_is_the_current_directory(wiring: Wiring, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LAGUNA_WORKDIR", raising=False)
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    assert run(wiring, "deploy", path.name, "--json").exit_code == 0
    assert (tmp_path / ".laguna" / "laguna.sqlite").is_file()


def test_two_workdirs_do_not_interfere(wiring: Wiring, tmp_path: Path) -> None:
    first = write_blueprint(tmp_path, "shop", components=[WEB])
    second = write_blueprint(tmp_path, "lab", name="shop", components=[DB])
    run(wiring, "deploy", str(first), "--workdir", str(tmp_path / "a"), "--json")
    run(wiring, "deploy", str(second), "--workdir", str(tmp_path / "b"), "--json")
    a = json.loads(run(wiring, "status", "shop", "--json", "--workdir", str(tmp_path / "a")
                       ).stdout)
    b = json.loads(run(wiring, "status", "shop", "--json", "--workdir", str(tmp_path / "b")
                       ).stdout)
    assert (list(a["components"]), list(b["components"])) == (["web1"], ["db1"])


def test_status_json_is_the_deploy_json(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    deployed = run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path)).stdout
    status = run(wiring, "status", "shop", "--json", "--workdir", str(tmp_path)).stdout
    assert status == deployed


def test_status_of_an_unknown_environment_is_one_line(wiring: Wiring, tmp_path: Path) -> None:
    result = run(wiring, "status", "nope", "--workdir", str(tmp_path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "error[LAG-E1002]: no environment named 'nope' [environment_not_found]\n")


def test_rejected_deploy_is_one_line_and_exit_2(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", reject={"kind": "contract_violation",
                                                     "message": "port: 70000 is not a port"})
    result = run(wiring, "deploy", str(path), "--workdir", str(tmp_path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "error[LAG-E0301]: port: 70000 is not a port [contract_violation]\n")


def test_unknown_language_is_said_clearly(tmp_path: Path) -> None:
    path = tmp_path / "model.yaml"
    path.write_text("Objects: {}\n")
    result = run(Wiring(FrontendRegistry()), "deploy", str(path), "--workdir", str(tmp_path))
    assert (result.exit_code, result.stderr) == (
        2, f"error[LAG-E1010]: no blueprint language recognises {path} [model_invalid]\n")


def test_failed_deploy_shows_object_method_trace_and_output(wiring: Wiring,
                                                            tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB], fail={
        "at": "web1", "kind": "script_failed", "message": "deploy.sh exited with 3"})
    result = run(wiring, "deploy", str(path), "--workdir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-8:] == [
        "environment shop: deploy failure (failed)",
        "ID   TYPE NAME STATE",
        "web1 Web  web  failed",
        "error[LAG-E1011]: deploy.sh exited with 3 [script_failed]",
        "object: web1",
        "method: deploy",
        "trace: Web::deploy @ fake:1",
        "output: exit 1",
    ]


def test_deployments_json_lists_history_with_reports(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path))
    run(wiring, "undeploy", "shop", "--json", "--workdir", str(tmp_path))
    shown = json.loads(run(wiring, "deployments", "shop", "--json", "--workdir",
                           str(tmp_path)).stdout)
    assert (list(shown), shown["name"]) == (["name", "deployments"], "shop")
    history = shown["deployments"]
    assert [len(d.pop("id")) for d in history] == [32, 32]
    assert history == [
        {"operation": "deploy", "state": "success", "started": "2026-01-01T00:00:01.000000Z",
         "finished": "2026-01-01T00:00:05.000000Z", "action": None, "error": None,
         "reports": [
             {"level": "info", "text": "deploying web", "time": "2026-01-01T00:00:03.000000Z",
              "object": "web1"},
             {"level": "info", "text": "web deployed", "time": "2026-01-01T00:00:04.000000Z",
              "object": "web1"}]},
        {"operation": "undeploy", "state": "success",
         "started": "2026-01-01T00:00:07.000000Z", "finished": "2026-01-01T00:00:10.000000Z",
         "action": None, "error": None,
         "reports": [{"level": "info", "text": "destroying web",
                      "time": "2026-01-01T00:00:09.000000Z", "object": "web1"}]},
    ]


def test_environments_table_and_json(wiring: Wiring, tmp_path: Path) -> None:
    assert run(wiring, "environments", "--workdir", str(tmp_path)).stdout == "no environments\n"
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path))
    assert run(wiring, "environments", "--workdir", str(tmp_path)).stdout.splitlines() == [
        "NAME LANGUAGE STATE VERSION UPDATED",
        "shop fake     ready 1       2026-01-01T00:00:05.000000Z"]
    listed = json.loads(run(wiring, "environments", "--json", "--workdir",
                            str(tmp_path)).stdout)["environments"]
    assert len(listed[0].pop("id")) == 32
    assert listed == [{"name": "shop", "project": "local", "language": "fake",
                       "state": "ready", "version": 1,
                       "created": "2026-01-01T00:00:01.000000Z",
                       "updated": "2026-01-01T00:00:05.000000Z", "acquired_by": None}]


def test_action_with_arguments(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path))
    result = run(wiring, "action", "shop", "web1", "scale", "--arg", "count=3", "--json",
                 "--workdir", str(tmp_path))
    data = json.loads(result.stdout)
    assert (result.exit_code, data["status"], data["outputs"]) == (
        0, "ok", {"method": "scale", "count": "3"})
    assert data["model"] == {"components": [WEB]}


def test_bad_key_value_is_a_usage_error(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "deploy", str(path), "--set", "novalue", "--workdir", str(tmp_path))
    assert result.exit_code == 2
    assert "Invalid value for --set: expected key=value, got 'novalue'" in result.stderr


def test_dry_run_prints_the_plan_and_keeps_nothing(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "deploy", str(path), "--dry-run", "--json", "--workdir",
                 str(tmp_path))
    data = json.loads(result.stdout)
    assert (result.exit_code, data["status"], data["plan"]) == (0, "ok", [
        {"kind": "stack", "template": {"resources": {"web1": "Web"}}},
        {"kind": "agent", "host": "web", "plan": {"Body": "deploy"}}])
    assert not (tmp_path / ".laguna").exists()
    assert data["plan_summary"] == {
        "create": 1, "change": 0, "destroy": 0, "applied": False,
        "changes": [{"action": "create", "object": "web1", "name": "web", "type": "Web"}]}
    text = run(wiring, "deploy", str(path), "--dry-run", "--workdir", str(tmp_path)).stdout
    # what was sent, then what would be done; no state the dry run did not reach
    assert text.splitlines()[-12:] == [
        "--- 1: stack template",
        "{",
        '  "resources": {',
        '    "web1": "Web"',
        "  }",
        "}",
        "--- 2: agent plan for web",
        "{",
        '  "Body": "deploy"',
        "}",
        "+ create  web  (Web)",
        "Plan: 1 to create, 0 to change, 0 to destroy. Nothing was applied (dry run).",
    ]
    assert "environment shop" not in text and "deployed" not in text.split("---")[-1]
    assert not (tmp_path / ".laguna").exists()


def test_a_redeploy_dry_run_plans_against_the_deployed_components(
        wiring: Wiring, tmp_path: Path) -> None:
    run(wiring, "deploy", str(write_blueprint(tmp_path, "shop", components=[WEB])), "--json",
        "--workdir", str(tmp_path))
    path = write_blueprint(tmp_path, "shop", components=[DB])
    result = run(wiring, "deploy", str(path), "--dry-run", "--workdir", str(tmp_path))
    assert (result.exit_code, result.stdout.splitlines()[-3:]) == (0, [
        "+ create  db   (Db)",
        "- destroy web  (Web)",
        "Plan: 1 to create, 0 to change, 1 to destroy. Nothing was applied (dry run).",
    ])
    status = json.loads(run(wiring, "status", "shop", "--json", "--workdir", str(tmp_path)
                            ).stdout)
    assert list(status["components"]) == ["web1"]


def test_workdir_after_the_command_wins_over_the_one_before(wiring: Wiring,
                                                            tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "--workdir", str(tmp_path / "before"), "deploy", str(path), "--json",
                 "--workdir", str(tmp_path / "after"))
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["after"]


def test_deploy_keeps_the_address_range_asked_for(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "--workdir", str(tmp_path), "deploy", str(path), "--json",
                 "--address-range", "127.44.0.0/24")
    assert (result.exit_code, result.stderr) == (0, "")
    kept = json.loads((tmp_path / ".laguna" / "cloud" / "settings.json").read_text())
    assert kept == {"isolation": "loopback", "address_range": "127.44.0.0/24"}


def test_deploy_refuses_a_loopback_range_off_loopback(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = run(wiring, "--workdir", str(tmp_path), "deploy", str(path), "--json",
                 "--address-range", "10.1.0.0/16")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": {
        "kind": "cloud_error", "code": "LAG-E1200",
        "message": "address range '10.1.0.0/16' of isolation 'loopback' must lie in "
                   "127.0.0.0/8"}}
    assert not (tmp_path / ".laguna" / "laguna.sqlite").exists()


def test_a_first_deploy_refused_for_a_missing_class_writes_nothing(tmp_path: Path) -> None:
    # the real MuranoPL front end looks for the class once the environment is
    # claimed (its stored packages could hold it); its refusal still writes nothing
    model = tmp_path / "m.yaml"
    model.write_text("- ?: {id: x, type: no.such.App}\n  name: x\n")
    workdir = ["--workdir", str(tmp_path / "wd")]
    deployed = CliRunner().invoke(cli, [*workdir, "deploy", str(model), "--json"])
    assert deployed.exit_code == 2
    assert json.loads(deployed.stdout)["error"]["kind"] == "class_not_found"
    assert CliRunner().invoke(cli, [*workdir, "environments"]).stdout == "no environments\n"
    status = CliRunner().invoke(cli, [*workdir, "status", "m"])
    assert (status.exit_code, status.stderr) == (
        2, "error[LAG-E1002]: no environment named 'm' [environment_not_found]\n")


def test_a_refused_redeploy_leaves_the_environment_as_it_was(tmp_path: Path) -> None:
    workdir = ["--workdir", str(tmp_path / "wd")]
    package = Path(__file__).parents[2] / "fixtures" / "packages" / "quiet"
    good = tmp_path / "m.yaml"
    good.write_text("- ?: {id: x, type: com.example.Quiet}\n")
    first = CliRunner().invoke(cli, [*workdir, "deploy", str(good), "-l", str(package),
                                     "--json"])
    assert first.exit_code == 0, first.stdout
    before = json.loads(CliRunner().invoke(cli, [*workdir, "status", "m", "--json"]).stdout)
    history = CliRunner().invoke(cli, [*workdir, "deployments", "m", "--json"]).stdout
    bad = tmp_path / "bad" / "m.yaml"
    bad.parent.mkdir()
    bad.write_text("- ?: {id: x, type: no.such.App}\n")
    refused = CliRunner().invoke(cli, [*workdir, "deploy", str(bad), "--json"])
    assert refused.exit_code == 2
    assert json.loads(refused.stdout)["state"] == "ready"
    after = json.loads(CliRunner().invoke(cli, [*workdir, "status", "m", "--json"]).stdout)
    assert after == before
    assert CliRunner().invoke(cli, [*workdir, "deployments", "m", "--json"]).stdout == history


def test_undeploy_lists_what_it_destroyed_by_name_and_type(wiring: Wiring,
                                                           tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB, DB])
    run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path))
    result = run(wiring, "undeploy", "shop", "--workdir", str(tmp_path))
    assert (result.exit_code, result.stdout.splitlines()[1:]) == (0, [
        "2026-01-01T00:00:11.000000Z info web (Web): destroying web",
        "2026-01-01T00:00:12.000000Z info db (Db): destroying db",
        "environment shop: undeployed",
        "destroyed web  (Web)",
        "destroyed db   (Db)",
        "2 destroyed",
    ])
    data = json.loads(run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path)
                          ).stdout)
    assert "destroyed" not in data
    again = json.loads(run(wiring, "undeploy", "shop", "--json", "--workdir", str(tmp_path)
                           ).stdout)
    assert again["destroyed"] == [
        {"action": "destroy", "object": "web1", "name": "web", "type": "Web"},
        {"action": "destroy", "object": "db1", "name": "db", "type": "Db"}]


def test_status_exits_0_when_it_shows_the_environment(wiring: Wiring, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB], fail={
        "at": "web1", "kind": "script_failed", "message": "boom"})
    assert run(wiring, "deploy", str(path), "--json", "--workdir", str(tmp_path)).exit_code == 1
    shown = run(wiring, "status", "shop", "--workdir", str(tmp_path))
    assert shown.exit_code == 0
    assert json.loads(run(wiring, "status", "shop", "--json", "--workdir", str(tmp_path)
                          ).stdout)["status"] == "failed"
    assert run(wiring, "status", "shop", "--check", "--workdir", str(tmp_path)).exit_code == 1
    missing = run(wiring, "status", "nope", "--workdir", str(tmp_path))
    assert (missing.exit_code, missing.stderr) == (
        2, "error[LAG-E1002]: no environment named 'nope' [environment_not_found]\n")
