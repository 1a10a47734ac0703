"""``laguna status NAME --watch``: the running deployment's events, printed as
another process commits them, until it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from unit.cli.test_deploy_process import (
    DEADLINE,
    FAKE_LAGUNA,
    SRC,
    run,
    start_deploy,
    wait_for_report,
)
from unit.deploy.fakes import DB, WEB, write_blueprint


def start_laguna(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.Popen([sys.executable, str(FAKE_LAGUNA), *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def test_watch_prints_a_running_deployment_of_another_process_until_it_ends(
        tmp_path: Path) -> None:
    workdir = tmp_path / "wd"
    gate = tmp_path / "go"
    blueprint = write_blueprint(tmp_path, "shop", components=[WEB, DB], block=str(gate))
    deploy = start_deploy(blueprint, workdir)
    wait_for_report(workdir, "deploying web", deploy)
    watch = start_laguna("status", "shop", "--watch", "--workdir", str(workdir))
    assert watch.stdout is not None and watch.stderr is not None
    lines: list[str] = []
    try:
        # the deployment is held at its first report until the gate opens: the
        # watch prints it (from the deployment's start) before anything else happens
        while not any(line.endswith(": deploying web\n") for line in lines):
            line = watch.stdout.readline()
            assert line, (lines, watch.stderr.read())
            lines.append(line)
        gate.write_text("")
        out, err = watch.communicate(timeout=DEADLINE)
    finally:
        gate.write_text("")
        watch.kill()
        deploy.communicate(timeout=DEADLINE)
    assert watch.returncode == 0, err
    printed = ("".join(lines) + out).splitlines()
    start = next(n for n, line in enumerate(printed) if " deploy started (deployment " in line)
    assert "deploying" in "\n".join(printed[:start])   # the status, as `laguna status` shows it
    # each line without its time (the deployment's own, unknown to the test)
    assert [line.split(" ", 1)[1] if line[:1].isdigit() else line
            for line in printed[start + 1:]] == [
        "info web (Web): deploying web",
        "info web (Web): web deployed",
        "info db (Db): deploying db",
        "info db (Db): db deployed",
        "deploy finished: success",
        "status: ready",
    ]


def test_watch_of_an_idle_environment_prints_the_status_alone(tmp_path: Path) -> None:
    workdir = tmp_path / "wd"
    blueprint = write_blueprint(tmp_path, "shop", components=[WEB])
    assert run("deploy", str(blueprint), "--workdir", str(workdir))[0] == 0
    plain = run("status", "shop", "--workdir", str(workdir))
    assert run("status", "shop", "--watch", "--workdir", str(workdir)) == plain
    as_json = run("status", "shop", "--watch", "--json", "--workdir", str(workdir))
    assert (as_json[0], json.loads(as_json[1])["state"]) == (0, "ready")
