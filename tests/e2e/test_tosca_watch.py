"""Watching a deployed TOSCA topology with real processes: `laguna watch` in the
foreground (checks every second), a killed service seen failed, restarted by
AMP's ServiceRestarter, replaced by its ServiceReplacer, a group resized by its
AutoScalerPolicy on a load a script publishes, triggers acting, `policy resize`,
and the worker's `watch` job doing a pass. Every wait is bounded."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
import typing as t
from pathlib import Path

import pytest

from .helpers import command, environ, laguna

HERE = Path(__file__).with_name("tosca_watch")
#: the checks' period in the templates (seconds)
PERIOD = 1.0
#: the longest wait for a pass to show what a test caused
DEADLINE = 30.0


def _copy(workdir: Path) -> None:
    """The templates and scripts in the working directory (the operations run
    there, and the scripts write their pid files there)."""
    for source in HERE.rglob("*"):
        target = workdir / source.relative_to(HERE)
        if source.is_dir():
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(source.read_bytes())


def _deploy(workdir: Path, name: str) -> dict[str, t.Any]:
    _copy(workdir)
    (workdir / "load").write_text("0\n")
    code, data = laguna(workdir, "deploy", str(workdir / f"{name}.yaml"))
    assert (code, data["status"], data["state"]) == (0, "ok", "ready"), data
    return t.cast(dict[str, t.Any], data)


def _pid(workdir: Path, tosca_id: str) -> int:
    return int((workdir / f"svc.{tosca_id}.pid").read_text())


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def _instances(data: t.Mapping[str, t.Any]) -> list[dict[str, t.Any]]:
    return list(data["components"]["svc"]["instances"])


def _texts(data: t.Mapping[str, t.Any]) -> list[str]:
    """The reports, without the lines that only say which script ran."""
    return [r["text"] for r in data["reports"] if ": sh " not in r["text"]]


class Watching:
    """`laguna watch NAME --json` running in the foreground; each pass that changed
    something is one JSON line."""

    def __init__(self, workdir: Path, name: str) -> None:
        self.process = subprocess.Popen(command(workdir, "watch", name, "--json"),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=environ())
        self.passes: list[dict[str, t.Any]] = []
        # its first pass is over once it says so
        assert self.process.stderr is not None
        ready, _, _ = select.select([self.process.stderr], [], [], DEADLINE)
        assert ready, f"laguna watch did not start within {DEADLINE:g} s"
        said = self.process.stderr.readline()
        assert said == f"watching {name} (Ctrl-C stops)\n", said

    def until(self, text: str, deadline: float = DEADLINE) -> dict[str, t.Any]:
        """The first pass (from now) with a report containing ``text``."""
        end = time.monotonic() + deadline
        assert self.process.stdout is not None
        while time.monotonic() < end:
            ready, _, _ = select.select([self.process.stdout], [], [],
                                        max(0.0, end - time.monotonic()))
            if not ready:
                break
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"laguna watch ended: {self.stop()}")
            found = json.loads(line)
            self.passes.append(found)
            if any(text in report["text"] for report in found["reports"]):
                return t.cast(dict[str, t.Any], found)
        raise AssertionError(f"no pass reported {text!r} within {deadline:g} s: "
                             f"{[_texts(p) for p in self.passes]}")

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a user stops it: the exit status and what it said on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        return self.process.returncode, self.process.stderr.read()

    def __enter__(self) -> Watching:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def test_a_killed_service_is_seen_failed_within_two_periods(workdir: Path) -> None:
    data = _deploy(workdir, "watched")
    [instance] = _instances(data)
    pid = _pid(workdir, instance["attributes"]["tosca_id"])
    with Watching(workdir, "watched") as watching:
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        found = watching.until("not running")
        seen = time.monotonic() - killed
        code, said = watching.stop()
    assert seen <= 2 * PERIOD, f"seen after {seen:.2f} s"
    assert (code, said) == (0, "watch of watched stopped\n")
    assert (found["state"], found["components"]) == ("ready", {"svc": "error"})
    assert _texts(found) == [
        f"node svc: CheckRunning.check_running exited with 1: not running (on fire): svc "
        f"{instance['attributes']['tosca_id']}: process {pid} is gone",
        "node svc failed: no policy restarts or replaces it"]
    # the store as the watch left it: the environment ready, its node failed with the
    # check's time and output, the pass a deployment of its own, none left running
    code, status = laguna(workdir, "status", "watched")
    assert (status["state"], status["components"]["svc"]["state"]) == ("ready", "error")
    attributes = _instances(status)[0]["attributes"]
    assert (attributes["service.state"], attributes["service.isUp"],
            attributes["check_running.exit_code"], attributes["check_running.output"]) == (
        "failed", False, 1, f"svc {instance['attributes']['tosca_id']}: process {pid} "
                            "is gone")
    assert attributes["check_running.time"] <= status["reports"][-1]["time"].replace(
        "Z", "+00:00")
    assert _texts(status) == _texts(found)
    condition = {"time": attributes["check_running.time"],
                 "text": f"svc failed: CheckRunning.check_running exited with 1: svc "
                         f"{instance['attributes']['tosca_id']}: process {pid} is gone"}
    assert status["components"]["svc"]["condition"] == condition
    shown = subprocess.run(command(workdir, "status", "watched"), capture_output=True,
                           text=True, env=environ(), timeout=60, check=False)
    assert f"svc: {condition['time']} {condition['text']}" in shown.stdout.splitlines()
    code, history = laguna(workdir, "deployments", "watched")
    assert [(d["operation"], d["state"]) for d in history["deployments"]] == [
        ("deploy", "success"), ("watch", "success")]


def test_a_service_restarter_restarts_then_gives_up(workdir: Path) -> None:
    data = _deploy(workdir, "restarted")
    tosca_id = _instances(data)[0]["attributes"]["tosca_id"]
    first = _pid(workdir, tosca_id)
    with Watching(workdir, "restarted") as watching:
        os.kill(first, signal.SIGKILL)
        found = watching.until("restarted and running")
        assert _texts(found) == [
            f"node svc: CheckRunning.check_running exited with 1: not running (on fire): "
            f"svc {tosca_id}: process {first} is gone",
            "policy restarter (ServiceRestarter): restarting svc",
            "node svc: CheckRunning.check_running passed: running again",
            "policy restarter (ServiceRestarter): svc restarted and running"]
        assert found["components"] == {"svc": "started"}
        second = _pid(workdir, tosca_id)
        assert second != first and _alive(second)
        # a second failure within failOnRecurringFailuresInThisDuration (1 h): failed
        os.kill(second, signal.SIGKILL)
        found = watching.until("failed:")
    assert found["components"] == {"svc": "error"}
    assert _texts(found)[-1].startswith(
        "node svc failed: policy restarter (ServiceRestarter): it failed again ")
    assert _texts(found)[-1].endswith(
        " s after the last failure, within failOnRecurringFailuresInThisDuration (3600 s)")
    code, status = laguna(workdir, "status", "restarted")
    assert _instances(status)[0]["attributes"]["service.state"] == "failed"
    assert _texts(status) == _texts(found)


def test_a_service_replacer_replaces_the_failed_member(workdir: Path) -> None:
    data = _deploy(workdir, "replaced")
    ids = {i["id"]: i["attributes"]["tosca_id"] for i in _instances(data)}
    assert sorted(ids) == ["svc.0", "svc.1"]
    failed = _pid(workdir, ids["svc.0"])
    with Watching(workdir, "replaced") as watching:
        os.kill(failed, signal.SIGKILL)
        found = watching.until("replaced by")
    code, status = laguna(workdir, "status", "replaced")
    now = {i["id"]: i for i in _instances(status)}
    assert sorted(now) == ["svc.1", "svc.2"]
    new_id = now["svc.2"]["attributes"]["tosca_id"]
    assert new_id not in ids.values() and now["svc.1"]["attributes"]["tosca_id"] == ids["svc.1"]
    assert [(i["state"], i["attributes"]["service.state"]) for i in now.values()] == [
        ("started", "running"), ("started", "running")]
    assert _alive(_pid(workdir, new_id))
    # the failed one was stopped and deleted: its stop removed its pid file
    assert not (workdir / f"svc.{ids['svc.0']}.pid").exists()
    assert f"policy replacer (ServiceReplacer): svc.0 replaced by svc.2 (tosca_id {new_id})" \
        in _texts(found)
    assert _texts(status) == _texts(found)
    # undeploy ends the new member too
    new_pid = _pid(workdir, new_id)
    code, data = laguna(workdir, "undeploy", "replaced")
    assert (code, data["state"]) == (0, "undeployed")
    assert not _alive(new_pid)


@pytest.mark.parametrize("template, policy", [
    ("scaled", "autoscaler"),
    # AMP's way of attaching it: the initializer group's brooklyn.policies
    # become the topology's policy add_brooklyn_types.0, which the passes run
    ("scaled_amp", "add_brooklyn_types.0")])
def test_an_auto_scaler_grows_and_shrinks_on_the_published_load(
        workdir: Path, template: str, policy: str) -> None:
    _deploy(workdir, template)
    with Watching(workdir, template) as watching:
        (workdir / "load").write_text("10\n")
        grown = watching.until("resized to 3")
        code, status = laguna(workdir, "status", template)
        instances = _instances(status)
        assert [(i["id"], i["state"]) for i in instances] == [
            ("svc", "started"), ("svc.1", "started"), ("svc.2", "started")]
        pids = [_pid(workdir, i["attributes"]["tosca_id"]) for i in instances]
        assert all(_alive(p) for p in pids)
        (workdir / "load").write_text("0\n")
        shrunk = watching.until("resized to 1")
    assert _texts(grown) == [
        f"policy {policy} (AutoScalerPolicy): load is 10.0 over 1 instance(s) of svc: "
        "resizing to 3",
        f"policy {policy}: svc resized to 3 (added: svc.1, svc.2; removed: -)"]
    assert _texts(shrunk) == [
        f"policy {policy} (AutoScalerPolicy): load is 0.0 over 3 instance(s) of svc: "
        "resizing to 1",
        f"policy {policy}: svc resized to 1 (added: -; removed: svc.1, svc.2)"]
    code, status = laguna(workdir, "status", template)
    assert [i["id"] for i in _instances(status)] == ["svc"]
    assert [_alive(p) for p in pids] == [True, False, False]
    assert _texts(status) == _texts(shrunk)


def test_triggers_start_a_failed_service_and_scale_on_load(workdir: Path) -> None:
    data = _deploy(workdir, "triggered")
    tosca_id = _instances(data)[0]["attributes"]["tosca_id"]
    with Watching(workdir, "triggered") as watching:
        os.kill(_pid(workdir, tosca_id), signal.SIGKILL)
        started = watching.until("call_operation Standard.start done")
        assert _alive(_pid(workdir, tosca_id))
        (workdir / "load").write_text("9\n")
        scaled = watching.until("scale +1 done")
    assert _texts(started)[1:] == [
        "policy on_failure: trigger start_again fired on svc (event failed)",
        "node svc: CheckRunning.check_running passed: running again",
        "policy on_failure: trigger start_again: call_operation Standard.start done"]
    assert started["components"] == {"svc": "started"}
    assert _texts(scaled) == [
        "policy on_failure: trigger grow fired on svc (event load_high)",
        "policy on_failure: svc resized to 2 (added: svc.1; removed: -)",
        "policy on_failure: trigger grow: scale +1 done"]
    code, status = laguna(workdir, "status", "triggered")
    assert [(i["id"], i["state"]) for i in _instances(status)] == [
        ("svc", "started"), ("svc.1", "started")]


def test_policy_resize_by_hand(workdir: Path) -> None:
    _deploy(workdir, "scaled")
    code, data = laguna(workdir, "action", "scaled", "policy", "resize", "--arg", "size=3")
    assert (code, data["status"], data["state"]) == (0, "ok", "ready")
    assert [(i["id"], i["state"]) for i in _instances(data)] == [
        ("svc", "started"), ("svc.1", "started"), ("svc.2", "started")]
    assert _texts(data) == ["policy autoscaler: svc resized to 3 (added: svc.1, svc.2; "
                            "removed: -)"]
    pids = [_pid(workdir, i["attributes"]["tosca_id"]) for i in _instances(data)]
    code, data = laguna(workdir, "action", "scaled", "autoscaler", "resize", "--arg",
                        "size=1")
    assert (code, [i["id"] for i in _instances(data)]) == (0, ["svc"])
    assert [_alive(p) for p in pids] == [True, False, False]
    code, status = laguna(workdir, "status", "scaled")
    assert _texts(status) == ["policy autoscaler: svc resized to 1 (added: -; removed: "
                              "svc.1, svc.2)"]
    code, data = laguna(workdir, "action", "scaled", "policy", "resize", "--arg", "size=4")
    assert (code, data["status"], data["error"]["message"]) == (
        2, "rejected", "policy autoscaler: size 4 is out of bounds (between 1 and 3)")


class Sent:
    """The broker the worker's jobs send to: the task ids it was given."""

    def __init__(self) -> None:
        self.tasks: list[str] = []

    def enqueue(self, message: t.Any) -> None:
        self.tasks.append(message.args[0])


