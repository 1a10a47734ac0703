"""Drift on the local cloud, with real agents: a component's script starts a
daemon and writes a file; `laguna check` finds nothing, then exactly the
killed daemon and the removed file; `laguna deploy` of the same blueprint
repairs them; `laguna check` is clean again. For MuranoPL, TOSCA and assembly
descriptors."""

from __future__ import annotations

import subprocess
import typing as t
from pathlib import Path

from tests.marked import kill, marked

from .helpers import COMMAND_TIMEOUT, PACKAGES, command, environ, laguna, wait_for_page

DRIFT_MODEL = PACKAGES.parent / "drift.yaml"
DRIFT_TOSCA = PACKAGES.parent / "drift_tosca" / "service.yaml"
APPLICATION = "5a1d2e3f4a5b4c6d8e9f0a1b2c3d4e01"
INSTANCE = "5a1d2e3f4a5b4c6d8e9f0a1b2c3d4e02"


def check(workdir: Path, name: str) -> tuple[int, dict[str, t.Any]]:
    code, report = laguna(workdir, "check", name)
    assert isinstance(report, dict), report
    return code, report


def drift_of(report: dict[str, t.Any]) -> dict[str, list[dict[str, str]]]:
    return {key: entry["drift"] for key, entry in report["components"].items()}


def test_muranopl_drift_is_found_and_repaired_by_a_redeploy(workdir: Path) -> None:
    deploy = ("deploy", str(DRIFT_MODEL), "--name", "drift", "-l", str(PACKAGES))
    code, result = laguna(workdir, *deploy)
    assert (code, result["state"]) == (0, "ready"), result["error"]

    code, report = check(workdir, "drift")
    assert code == 0
    assert (report["drifted"], report["components"][APPLICATION]["tracked"],
            drift_of(report)) == (
        [], {"processes": 1, "files": 1, "addresses": 0}, {APPLICATION: [], INSTANCE: []})
    [host] = report["hosts"]
    assert (host["host"], host["error"]) == ("drift-1", None)

    [daemon] = marked(APPLICATION, "sleep 3600", workdir)
    [conf] = (workdir / ".laguna" / "cloud" / "hosts").glob("*/drift-1/drifter.conf")
    kill(daemon)
    conf.unlink()
    code, report = check(workdir, "drift")
    assert (code, report["drifted"]) == (1, [APPLICATION])
    assert drift_of(report) == {APPLICATION: [
        {"host": "drift-1", "kind": "process", "what": f"sleep 3600 (pid {daemon})",
         "problem": "gone"},
        {"host": "drift-1", "kind": "file", "what": str(conf), "problem": "missing"},
    ], INSTANCE: []}
    assert {**api_drift(workdir, "drift"), "checked": None} == {**report, "checked": None}

    # the application skips what it did (its `deployed` attribute) unless drift
    # marks it: the redeploy runs its deploy again
    code, result = laguna(workdir, *deploy)
    assert (code, result["state"]) == (0, "ready"), result["error"]
    assert [r["text"] for r in result["reports"] if r["object"] == APPLICATION] == [
        "the daemon is started"]
    code, report = check(workdir, "drift")
    assert (code, report["drifted"], drift_of(report)) == (
        0, [], {APPLICATION: [], INSTANCE: []})
    assert len(marked(APPLICATION, "sleep 3600", workdir)) == 1
    assert conf.read_text() == "port 8080\n"

    # with nothing drifted, a redeploy leaves the application alone, as before
    code, result = laguna(workdir, *deploy)
    assert [r["text"] for r in result["reports"] if r["object"] == APPLICATION] == []
    assert len(marked(APPLICATION, "sleep 3600", workdir)) == 1


