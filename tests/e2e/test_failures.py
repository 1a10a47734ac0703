"""Failures: each reports its exact kind and a message naming what to fix,
and leaves the store consistent (not held, history kept) and the deployment
retryable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from .helpers import (
    EXAMPLES, PACKAGES, command, environ, laguna, leftovers, nothing_left, wait_for_page,
)

PROBE = PACKAGES.parent / "probe.yaml"
PROBE_ID = "7c1d2e3f4a5b4c6d8e9f0a1b2c3d4e5f"


def deploy_probe(workdir: Path, mode: str) -> tuple[int, dict]:
    return laguna(workdir, "deploy", str(PROBE), "--name", "probe", "-l", str(PACKAGES),
                  "--set", f"mode={mode}")


def released(workdir: Path, name: str) -> dict:
    """The environment as `environments` lists it; it must not be held."""
    _, listed = laguna(workdir, "environments")
    [environment] = [e for e in listed["environments"] if e["name"] == name]
    assert environment["acquired_by"] is None
    return environment


def retry_succeeds(workdir: Path) -> None:
    code, result = deploy_probe(workdir, "ok")
    assert (code, result["status"], result["state"]) == (0, "ok", "ready"), result["error"]
    assert result["outputs"] == {"probe.result": "probe ok"}
    code, result = laguna(workdir, "undeploy", "probe")
    assert code == 0
    nothing_left(workdir)


def test_a_script_exiting_non_zero_is_script_failed_with_its_stderr(workdir: Path) -> None:
    code, result = deploy_probe(workdir, "fail")
    assert (code, result["status"], result["state"]) == (1, "failed", "deploy failure")
    error = result["error"]
    assert error["kind"] == "script_failed"
    assert error["message"] == ("a script failed on probe-1 (plan 'Probe'): Script probe "
                                "returned error code (exit code 3): probe: the disk is full")
    assert error["output"]["stderr"] == "probe: the disk is full"
    assert error["object"] == PROBE_ID
    assert error["method"] == "org.laguna.tests.Probe.deploy"
    assert "Traceback" in error["trace"] and "Probe.yaml" in error["trace"]
    assert result["components"][PROBE_ID]["state"] == "failed"
    assert released(workdir, "probe")["state"] == "deploy failure"
    retry_succeeds(workdir)


def test_an_agent_that_does_not_answer_in_time_is_agent_timeout(workdir: Path) -> None:
    started = time.monotonic()
    code, result = deploy_probe(workdir, "hang")
    assert time.monotonic() - started < 120
    assert (code, result["status"]) == (1, "failed")
    assert result["error"]["kind"] == "agent_timeout"
    assert result["error"]["message"] == ("the agent of probe-1 gave no result for plan "
                                          "'Probe' within 3 seconds")
    assert released(workdir, "probe")["state"] == "deploy failure"
    retry_succeeds(workdir)


def test_a_template_with_a_missing_resource_is_cloud_error_naming_it(workdir: Path) -> None:
    code, result = deploy_probe(workdir, "badtemplate")
    assert (code, result["status"]) == (1, "failed")
    error = result["error"]
    assert error["kind"] == "cloud_error"
    assert "resources.probe_port" in error["message"]
    assert "no_such_network" in error["message"]
    assert error["resource"] == "probe_port"
    assert released(workdir, "probe")["state"] == "deploy failure"
    retry_succeeds(workdir)


def test_an_unknown_class_is_rejected_naming_it_and_nothing_runs(workdir: Path) -> None:
    model = workdir / "unknown.json"
    model.write_text(json.dumps([{"?": {"id": "a1", "type": "org.nowhere.Missing"},
                                  "name": "x"}]))
    code, result = laguna(workdir, "deploy", str(model), "--name", "probe",
                          "-l", str(PACKAGES))
    assert (code, result["status"]) == (2, "rejected")
    assert result["error"] == {
        "kind": "class_not_found", "code": "LAG-E0302",
        "message": "class org.nowhere.Missing is not found in the core library, the -l "
                   "packages or the environment's packages"}
    assert not (workdir / ".laguna" / "cloud" / "stacks").is_dir() or not any(
        (workdir / ".laguna" / "cloud" / "stacks").glob("*.json"))
    retry_succeeds(workdir)


def test_a_broken_contract_and_an_unreadable_file_are_rejected(workdir: Path) -> None:
    code, result = deploy_probe(workdir, "sideways")
    assert (code, result["status"], result["error"]["kind"]) == (2, "rejected",
                                                                 "contract_violation")
    assert result["error"]["message"] == (
        "contract violation: property org.laguna.tests.Probe.mode: Value 'sideways' doesn't "
        "match predicate (contract: $.string().notNull().check($ in list(ok, fail, hang, "
        "badtemplate) or $.startsWith('hang:')))")
    broken = workdir / "broken.yaml"
    broken.write_text("- ?: {id: a, type: x}\n  name: [unclosed\n")
    code, result = laguna(workdir, "deploy", str(broken))
    assert (code, result["error"]["kind"]) == (2, "model_invalid")
    assert str(broken) in result["error"]["message"]


def test_a_deploy_killed_halfway_leaves_the_environment_recoverable(workdir: Path) -> None:
    """SIGKILL once the first server runs; the next command finishes the
    deployment as interrupted, a redeploy completes it, undeploy cleans up."""
    model = EXAMPLES / "dashboard" / "shop.yaml"
    process = subprocess.Popen(command(workdir, "deploy", str(model), "-l", str(EXAMPLES),
                                       "--json"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=environ(), start_new_session=True)
    hosts = workdir / ".laguna" / "cloud" / "run"
    deadline = time.monotonic() + 120
    try:
        while not list(hosts.glob("*/store-1/ready.json")):
            assert process.poll() is None, "the deploy ended before it could be killed"
            assert time.monotonic() < deadline, "the first server never became ready"
            time.sleep(0.05)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    code, status = laguna(workdir, "status", "shop")
    assert status["state"] == "deploy failure"
    assert status["error"]["kind"] == "interrupted"
    released(workdir, "shop")

    code, result = laguna(workdir, "deploy", str(model))
    assert (code, result["status"]) == (0, "ok"), result["error"]
    wait_for_page(result["outputs"]["dashboard.url"], "hello from the store")
    code, result = laguna(workdir, "undeploy", "shop")
    assert (code, result["state"]) == (0, "undeployed")
    nothing_left(workdir)


def test_a_parallel_deploy_killed_mid_script_leaves_nothing_after_undeploy(
        workdir: Path) -> None:
    """Two applications deploying at once, each on its own host: SIGKILL while
    one's script runs and the other's web server is up; undeploy then finds and
    stops every host, script and daemon the killed run started."""
    model = workdir.parent / "parallel.json"
    model.write_text(json.dumps([
        {"?": {"id": "app-a", "type": "org.laguna.tests.Probe"}, "name": "probe-a",
         "mode": "hang", "instance": {
             "?": {"id": "vm-a", "type": "io.murano.resources.LinuxMuranoInstance"},
             "name": "host-a", "image": "ubuntu", "flavor": "m1.small"}},
        {"?": {"id": "app-w", "type": "org.laguna.examples.WebServer"}, "name": "web",
         "message": "parallel", "instance": {
             "?": {"id": "vm-w", "type": "io.murano.resources.LinuxMuranoInstance"},
             "name": "host-w", "image": "ubuntu", "flavor": "m1.small"}}]))
    process = subprocess.Popen(
        command(workdir, "deploy", str(model), "--name", "pair", "-l", str(PACKAGES / "probe"),
                "-l", str(EXAMPLES / "webserver"), "--json"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environ(),
        start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while True:
            marked = leftovers(workdir)[0] if (workdir / ".laguna" / "cloud").is_dir() else {}
            commands = " ".join(_command_line(pid) for pid in marked)
            # the probe's script hangs (sleep 60) and the web server's daemon runs
            if "sleep 60" in commands and "http.server" in commands:
                break
            assert process.poll() is None, "the deploy ended before it could be killed"
            assert time.monotonic() < deadline, f"never both under way: {marked}"
            time.sleep(0.1)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    code, result = laguna(workdir, "undeploy", "pair")
    assert (code, result["state"]) == (0, "undeployed"), result
    nothing_left(workdir)


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
