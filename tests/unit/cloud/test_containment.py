"""Everything a host starts dies with it, detached daemons included; and a
deployment killed halfway is recovered by the next push or delete."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest

from laguna.cloud.local import processes
from laguna.cloud.local.driver import LocalCloud

from .helpers import AGENT, STANDIN, health, leftovers, pid_alive, stack_state, wait_for

MakeCloud = t.Callable[..., LocalCloud]
CAN_PIDNS = os.geteuid() == 0 and shutil.which("unshare") is not None
MODES = [pytest.param("pidns", marks=pytest.mark.skipif(not CAN_PIDNS, reason="needs root")),
         "subreaper"]
TEMPLATE = {"resources": {n: {"type": "OS::Nova::Server"} for n in ("a", "b", "c")}}


def find_daemon(cloud: LocalCloud) -> int:
    """The pid (in our namespace) of the host's detached ``sleep``, once it has
    run ``exec``."""
    found: list[int] = []

    def sleeping() -> bool:
        found[:] = [pid for pid in processes.marked(cloud.id)
                    if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep\0")]
        return len(found) == 1

    wait_for(sleeping, timeout=10)
    return found[0]


@pytest.mark.parametrize("containment", MODES)
def test_deleting_a_host_kills_its_double_forked_setsid_daemon(
        make_cloud: MakeCloud, containment: processes.Containment) -> None:
    cloud = make_cloud(agent_command=(*AGENT, "--daemon"), containment=containment)
    cloud.push_stack("env-1", {"resources": {"web": {"type": "OS::Nova::Server"}}})
    daemon = find_daemon(cloud)
    state = stack_state(cloud, "env-1")
    launcher = state["records"][0]["data"]["launch"]["pid"]
    assert os.getsid(daemon) != os.getsid(launcher)      # it left the agent's session
    cloud.delete_stack("env-1")
    assert not pid_alive(daemon)


@pytest.mark.parametrize("containment", MODES)
def test_daemon_is_killed_even_if_its_agent_died_first(
        make_cloud: MakeCloud, containment: processes.Containment) -> None:
    cloud = make_cloud(agent_command=(*AGENT, "--daemon"), containment=containment)
    cloud.push_stack("env-1", {"resources": {"web": {"type": "OS::Nova::Server"}}})
    daemon = find_daemon(cloud)
    state = stack_state(cloud, "env-1")
    os.kill(state["records"][0]["data"]["launch"]["pid"], signal.SIGKILL)
    cloud.delete_stack("env-1")
    assert not pid_alive(daemon)


PUSH = """
import sys
from pathlib import Path
from laguna.cloud.local.driver import LocalCloud
cloud = LocalCloud(Path(sys.argv[1]), agent_command=[sys.executable, sys.argv[2],
                   "--hang-on", "c"])
cloud.push_stack("env-1", {"resources": {n: {"type": "OS::Nova::Server"}
                                         for n in ("a", "b", "c")}})
"""


def push_and_kill_halfway(cloud: LocalCloud) -> list[int]:
    """Run a push in a subprocess, SIGKILL it once a and b are ready and while
    it waits for c; the pids of the processes it started."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", PUSH, str(cloud.directory), STANDIN],
                             env=env)

    def halfway() -> bool:
        if child.poll() is not None:
            raise AssertionError(f"the push ended by itself: {child.returncode}")
        ready = [(cloud.run_dir("env-1", n) / "ready.json").exists() for n in "abc"]
        hosts = {m.split(":")[2] for m in processes.marked(cloud.id).values()}
        return ready == [True, True, False] and hosts == {"a", "b", "c"}

    try:
        wait_for(halfway)
    finally:
        child.kill()
        child.wait()
    return sorted(processes.marked(cloud.id))


def test_push_after_a_killed_push_recovers(make_cloud: MakeCloud) -> None:
    cloud = make_cloud()
    old = push_and_kill_halfway(cloud)
    result = cloud.push_stack("env-1", TEMPLATE)
    assert [h.name for h in result.hosts] == ["a", "b", "c"]
    assert [health(str(h.agent_url))["status"] for h in result.hosts] == ["ready"] * 3
    assert [p for p in old if pid_alive(p)] == []     # none was recorded as ready
    marked, owned = leftovers(cloud)
    assert sorted(owned) == sorted(h.address for h in result.hosts)
    assert sorted({m.split(":")[2] for m in marked.values()}) == ["a", "b", "c"]


def test_delete_after_a_killed_push_leaves_nothing(make_cloud: MakeCloud) -> None:
    cloud = make_cloud()
    old = push_and_kill_halfway(cloud)
    assert old and all(pid_alive(p) for p in old)
    cloud.delete_stack("env-1")
    assert [p for p in old if pid_alive(p)] == []
    assert leftovers(cloud) == ({}, [])


def _launch_sleep(tmp_path: Path, name: str) -> tuple[processes.Launch, subprocess.Popen[bytes], int]:
    """``sleep`` as the first process of its own PID namespace; the launch, the
    launcher's Popen and the pid of the namespace's first process."""
    marker = f"test-{os.getpid()}-{name}:"
    launch, child = processes.spawn(["sleep", "30"], env=dict(os.environ), cwd=tmp_path,
                                    log=tmp_path / f"{name}.log", marker=marker,
                                    containment="pidns")
    inits: dict[str, tuple[int, int]] = {}

    def forked() -> bool:
        inits.update(processes.namespace_inits(launch, processes._children()))
        return bool(inits)

    wait_for(forked, timeout=10)
    (init, _), = inits.values()
    return launch, child, init


@pytest.mark.skipif(not CAN_PIDNS, reason="needs root")
def test_a_namespace_number_reused_after_its_host_died_spares_the_new_owner(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The flake "unshare: sigprocmask unblock failed: Invalid argument" (util-linux
    2.38's unshare says so when its child died of SIGKILL): a host's deletion kept
    killing its namespace's processes by namespace number after that number had
    gone to another cloud's new agent. The kernel gives a freed number to the next
    namespace, which cannot be forced here: the bystander's namespace is made to
    show the dead host's number once the host's first process is gone."""
    host, host_child, host_init = _launch_sleep(tmp_path, "host")
    bystander, bystander_child, bystander_init = _launch_sleep(tmp_path, "bystander")
    real = processes.pid_namespace
    host_namespace = real(host_init)
    bystander_namespace = real(bystander_init)
    host_started = processes.start_time(host_init)

    def recycled(pid: int) -> str | None:
        namespace = real(pid)
        if namespace == bystander_namespace and not processes.alive(host_init, host_started):
            return host_namespace
        return namespace

    monkeypatch.setattr(processes, "pid_namespace", recycled)
    try:
        assert processes.kill([host], host.marker) is True
        assert not processes.alive(host_init)
        assert processes.alive(bystander_init)
        assert processes.alive(bystander.pid, bystander.start_time)
    finally:
        monkeypatch.undo()
        assert processes.kill([host, bystander], bystander.marker) is True
        host_child.wait(timeout=10)
        bystander_child.wait(timeout=10)
    assert processes.marked(f"test-{os.getpid()}-") == {}
