"""The same commands on every cloud: the examples of the three languages
deployed with `--cloud local`, `--cloud containers` (podman) and `--cloud ssh
--inventory FILE` (Debian's sshd in network namespaces), each page fetched from
this machine, and the failures a user meets there (a script that fails, a host
that dies mid-deploy, `laguna deploy` killed mid-script), each ending with
nothing left running and nothing left on the machines.

The container and ssh clouds need podman and runc, and sshd and iproute2:
skipped outside CI where missing, failed in CI (.ci/run installs them)."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import typing as t
from pathlib import Path

import pytest

from laguna.cloud.containers import open_cloud as open_containers
from laguna.cloud.containers.podman import CLOUD_LABEL

from unit.cloud import sshd

from .helpers import (EXAMPLES, PACKAGES, command, environ, laguna, leftovers, nothing_left,
                      unreachable, wait_for_page)

PROBE = PACKAGES.parent / "probe.yaml"
WEB_MODEL = EXAMPLES / "webserver" / "web.yaml"
WEB_ID = "5a1b0c8d2e3f4a5b9c6d7e8f90a1b2c3"
PODMAN = ["podman", "--cgroup-manager=cgroupfs", "--runtime=runc", "--events-backend=file"]


def _require(ok: bool, reason: str) -> None:
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI installs it: .ci/run)")
    pytest.skip(reason)


@dataclasses.dataclass
class Target:
    """One cloud as the tests use it: its command-line options, how to make a
    host die, and what "nothing left" means there."""

    kind: str
    workdir: Path
    machines: sshd.Machines | None = None
    inventory: Path | None = None
    before: list[str] = dataclasses.field(default_factory=list)

    @property
    def args(self) -> list[str]:
        return (["--cloud", self.kind]
                + (["--inventory", str(self.inventory)] if self.inventory else []))

    def containers(self) -> dict[str, list[str]]:
        cloud_id = open_containers(self.workdir / ".laguna" / "cloud").id  # type: ignore[attr-defined]
        label = f"label={CLOUD_LABEL}={cloud_id}"

        def names(*what: str) -> list[str]:
            return subprocess.run([*PODMAN, *what, "--filter", label, "--format", "{{.Name}}"
                                   if what[0] != "ps" else "{{.Names}}"],
                                  capture_output=True, text=True, check=True,
                                  timeout=60).stdout.split()
        return {"containers": names("ps", "-a"), "volumes": names("volume", "ls"),
                "networks": names("network", "ls")}

    def kill_hosts(self) -> None:
        """Every host of the working directory dies."""
        if self.kind == "local":
            for pid in leftovers(self.workdir)[0]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass        # one of the script's, gone with its agent
        elif self.kind == "containers":
            for name in self.containers()["containers"]:
                subprocess.run([*PODMAN, "kill", name], capture_output=True, timeout=60)
        else:
            assert self.machines is not None
            # the machine goes away: its sshd and every process laguna started there
            for server in self.machines.servers:
                server.stop()
            for pid in self.machines.user_processes():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def revive(self) -> None:
        if self.kind == "ssh":
            assert self.machines is not None
            for server in self.machines.servers:
                if server.process is None:
                    server.start()

    def nothing_left(self) -> None:
        if self.kind == "local":
            nothing_left(self.workdir)
        elif self.kind == "containers":
            assert self.containers() == {"containers": [], "volumes": [], "networks": []}
        else:
            assert self.machines is not None
            assert self.machines.listing() == self.before
            assert self.machines.agent_processes() == []


@pytest.fixture(params=["local", "containers", "ssh"])
def target(request: pytest.FixtureRequest, workdir: Path,
           tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Target]:
    kind = request.param
    if kind == "local":
        yield Target(kind, workdir)
        return
    if kind == "containers":
        _require(shutil.which("podman") is not None and shutil.which("runc") is not None,
                 "the container cloud needs podman and runc")
        made = Target(kind, workdir)
        try:
            yield made
        finally:
            _undeploy_all(workdir)
            made.nothing_left()
        return
    sshd.require_sshd()
    folder = tmp_path_factory.mktemp("machines")
    for machines in sshd.machines(folder):
        made = Target(kind, workdir, machines, machines.inventory(folder / "inventory.yaml"),
                      machines.listing())
        try:
            yield made
        finally:
            made.revive()
            _undeploy_all(workdir)
            made.nothing_left()


def _undeploy_all(workdir: Path) -> None:
    if not (workdir / ".laguna" / "laguna.sqlite").is_file():
        return
    _, listed = laguna(workdir, "environments")
    for environment in listed.get("environments", []):
        if environment["state"] not in ("undeployed", "pending"):
            laguna(workdir, "undeploy", environment["name"])


# -- the examples ------------------------------------------------------------------------


def test_the_web_server_deploys_answers_an_action_and_undeploys(target: Target) -> None:
    code, result = laguna(target.workdir, "deploy", str(WEB_MODEL), "-l",
                          str(EXAMPLES / "webserver"), *target.args)
    assert (code, result["status"], result["state"]) == (0, "ok", "ready"), result["error"]
    url = result["outputs"]["web.url"]
    assert "Hello from laguna" in wait_for_page(url, "Hello from laguna")
    if target.kind == "containers":
        # the cloud's own steps are the run's progress, like every other step
        said = [r["text"] for r in result["reports"]]
        assert any(text.startswith("starting container of host web-1") for text in said), said
        assert ("image 'ubuntu' of host web-1 is not in the image map: it runs on debian-12 "
                "(localhost/laguna/debian:12); `laguna image alias ubuntu REFERENCE` chooses "
                "another") in said
    code, result = laguna(target.workdir, "action", "web", WEB_ID, "setMessage",
                          "--arg", "message=Set on the " + target.kind + " cloud")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    wait_for_page(url, "Set on the " + target.kind + " cloud")
    # the environment kept its cloud: undeploy needs no --cloud
    code, result = laguna(target.workdir, "undeploy", "web")
    assert (code, result["state"]) == (0, "undeployed"), result
    assert unreachable(url)
    target.nothing_left()


def test_two_linked_applications_deploy_and_undeploy(target: Target) -> None:
    # the dashboard (examples/dashboard) reads the key-value store (examples/keyvalue)
    # at the address the store's host got on this cloud
    code, result = laguna(target.workdir, "deploy", str(EXAMPLES / "dashboard" / "shop.yaml"),
                          "-l", str(EXAMPLES), *target.args)
    assert (code, result["status"]) == (0, "ok"), result["error"]
    page = result["outputs"]["dashboard.url"]
    assert result["outputs"]["store.endpoint"] in wait_for_page(page, "hello from the store")
    code, result = laguna(target.workdir, "undeploy", "shop")
    assert (code, result["state"]) == (0, "undeployed"), result
    assert unreachable(page)
    target.nothing_left()


def test_a_tosca_template_deploys_and_undeploys(target: Target) -> None:
    code, result = laguna(target.workdir, "deploy", str(EXAMPLES / "tosca" / "service.yaml"),
                          "--name", "hello-tosca", *target.args)
    assert (code, result["status"]) == (0, "ok"), result["error"]
    url = result["outputs"]["url"]
    assert wait_for_page(url, "Hello from TOSCA")
    if target.kind == "containers":
        # the Compute's os capability named the image: debian-12, no fallback
        said = [r["text"] for r in result["reports"]]
        assert any(text.startswith("starting container of host tosca_vm") for text in said), said
        assert not any("not in the image map" in text for text in said), said
    code, result = laguna(target.workdir, "undeploy", "hello-tosca")
    assert (code, result["state"]) == (0, "undeployed"), result
    assert unreachable(url)
    target.nothing_left()


def test_an_assembly_deploys_and_undeploys(target: Target) -> None:
    code, result = laguna(target.workdir, "deploy", str(EXAMPLES / "assembly" / "site.yaml"),
                          "--name", "site", "-l", str(EXAMPLES / "assembly"), *target.args)
    assert (code, result["status"]) == (0, "ok"), result.get("error")
    entry = result["outputs"]["entry"]
    page = wait_for_page(entry, "front page; pages at http://")
    code, result = laguna(target.workdir, "undeploy", "site")
    assert (code, result["status"]) == (0, "ok"), result
    assert unreachable(entry), page
    target.nothing_left()


# -- failures ----------------------------------------------------------------------------


def deploy_probe(target: Target, mode: str) -> tuple[int, t.Any]:
    return laguna(target.workdir, "deploy", str(PROBE), "--name", "probe", "-l",
                  str(PACKAGES), "--set", f"mode={mode}", *target.args)


def test_a_failing_script_is_its_own_error_and_a_retry_succeeds(target: Target) -> None:
    code, result = deploy_probe(target, "fail")
    assert (code, result["status"]) == (1, "failed")
    assert result["error"]["kind"] == "script_failed"
    assert result["error"]["message"].endswith(
        "Script probe returned error code (exit code 3): probe: the disk is full")
    code, result = deploy_probe(target, "ok")
    assert (code, result["outputs"]) == (0, {"probe.result": "probe ok"}), result["error"]
    code, result = laguna(target.workdir, "undeploy", "probe")
    assert code == 0, result
    target.nothing_left()


def _start_until_sleeping(target: Target, seconds: str) -> subprocess.Popen[bytes]:
    """`laguna deploy` of the probe whose script sleeps ``seconds``, once that
    script runs (found by its own command line: containers' and namespaces'
    processes are in this machine's process table)."""
    process = subprocess.Popen(
        command(target.workdir, "deploy", str(PROBE), "--name", "probe", "-l", str(PACKAGES),
                "--set", f"mode=hang:{seconds}", *target.args, "--json"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environ(),
        start_new_session=True)
    deadline = time.monotonic() + 120
    while not _sleeping(seconds):
        assert process.poll() is None, "the deploy ended before its script ran"
        assert time.monotonic() < deadline, "the probe's script never ran"
        time.sleep(0.1)
    return process


def _sleeping(seconds: str) -> bool:
    wanted = f"sleep {seconds}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == wanted:
                    return True
            except OSError:
                continue
    return False


def test_a_host_dying_mid_deploy_fails_cleanly_and_undeploy_leaves_nothing(
        target: Target) -> None:
    seconds = f"50.{secrets.randbelow(10**6):06d}"
    process = _start_until_sleeping(target, seconds)
    target.kill_hosts()
    output, _ = process.communicate(timeout=200)
    assert process.returncode == 1, output
    result = json.loads(output)
    assert result["status"] == "failed"
    # the engine's error naming the host, not a Python one
    assert result["error"]["kind"] == "muranopl_error", result["error"]
    assert result["error"]["message"].startswith("the agent of probe-1: "), result["error"]
    target.revive()
    code, result = laguna(target.workdir, "undeploy", "probe")
    assert (code, result["state"]) == (0, "undeployed"), result
    assert not _sleeping(seconds)
    target.nothing_left()


def test_laguna_killed_mid_script_then_undeploy_leaves_nothing(target: Target) -> None:
    seconds = f"51.{secrets.randbelow(10**6):06d}"
    process = _start_until_sleeping(target, seconds)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    code, result = laguna(target.workdir, "undeploy", "probe")
    assert (code, result["state"]) == (0, "undeployed"), result
    assert not _sleeping(seconds)
    target.nothing_left()