def test_the_workers_watch_job_runs_a_due_pass(workdir: Path) -> None:
    """The worker's periodic `watch` job (claimed and run as `laguna worker` runs
    it, on the working directory's store): a `refresh` task for each environment
    whose watch is due, sent to the broker and run as a watch pass."""
    import datetime

    from dramatiq.brokers.rabbitmq import RabbitmqBroker

    from laguna.deploy.workdir import Workdir
    from laguna.engine.handlers import REFRESH, engine_handlers
    from laguna.engine.housekeeping import housekeeping_jobs, queue_watches
    from laguna.engine.periodic import Periodic
    from laguna.store.models import TaskRecord

    data = _deploy(workdir, "watched")
    os.kill(_pid(workdir, _instances(data)[0]["attributes"]["tosca_id"]), signal.SIGKILL)
    database = Workdir(workdir).open_store()
    try:
        sent = Sent()
        jobs = {job.name: job for job in housekeeping_jobs(
            database, t.cast(RabbitmqBroker, sent), watch_every=datetime.timedelta(seconds=1))}
        # a deploy leaves its environment due at once
        assert Periodic(database, list(jobs.values())).tick(jobs["watch"]) is True
        [task_id] = sent.tasks
        with database.session() as session:
            task = session.get(TaskRecord, task_id)
            assert task is not None and task.kind == REFRESH
            payload = dict(task.payload)
        result = engine_handlers(workdir, database)[REFRESH].run(task_id, payload)
        assert result is not None and (result["watched"], result["changed"]) == ("ok", True)
        due = datetime.datetime.fromisoformat(result["due"])
        with database.session() as session:
            done = session.get(TaskRecord, task_id)
            assert done is not None
            done.state = "done"
        # the next pass is due a period later, not before
        assert queue_watches(database, due - datetime.timedelta(seconds=0.5)) == []
        assert len(queue_watches(database, due)) == 1
    finally:
        database.dispose()
    code, status = laguna(workdir, "status", "watched")
    assert (status["state"], status["components"]["svc"]["state"]) == ("ready", "error")
    assert _texts(status)[-1] == "node svc failed: no policy restarts or replaces it"


def test_watch_of_an_unknown_environment_is_refused(workdir: Path) -> None:
    done = subprocess.run(command(workdir, "watch", "nowhere", "--json"), capture_output=True,
                          text=True, env=environ(), timeout=60, check=False)
    assert (done.returncode, json.loads(done.stdout)["error"]["kind"]) == (
        2, "environment_not_found")
