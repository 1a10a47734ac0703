"""AMP's per-node locations on mixed clouds, with real processes: one TOSCA
template with a machine on the local cloud and one in a podman container,
deployed without ``--cloud``; each reached through its own cloud (its scripts
run by that host's agent, an action run again there), drift checked on both,
repaired by a redeploy, and undeployed with nothing left (no container, no
process, no host folder, no stack recorded). The same with an ssh machine
(Debian's sshd in a network namespace) given by ``--inventory``.

The container cloud needs podman and runc, the ssh cloud sshd and iproute2:
skipped outside CI where missing, failed in CI (.ci/run installs them)."""

from __future__ import annotations

import json
import time
import typing as t
from pathlib import Path

import pytest

from laguna.cloud.containers import open_cloud as open_containers
from laguna.cloud.containers.podman import CLOUD_LABEL, STACK_LABEL

from tests.unit.cloud.test_containers import needs_podman, podman
from unit.cloud import sshd

from .helpers import laguna, nothing_left

SCENARIO = Path(__file__).with_name("tosca_amp")
CREATE = "tosca.interfaces.node.lifecycle.Standard.create."


def _podman(*args: str) -> list[str]:
    return podman(*args).split()


def _containers(workdir: Path, stack: str | None = None) -> list[str]:
    cloud_id = open_containers(workdir / ".laguna" / "cloud").id  # type: ignore[attr-defined]
    labels = ["--filter", f"label={CLOUD_LABEL}={cloud_id}"] + \
        (["--filter", f"label={STACK_LABEL}={stack}"] if stack else [])
    return _podman("ps", "-a", *labels, "--format", "{{.Names}}")


def _choice(workdir: Path) -> dict[str, t.Any]:
    [kept] = (workdir / ".laguna" / "cloud" / "environments").glob("*.json")
    found: dict[str, t.Any] = json.loads(kept.read_text())
    return found


def _drift(report: dict[str, t.Any]) -> dict[str, list[dict[str, str]]]:
    return {key: entry["drift"] for key, entry in report["components"].items()}


@needs_podman
def test_one_environments_servers_live_on_the_local_cloud_and_in_containers(
        workdir: Path) -> None:
    template = str(SCENARIO / "mixed.yaml")
    try:
        code, data = laguna(workdir, "deploy", template)
        assert (code, data["status"]) == (0, "ok"), data["error"]
        tosca = data["model"]["tosca"]
        base = tosca["stack"]
        assert (tosca["cloud"], tosca["stacks"]) == (
            "here", {"local": base, "containers": f"{base}-containers"})
        # each node's scripts ran on its machine's cloud, through that host's agent
        local_marker = data["components"]["on_local"]["attributes"][CREATE + "HOST_MARKER"]
        boxed_marker = data["components"]["in_container"]["attributes"][CREATE + "HOST_MARKER"]
        assert f":{base}:tosca_vm:" in local_marker
        assert f":{base}-containers:" in boxed_marker
        assert data["components"]["on_local"]["attributes"][CREATE + "HOME_DIR"] == str(
            workdir / ".laguna" / "cloud" / "hosts" / base / "tosca_vm")
        [container] = _containers(workdir, f"{base}-containers")
        # the deployment layer's record: each stack with the cloud holding it
        assert (_choice(workdir)["kind"], _choice(workdir)["stacks"],
                _choice(workdir)["elsewhere"]) == (
            "local", [base], {f"{base}-containers": "containers"})

        # drift: both hosts asked, each through its cloud
        code, report = laguna(workdir, "check", "mixed-clouds")
        assert code == 0, report
        assert sorted((h["host"], h["stack"], h["error"]) for h in report["hosts"]) == [
            ("tosca_box", f"{base}-containers", None), ("tosca_vm", base, None)]
        assert (report["components"]["in_container"]["tracked"],
                report["components"]["on_local"]["tracked"]) == (
            {"processes": 1, "files": 1, "addresses": 0},
            {"processes": 1, "files": 1, "addresses": 0})
        # the container's file goes: found there, and put back by a redeploy
        _podman("exec", container, "sh", "-c", "rm \"$HOME/kept.conf\"")
        code, report = laguna(workdir, "check", "mixed-clouds")
        assert (code, report["drifted"]) == (1, ["in_container"])
        [difference] = _drift(report)["in_container"]
        assert (difference["host"], difference["kind"], difference["problem"]) == (
            "tosca_box", "file", "missing")
        assert difference["what"].endswith("/kept.conf")
        assert _drift(report)["on_local"] == []
        # watching: each node's check runs on its host, through its cloud
        time.sleep(1.1)     # the checks' period: both are due
        code, watched = laguna(workdir, "watch", "mixed-clouds", "--once")
        assert code == 0, watched
        assert [r["text"] for r in watched["reports"] if ": sh " not in r["text"]] == [
            "node in_container: CheckRunning.check_running exited with 1: not running "
            "(on fire): no kept.conf",
            "node in_container failed: no policy restarts or replaces it"]
        assert {key: entry["state"] for key, entry in watched["components"].items()} == {
            "vm": "started", "box": "started", "on_local": "started", "in_container": "error"}
        code, data = laguna(workdir, "deploy", template)
        assert (code, data["status"]) == (0, "ok"), data["error"]
        assert _containers(workdir, f"{base}-containers") == [container]
        code, report = laguna(workdir, "check", "mixed-clouds")
        assert (code, report["drifted"]) == (0, [])
        # an action reaches the container's host through the container cloud
        code, acted = laguna(workdir, "action", "mixed-clouds", "in_container",
                             "Standard.create")
        assert (code, acted["status"]) == (0, "ok"), acted["error"]
        assert acted["components"]["in_container"]["attributes"][CREATE + "HOST_MARKER"] \
            == boxed_marker
    finally:
        code, data = laguna(workdir, "undeploy", "mixed-clouds")
    assert (code, data["state"]) == (0, "undeployed"), data
    assert _containers(workdir) == []
    nothing_left(workdir)
    assert (_choice(workdir)["stacks"], _choice(workdir)["elsewhere"]) == ([], {})


