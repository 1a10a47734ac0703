"""``laguna deploy`` as a real process: killed halfway, or racing another deploy."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring

from unit.deploy.fakes import DB, WEB, registry, write_blueprint

FAKE_LAGUNA = Path(__file__).parents[1] / "deploy" / "fake_laguna.py"
SRC = Path(__file__).parents[3] / "src"
#: an upper bound, not a pause: waits end as soon as the report is stored
DEADLINE = 60.0


def start_deploy(blueprint: Path, workdir: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.Popen(
        [sys.executable, str(FAKE_LAGUNA), "deploy", str(blueprint), "--json",
         "--workdir", str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def wait_for_report(workdir: Path, text: str, process: subprocess.Popen[bytes]) -> None:
    """Return once a report with ``text`` is committed to the store."""
    store = workdir / ".laguna" / "laguna.sqlite"
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        if store.exists():
            connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
            try:
                rows = connection.execute("SELECT text FROM status_reports").fetchall()
            except sqlite3.OperationalError:
                rows = []  # the schema is still being created
            finally:
                connection.close()
            if (text,) in rows:
                return
        time.sleep(0.02)
    raise AssertionError(f"no report {text!r} within {DEADLINE}s")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), obj=Wiring(registry()))
    return result.exit_code, result.stdout, result.stderr


def killed_halfway(tmp_path: Path, components: list[dict[str, str]]) -> Path:
    """The working directory of a deploy of "shop" SIGKILLed after its first report."""
    workdir = tmp_path / "wd"
    blocked = write_blueprint(tmp_path, "shop", components=components,
                              block=str(tmp_path / "never"))
    process = start_deploy(blocked, workdir)
    wait_for_report(workdir, "deploying web", process)
    process.kill()
    process.wait()
    return workdir


def test_killed_deploy_is_recovered_by_status_then_deploy(tmp_path: Path) -> None:
    workdir = killed_halfway(tmp_path, [WEB, DB])

    code, out, _ = run("status", "shop", "--json", "--workdir", str(workdir))
    status = json.loads(out)
    # status is a read: it exits 0 when it shows the environment, whatever its state
    assert (code, status["status"], status["state"], status["error"]["kind"]) == (
        0, "failed", "deploy failure", "interrupted")
    # --check gives the state as the exit status, for scripts
    assert run("status", "shop", "--check", "--workdir", str(workdir))[0] == 1
    # the component the dead run left deploying is marked, not left at work
    assert {key: c["state"] for key, c in status["components"].items()} == {
        "web1": "interrupted"}
    assert [r["text"] for r in status["reports"]][:1] == ["deploying web"]
    assert status["error"]["message"].startswith("the deploy was interrupted: its process (pid ")

    fixed = write_blueprint(tmp_path, "shop", components=[WEB, DB])
    code, out, _ = run("deploy", str(fixed), "--json", "--workdir", str(workdir))
    assert (code, json.loads(out)["state"]) == (0, "ready")
    history = json.loads(run("deployments", "shop", "--json", "--workdir",
                             str(workdir))[1])["deployments"]
    assert [(d["state"], (d["error"] or {}).get("kind")) for d in history] == [
        ("failure", "interrupted"), ("success", None)]


def test_killed_deploy_can_be_undeployed(tmp_path: Path) -> None:
    workdir = killed_halfway(tmp_path, [WEB])
    code, out, _ = run("undeploy", "shop", "--json", "--workdir", str(workdir))
    assert (code, json.loads(out)["state"]) == (0, "undeployed")


def test_concurrent_deploy_of_one_environment_is_refused(tmp_path: Path) -> None:
    workdir = tmp_path / "wd"
    release = tmp_path / "release"
    blocked = write_blueprint(tmp_path, "shop", components=[WEB], block=str(release))
    process = start_deploy(blocked, workdir)
    try:
        wait_for_report(workdir, "deploying web", process)
        code, out, err = run("deploy", str(blocked), "--workdir", str(workdir))
        assert (code, out) == (2, "")
        assert err.startswith("error[LAG-E1017]: environment 'shop' is busy: "
                              "deployment ")
        assert err.endswith(" is running (deploying) [environment_busy]\n")
    finally:
        release.touch()
        stdout, _ = process.communicate(timeout=DEADLINE)
    assert (process.returncode, json.loads(stdout)["status"]) == (0, "ok")
