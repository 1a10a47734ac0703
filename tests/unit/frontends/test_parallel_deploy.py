"""A core Environment's applications deploy at once (as its pselect did):
their plans overlap, their servers share pushes, and a failure of several
is reported by each application, the first in the model's order being the
run's. A dry run stays one by one."""

from __future__ import annotations

import json
import os
import signal
import threading
import typing as t
from pathlib import Path

import pytest

from laguna.agent.results import ResultFactory
from laguna.cloud.recording import RecordingCloud
from laguna.deploy.context import Resources
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.result import Result
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.lang.executor import Executor
from laguna.frontends.muranopl import MuranoPlFrontend

PROBE = Path(__file__).parents[2] / "e2e" / "packages" / "probe"
#: how long a test's agent waits for another application's plan
WAIT = 10.0


def probe(letter: str, mode: str = "ok") -> dict[str, t.Any]:
    return {"?": {"id": f"app-{letter}", "type": "org.laguna.tests.Probe"},
            "name": f"probe-{letter}", "mode": mode,
            "instance": {"?": {"id": f"vm-{letter}",
                               "type": "io.murano.resources.LinuxMuranoInstance"},
                         "name": f"host-{letter}", "image": "ubuntu", "flavor": "m1.small"}}


class Agents:
    """One fake agent per server: ``answer(host, plan)`` gives each result."""

    def __init__(self, answer: t.Callable[[str, dict[str, t.Any]], dict[str, t.Any]]) -> None:
        self.answer = answer
        self.results = ResultFactory()
        self.hosts: list[str] = []

    def __call__(self, host: t.Any) -> t.Any:
        agents = self

        class Agent:
            def execute(self, plan: dict[str, t.Any], timeout: float,
                        **track: t.Any) -> dict[str, t.Any]:
                agents.hosts.append(host.server_name)
                return agents.answer(host.server_name, plan)

            def close(self) -> None:
                pass
        return Agent()

    def ok(self, plan: dict[str, t.Any]) -> dict[str, t.Any]:
        return self.results.success(plan.get("ID"), "probe ok")

    def failed(self, plan: dict[str, t.Any], stderr: str) -> dict[str, t.Any]:
        return self.results.error(plan.get("ID"), 3, "Script probe returned error code",
                                  {"exitCode": 3, "stdout": "", "stderr": stderr})


def deploy(tmp_path: Path, agents: Agents, *apps: dict[str, t.Any],
           dry_run: bool = False) -> tuple[Result, RecordingCloud]:
    cloud = RecordingCloud()

    def resources(state_dir: Path, environment_id: str, dry: bool) -> Resources:
        return Resources(cloud=cloud, agents=agents)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(list(apps)))
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=resources)
    return service.deploy(path, PrepareOptions(libs=(PROBE,), name="probes"),
                          dry_run=dry_run), cloud


def test_the_applications_scripts_run_at_once(tmp_path: Path) -> None:
    # each agent answers only once the other application's plan has come:
    # deployed one by one, the first would wait in vain
    both = threading.Barrier(2, timeout=WAIT)

    def answer(host: str, plan: dict[str, t.Any]) -> dict[str, t.Any]:
        both.wait()
        return agents.ok(plan)
    agents = Agents(answer)
    result, cloud = deploy(tmp_path, agents, probe("a"), probe("b"))
    assert result.status == "ok", result.error
    assert sorted(agents.hosts) == ["host-a", "host-b"]
    assert result.outputs == {"probe-a.result": "probe ok", "probe-b.result": "probe ok"}
    assert {key: c.state for key, c in result.components.items()
            if key.startswith("app-")} == {"app-a": "deployed", "app-b": "deployed"}
    # both servers went out in the push after the network's, once each
    servers = [sorted(name for name, r in p.template["resources"].items()
                      if r["type"] == "OS::Nova::Server") for p in cloud.pushes]
    assert servers[-1] == ["host-a", "host-b"]
    assert servers.count(["host-a", "host-b"]) == 1


def test_the_first_failure_in_the_models_order_is_the_runs(tmp_path: Path) -> None:
    # host-c fails first in time; host-a's failure is the run's, as a's
    # application comes first in the model; b, between them, is deployed
    c_failed = threading.Event()

    def answer(host: str, plan: dict[str, t.Any]) -> dict[str, t.Any]:
        if host == "host-a":
            assert c_failed.wait(WAIT)
            return agents.failed(plan, "a: the disk is full")
        if host == "host-c":
            c_failed.set()
            return agents.failed(plan, "c: no route to host")
        return agents.ok(plan)
    agents = Agents(answer)
    result, _ = deploy(tmp_path, agents, probe("a", "fail"), probe("b"), probe("c", "fail"))
    assert result.status == "failed"
    assert result.error is not None
    assert (result.error.kind, result.error.message) == (
        "script_failed", "a script failed on host-a (plan 'Probe'): Script probe returned "
        "error code (exit code 3): a: the disk is full")
    assert result.error.details["object"] == "app-a"
    assert result.error.details["host"] == "host-a"
    assert {key: c.state for key, c in result.components.items()
            if key.startswith("app-")} == {"app-a": "failed", "app-b": "deployed",
                                            "app-c": "failed"}
    errors = [(r.text, r.object) for r in result.reports if r.level == "error"]
    assert errors == [
        ("a script failed on host-c (plan 'Probe'): Script probe returned error code "
         "(exit code 3): c: no route to host", "app-c"),
        (result.error.message, "app-a")]


def test_a_dry_run_deploys_the_applications_in_the_models_order(tmp_path: Path) -> None:
    # its plan keeps one order: b's plan must not come while a's is answered
    b_came = threading.Event()
    overlapped: list[bool] = []

    def answer(host: str, plan: dict[str, t.Any]) -> dict[str, t.Any]:
        if host == "host-b":
            b_came.set()
        if host == "host-a":
            overlapped.append(b_came.wait(0.5))
        return agents.ok(plan)
    agents = Agents(answer)
    result, _ = deploy(tmp_path, agents, probe("a"), probe("b"), probe("c"), dry_run=True)
    assert result.status == "ok", result.error
    assert overlapped == [False]
    assert [entry["host"] for entry in result.plan or () if entry["kind"] == "agent"] \
        == ["host-a", "host-b", "host-c"]


def test_ctrl_c_stops_the_applications_and_starts_no_more(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ten applications, eight at a time: Ctrl-C comes while a's plan runs; the
    # two waiting for a thread never begin, and the run ends interrupted. No
    # plan answers before the run has taken the interruption (cancelled what
    # had not begun, expired the rest): an answer before that would free a
    # thread for a waiting application, however long the others sleep
    taken = threading.Event()
    expire = Executor.expire

    def expired(self: Executor) -> None:
        expire(self)
        taken.set()
    monkeypatch.setattr(Executor, "expire", expired)

    def answer(host: str, plan: dict[str, t.Any]) -> dict[str, t.Any]:
        if host == "host-a":
            os.kill(os.getpid(), signal.SIGINT)
        assert taken.wait(WAIT), "the interruption was not taken"
        return agents.ok(plan)
    agents = Agents(answer)
    letters = "abcdefghij"
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result, _ = deploy(tmp_path, agents, *(probe(letter) for letter in letters))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.error is not None
    assert (result.status, result.error.kind, result.error.message) == (
        "failed", "interrupted", "the deploy was interrupted by the user")
    # (of the first eight, one slow to start may have stopped before its plan)
    assert "host-a" in agents.hosts
    assert set(agents.hosts) <= {f"host-{letter}" for letter in letters[:8]}