def test_a_node_on_an_ssh_machine_beside_one_on_the_local_cloud(
        workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    sshd.require_sshd()
    folder = tmp_path_factory.mktemp("machines")
    for machines in sshd.machines(folder):
        before = machines.listing()
        inventory = machines.inventory(folder / "inventory.yaml", count=1)
        template = str(SCENARIO / "mixed_ssh.yaml")
        try:
            code, data = laguna(workdir, "deploy", template, "--inventory", str(inventory))
            assert (code, data["status"]) == (0, "ok"), data["error"]
            tosca = data["model"]["tosca"]
            base = tosca["stack"]
            assert tosca["stacks"] == {"local": base, "ssh": f"{base}-ssh"}
            marker = data["components"]["on_ssh"]["attributes"][CREATE + "HOST_MARKER"]
            assert f":{base}-ssh:tosca_box:" in marker
            # a folder of the machine's user, not of this working directory
            assert data["components"]["on_ssh"]["attributes"][CREATE + "HOME_DIR"].startswith(
                f"{machines.home}/.laguna-")
            assert (_choice(workdir)["inventory"], _choice(workdir)["elsewhere"]) == (
                str(inventory), {f"{base}-ssh": "ssh"})
            code, report = laguna(workdir, "check", "mixed-ssh")
            assert code == 0, report
            assert sorted((h["host"], h["stack"], h["error"]) for h in report["hosts"]) == [
                ("tosca_box", f"{base}-ssh", None), ("tosca_vm", base, None)]
            assert report["components"]["on_ssh"]["tracked"] == {
                "processes": 1, "files": 1, "addresses": 0}
            # a redeploy needs no --inventory: the environment kept it
            code, data = laguna(workdir, "deploy", template)
            assert (code, data["status"]) == (0, "ok"), data["error"]
        finally:
            code, data = laguna(workdir, "undeploy", "mixed-ssh")
        assert (code, data["state"]) == (0, "undeployed"), data
        nothing_left(workdir)
        assert machines.listing() == before
        assert machines.agent_processes() == []
        assert machines.user_processes() == {}
        assert _choice(workdir)["elsewhere"] == {}
