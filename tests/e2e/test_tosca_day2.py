"""TOSCA day 2 through the CLI: a real web server deployed, found dead by a
CheckRunning refresh, started again by a node action, restarted by a workflow,
and gone after undeploy."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from .helpers import alive, get, laguna

BLUEPRINT = Path(__file__).with_name("tosca_day2") / "service.yaml"


def _server(workdir: Path) -> int:
    return int((workdir / "server.pid").read_text())


def test_check_running_actions_and_a_workflow(workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(BLUEPRINT))
    assert (code, data["status"], data["components"]["web"]["state"]) == (0, "ok", "started")
    url = data["outputs"]["url"]
    assert url.startswith("http://127.0.0.1:")
    get(url)
    first = _server(workdir)

    os.kill(first, signal.SIGKILL)
    code, data = laguna(workdir, "action", "web-day2", "web", "CheckRunning.check_running")
    assert (code, data["status"], data["state"]) == (1, "failed", "deploy failure")
    assert data["components"]["web"]["state"] == "error"
    assert data["error"]["kind"] == "not_running"
    assert data["error"]["message"] == ("node web: CheckRunning.check_running reported "
                                        "IS_RUNNING=false: not running")
    code, status = laguna(workdir, "status", "web-day2")
    assert status["components"]["web"]["state"] == "error"

    code, data = laguna(workdir, "action", "web-day2", "web", "Standard.start")
    assert (code, data["status"], data["components"]["web"]["state"]) == (0, "ok", "started")
    code, data = laguna(workdir, "action", "web-day2", "web", "CheckRunning.check_running")
    assert (code, data["status"], data["state"]) == (0, "ok", "ready")
    second = _server(workdir)
    assert second != first and data["outputs"]["url"] != url
    get(data["outputs"]["url"])

    code, data = laguna(workdir, "action", "web-day2", "workflow", "restart")
    assert (code, data["status"], data["components"]["web"]["state"]) == (0, "ok", "started")
    third = _server(workdir)
    assert not alive(second) and alive(third)

    code, data = laguna(workdir, "undeploy", "web-day2")
    assert (code, data["state"]) == (0, "undeployed")
    assert not alive(third)
    code, data = laguna(workdir, "action", "web-day2", "web", "Standard.start")
    assert (code, data["status"], data["error"]) == (2, "rejected", {
        "kind": "not_deployed", "code": "LAG-E1018",
        "message": "environment 'web-day2' has nothing deployed to run an action on"})