def test_tosca_drift_is_found_and_repaired_by_a_redeploy(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(DRIFT_TOSCA), "--name", "drift",
                          "--cloud", "local")
    assert (code, result["state"]) == (0, "ready"), result["error"]
    code, report = check(workdir, "drift")
    assert (code, report["components"]["app"]["tracked"], drift_of(report)) == (
        0, {"processes": 1, "files": 1, "addresses": 0}, {"vm": [], "app": []})

    [daemon] = marked("app", "sleep 3601", workdir)
    [conf] = (workdir / ".laguna" / "cloud" / "hosts").glob("*/tosca_vm/app.conf")
    kill(daemon)
    conf.unlink()
    code, report = check(workdir, "drift")
    assert (code, report["drifted"], drift_of(report)) == (1, ["app"], {"vm": [], "app": [
        {"host": "tosca_vm", "kind": "process", "what": f"sleep 3601 (pid {daemon})",
         "problem": "gone"},
        {"host": "tosca_vm", "kind": "file", "what": str(conf), "problem": "missing"},
    ]})

    code, result = laguna(workdir, "deploy", str(DRIFT_TOSCA), "--name", "drift")
    assert (code, result["state"]) == (0, "ready"), result["error"]
    code, report = check(workdir, "drift")
    assert (code, report["drifted"], drift_of(report)) == (0, [], {"vm": [], "app": []})
    assert len(marked("app", "sleep 3601", workdir)) == 1
    assert conf.read_text() == "port 8080\n"


def test_check_of_an_environment_not_deployed_is_refused(workdir: Path) -> None:
    code, answer = laguna(workdir, "check", "nowhere")
    assert (code, answer) == (2, {"error": {
        "kind": "environment_not_found", "code": "LAG-E1002",
        "message": "no environment named 'nowhere'"}})


def test_a_host_whose_agent_is_gone_is_reported(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(DRIFT_MODEL), "--name", "drift", "-l",
                          str(PACKAGES))
    assert code == 0, result["error"]
    [agent] = marked_agent("drift-1")
    kill(agent)     # the first process of the host's PID namespace: the host's all go
    code, report = check(workdir, "drift")
    [host] = report["hosts"]
    assert (code, report["drifted"], host["host"]) == (1, [], "drift-1")
    assert host["error"].startswith("The agent at http://127.") and \
        host["error"].endswith("is unreachable: ConnectError: [Errno 111] Connection refused")
    done = subprocess.run(command(workdir, "check", "drift"), capture_output=True, text=True,
                          env=environ(), timeout=COMMAND_TIMEOUT, check=False)
    assert (done.returncode, done.stdout.splitlines()[1:]) == (
        1, ["environment drift: 1 of 1 hosts could not be checked"])


def marked_agent(name: str) -> list[int]:
    """The agent process of host ``name`` (the python one, inside its namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        except OSError:
            continue
        if words[:1] != [b"unshare"] and b"laguna.agent" in words \
                and words[words.index(b"--name") + 1:][:1] == [name.encode()]:
            found.append(int(entry.name))
    return found


def api_drift(workdir: Path, name: str) -> dict[str, t.Any]:
    """``GET /v1/environments/{id}/drift`` of the API served on ``workdir``'s store."""
    import datetime

    from fastapi.testclient import TestClient

    from laguna.api.app import create_app
    from laguna.api.settings import ApiSettings
    from laguna.deploy.workdir import Workdir
    from laguna.store.identity import issue_token

    settings = ApiSettings(workdir=workdir, workers=0)
    database = Workdir(workdir).open_store()
    try:
        with database.session() as session:
            token = issue_token(session, "local", "u1", False,
                                datetime.datetime.now(datetime.timezone.utc),
                                datetime.timedelta(hours=1))
        with TestClient(create_app(settings, database=database)) as client:
            headers = {"X-Auth-Token": token}
            [environment] = [e for e in client.get("/v1/environments", headers=headers)
                             .json()["environments"] if e["name"] == name]
            answer = client.get(f"/v1/environments/{environment['id']}/drift",
                                headers=headers)
            assert answer.status_code == 200, answer.text
            return t.cast("dict[str, t.Any]", answer.json())
    finally:
        database.dispose()


