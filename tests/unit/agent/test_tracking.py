"""What a component's plans leave on the host, recorded by the agent, and drift
found against it: real scripts, real daemons, real files."""

from __future__ import annotations

import os
import signal
import socket
import time
import typing as t
from pathlib import Path

import pytest

from laguna.agent.executor import PlanExecutor
from laguna.agent.tracking import COMPONENT_VARIABLE
from laguna.hosts.plans import script_plan
from tests.marked import kill

DAEMON = """\
echo ready > "$HOME/web.conf"
nohup sleep 300 > "$HOME/web.log" 2>&1 &
# the daemon's shell opens its log after this one goes on: the plan ends (and
# what it wrote is recorded) once the log is there, whatever the machine's load
while [ ! -e "$HOME/web.log" ]; do sleep 0.01; done
"""


@pytest.fixture
def executor(tmp_path: Path) -> t.Iterator[PlanExecutor]:
    root = tmp_path / "host"
    root.mkdir()
    made = PlanExecutor(root, {"PATH": os.environ["PATH"], "HOME": str(root)})
    yield made
    stop(made)


def stop(executor: PlanExecutor) -> None:
    """Kill every daemon a test started (each carries its component's mark)."""
    for component in ("web", "db"):
        for pid in pids_of(executor, component):
            os.kill(pid, signal.SIGKILL)


def run(executor: PlanExecutor, script: str, component: str | None = "web",
        files: tuple[str, ...] = ()) -> None:
    outcome = executor.execute(script_plan("test", script), 30, component, files)
    assert outcome.status == "done"
    assert outcome.result["Body"]["exitCode"] == 0, outcome.result


def pids_of(executor: PlanExecutor, component: str) -> list[int]:
    return [pid for pid, _, _ in executor.tracker._processes(component)]


def test_a_component_with_its_daemon_and_file_has_no_drift(executor: PlanExecutor) -> None:
    run(executor, DAEMON)
    assert executor.tracker.check() == {"web": {
        "tracked": {"processes": 1, "files": 2, "addresses": 0}, "drift": []}}


def test_a_killed_daemon_and_a_removed_file_are_drift(executor: PlanExecutor) -> None:
    run(executor, DAEMON)
    [pid] = pids_of(executor, "web")
    kill(pid)
    (executor.root / "web.conf").unlink()
    assert executor.tracker.check()["web"]["drift"] == [
        {"kind": "process", "what": f"sleep 300 (pid {pid})", "problem": "gone"},
        {"kind": "file", "what": str(executor.root / "web.conf"), "problem": "missing"},
    ]


def test_a_changed_file_is_drift_but_a_log_its_daemon_writes_is_not(
        executor: PlanExecutor) -> None:
    run(executor, DAEMON)
    (executor.root / "web.conf").write_text("edited\n")
    (executor.root / "web.log").write_text("more output\n")
    assert executor.tracker.check()["web"]["drift"] == [
        {"kind": "file", "what": str(executor.root / "web.conf"), "problem": "changed"}]


def test_a_plan_without_a_component_records_nothing(executor: PlanExecutor) -> None:
    run(executor, "echo x > \"$HOME/other\"\n", component=None)
    assert executor.tracker.check() == {}
    assert not (executor.root / "agent" / "drift.json").exists()


def test_a_later_plan_that_stops_the_daemon_and_removes_the_file_drops_them(
        executor: PlanExecutor) -> None:
    run(executor, DAEMON)
    run(executor, "pkill -f 'sleep 300' ; rm \"$HOME/web.conf\"\n")
    assert executor.tracker.check() == {"web": {
        "tracked": {"processes": 0, "files": 1, "addresses": 0}, "drift": []}}


def test_processes_of_other_components_and_hosts_are_not_taken(
        executor: PlanExecutor, tmp_path: Path) -> None:
    run(executor, DAEMON, component="web")
    run(executor, "nohup sleep 301 >/dev/null 2>&1 &\n", component="db")
    other_root = tmp_path / "other"
    other_root.mkdir()
    other = PlanExecutor(other_root, {"PATH": os.environ["PATH"], "HOME": str(other_root)})
    try:
        run(other, "nohup sleep 302 >/dev/null 2>&1 &\n", component="web")
        assert [c for _, _, c in executor.tracker._processes("web")] == ["sleep 300"]
        assert [c for _, _, c in executor.tracker._processes("db")] == ["sleep 301"]
        assert [c for _, _, c in other.tracker._processes("web")] == ["sleep 302"]
    finally:
        stop(other)


def test_a_declared_file_outside_home_is_tracked(executor: PlanExecutor,
                                                 tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.conf"
    run(executor, f"echo a > {target}\n", files=(str(target),))
    target.write_text("b\n")
    assert executor.tracker.check()["web"]["drift"] == [
        {"kind": "file", "what": str(target), "problem": "changed"}]


def test_an_address_the_daemon_listened_on_is_drift_when_no_one_listens(
        executor: PlanExecutor) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = (f"nohup python3 -c 'import socket,time; s=socket.socket(); "
              f"s.bind((\"127.0.0.1\", {port})); s.listen(); time.sleep(300)' "
              f">/dev/null 2>&1 &\n"
              f"for i in $(seq 100); do grep -q ':{port:04X} 00000000:0000 0A' "
              f"/proc/net/tcp && exit 0; sleep 0.05; done; exit 1\n")
    run(executor, server)
    assert executor.tracker.check()["web"]["tracked"]["addresses"] == 1
    [pid] = pids_of(executor, "web")
    kill(pid)
    assert [d["kind"] + " " + d["problem"] for d in executor.tracker.check()["web"]["drift"]] \
        == ["process gone", "address not listening"]
    assert executor.tracker.check()["web"]["drift"][1]["what"] == f"127.0.0.1:{port}"


def test_the_marks_reach_the_scripts_environment(executor: PlanExecutor) -> None:
    run(executor, f"echo \"${COMPONENT_VARIABLE}\" > \"$HOME/seen\"\n")
    assert (executor.root / "seen").read_text() == "web\n"


def test_an_address_bound_after_the_plan_is_learned_by_a_check(executor: PlanExecutor) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run(executor, f"nohup python3 -c 'import socket,time; time.sleep(0.3); "
                  f"s=socket.socket(); s.bind((\"127.0.0.1\", {port})); s.listen(); "
                  f"time.sleep(300)' >/dev/null 2>&1 &\n")
    assert executor.tracker.check()["web"]["tracked"]["addresses"] == 0
    deadline = time.monotonic() + 10
    while executor.tracker.check()["web"]["tracked"]["addresses"] == 0:
        assert time.monotonic() < deadline, "the daemon never listened"
        time.sleep(0.05)
    [pid] = pids_of(executor, "web")
    kill(pid)
    assert executor.tracker.check()["web"]["drift"] == [
        {"kind": "process", "what": f"python3 -c import socket,time; time.sleep(0.3); "
                                    f"s=socket.socket(); s.bind((\"127.0.0.1\", {port})); "
                                    f"s.listen(); time.sleep(300) (pid {pid})",
         "problem": "gone"},
        {"kind": "address", "what": f"127.0.0.1:{port}", "problem": "not listening"}]