def test_descriptor_drift_is_found_and_repaired_by_a_redeploy(workdir: Path) -> None:
    """An assembly's instance on a local-cloud host: its web server killed is
    drift (the process and the address it listened on); `laguna deploy` of the
    same descriptor heals that instance (its server runs again) and no other; a
    deploy with nothing drifted changes nothing; one with other inputs is still
    refused (the upgrade intent's), as CP4NA's createAssembly of an existing name."""
    here = PACKAGES.parent / "assembly"
    deploy = ("deploy", str(here / "three-tier.yaml"), "--name", "shop", "-l", str(here))
    code, data = laguna(workdir, *deploy)
    assert (code, data["state"]) == (0, "Active"), data
    url = data["components"]["shop__db"]["properties"]["url"]
    wait_for_page(url, "shop__db")  # its server listens: the check learns the address
    code, report = check(workdir, "shop")
    assert (code, report["drifted"], report["components"]["shop__db"]["tracked"]) == (
        0, [], {"processes": 1, "files": 2, "addresses": 1})

    address = url.split("//")[1].rstrip("/")
    server_command = web_server(workdir, "shop__db", url)
    [server] = marked("shop__db", server_command, workdir)
    others = {name: marked(name, web_server(workdir, name, component["properties"]["url"]),
                           workdir)
              for name, component in data["components"].items() if name != "shop__db"}
    assert sorted(others) == ["shop__app__1", "shop__front"]
    assert all(len(pids) == 1 for pids in others.values()), others
    urls = {name: data["components"][name]["properties"]["url"] for name in others}
    kill(server)
    code, report = check(workdir, "shop")
    assert (code, report["drifted"]) == (1, ["shop__db"])
    assert [(d["kind"], d["problem"]) for d in report["components"]["shop__db"]["drift"]] \
        == [("process", "gone"), ("address", "not listening")]
    assert report["components"]["shop__db"]["drift"][1]["what"] == address

    code, data = laguna(workdir, *deploy)
    assert (code, data["status"], data["state"]) == (0, "ok", "Active"), data
    # the tier's resource declares Heal: it runs (its script starts the server again)
    assert [(r["object"], r["level"], r["text"]) for r in data["reports"]] == [
        ("shop__db", "info", "shop__db: drifted (laguna check): healing"),
        ("shop__db", "info", "Heal shop__db")]
    [again] = marked("shop__db", server_command, workdir)
    assert again != server
    wait_for_page(url, "shop__db")
    # the instances not drifted were left alone: their servers are the same processes
    assert servers(workdir, urls) == others
    code, report = check(workdir, "shop")
    assert (code, report["drifted"]) == (0, [])

    # nothing drifted: a deploy of the same descriptor runs nothing
    code, data = laguna(workdir, *deploy)
    assert (code, data["status"], data["state"], data["reports"]) == (0, "ok", "Active", [])
    assert marked("shop__db", server_command, workdir) == [again]
    assert servers(workdir, urls) == others

    # other inputs are the upgrade intent's: refused, nothing run
    code, data = laguna(workdir, *deploy, "--input", "motto=other")
    assert (code, data["status"], data["error"]["kind"]) == (2, "rejected", "assembly_exists")
    assert data["error"]["message"] == (
        "assembly 'shop' exists with another descriptor, inputs or intended state (the "
        "upgrade and change-state intents change them; a deploy of the same ones repairs "
        "what `laguna check` found drifted)")
    code, data = laguna(workdir, "intent", "shop", "delete", "-l", str(here))
    assert code == 0, data


def servers(workdir: Path, urls: dict[str, str]) -> dict[str, list[int]]:
    """The pids of each instance's web server (``urls``: where each listens)."""
    return {name: marked(name, web_server(workdir, name, url), workdir) for name, url in urls.items()}


def web_server(workdir: Path, instance: str, url: str) -> str:
    """The command line of ``instance``'s web server, listening at ``url``."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    return (f"python3 -m http.server {port} --bind {host} --directory "
            f"{server_home(workdir, instance)}/site")


def server_home(workdir: Path, instance: str) -> Path:
    [home] = (workdir / ".laguna" / "cloud" / "hosts").glob(f"*/{instance}")
    return home
