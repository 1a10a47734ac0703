"""``Service.check``: the hosts' answers as one report per component, the drift
marks a deploy gets as ``RunContext.repair`` and forgets once it succeeds."""

from __future__ import annotations

import io
import typing as t
from pathlib import Path

import pytest
from rich.console import Console

from laguna.cloud.base import Host
from laguna.deploy.context import Resources
from laguna.deploy.drift import DriftMarks
from laguna.deploy.errors import DeployError
from laguna.deploy.frontend import FrontendRegistry
from laguna.deploy.owner import ProcessOwner
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.hosts.choice import CloudChoice, keep_choice

from .fakes import FakeFrontend, Ticker, write_blueprint

WEB = {"id": "web1", "type": "Web", "name": "web"}
DB = {"id": "db1", "type": "Db", "name": "db"}
GONE = {"kind": "process", "what": "sleep 300 (pid 42)", "problem": "gone"}
MISSING = {"kind": "file", "what": "/srv/web.conf", "problem": "missing"}


class Agent:
    def __init__(self, answer: dict[str, t.Any] | Exception) -> None:
        self.answer = answer

    def drift(self) -> dict[str, t.Any]:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class Hosts:
    """A cloud of two hosts in stack ``s1`` (all check_hosts asks of a cloud)."""

    def __init__(self) -> None:
        self.answers: dict[str, dict[str, t.Any] | Exception] = {"vm-1": {}, "vm-2": {}}

    def stacks(self) -> list[str]:
        return ["s1", "other"]

    def hosts(self, stack: str) -> list[Host]:
        return [Host(stack, name, name, ("127.0.0.1",), "http://x", None, None, {}, name)
                for name in self.answers]

    def resources(self, state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
        return Resources(t.cast(t.Any, self),
                         lambda host: t.cast(t.Any, Agent(self.answers[host.server_name])))


@pytest.fixture()
def hosts() -> Hosts:
    return Hosts()


@pytest.fixture()
def frontend() -> FakeFrontend:
    return FakeFrontend()


@pytest.fixture()
def service(tmp_path: Path, frontend: FakeFrontend, hosts: Hosts) -> Service:
    return Service(Workdir(tmp_path / "wd"), FrontendRegistry([frontend]), clock=Ticker(),
                   owner=ProcessOwner("here", 100, "1"), resources=hosts.resources)


def deployed(service: Service, tmp_path: Path) -> tuple[Path, str]:
    path = write_blueprint(tmp_path, "shop", components=[WEB, DB])
    result = service.deploy(path)
    assert result.status == "ok"
    [environment] = service.environments().environments
    keep_choice(service.workdir.cloud_dir, environment.id, CloudChoice("local", None, ("s1",)))
    return path, environment.id


def test_a_clean_environment_reports_every_component_with_what_it_tracks(
        service: Service, hosts: Hosts, tmp_path: Path) -> None:
    _, environment_id = deployed(service, tmp_path)
    hosts.answers["vm-1"] = {"web1": {"tracked": {"processes": 1, "files": 2, "addresses": 0},
                                      "drift": []},
                             "removed-long-ago": {"tracked": {"processes": 1}, "drift": [GONE]}}
    hosts.answers["vm-2"] = {"web1": {"tracked": {"processes": 0, "files": 1, "addresses": 1},
                                      "drift": []}}
    report = service.check("shop")
    assert (report.clean, report.exit_code) == (True, 0)
    assert report.to_json() == {
        "name": "shop", "id": environment_id, "language": "fake",
        "checked": "2026-01-01T00:00:09.000000Z", "drifted": [],
        "components": {
            "web1": {"type": "Web", "name": "web", "drift": [],
                     "tracked": {"processes": 1, "files": 3, "addresses": 1}},
            "db1": {"type": "Db", "name": "db", "drift": [],
                    "tracked": {"processes": 0, "files": 0, "addresses": 0}}},
        "hosts": [{"host": "vm-1", "stack": "s1", "error": None},
                  {"host": "vm-2", "stack": "s1", "error": None}]}
    assert DriftMarks(service.workdir.cloud_dir).get(environment_id) == frozenset()


def test_drift_is_reported_per_component_and_marked_for_the_next_deploy(
        service: Service, hosts: Hosts, frontend: FakeFrontend, tmp_path: Path) -> None:
    path, environment_id = deployed(service, tmp_path)
    hosts.answers["vm-2"] = {"db1": {"tracked": {"processes": 1, "files": 1, "addresses": 0},
                                     "drift": [GONE, MISSING]}}
    report = service.check("shop")
    assert (report.drifted, report.exit_code) == (["db1"], 1)
    assert report.to_json()["components"]["db1"]["drift"] == [
        {"host": "vm-2", **GONE}, {"host": "vm-2", **MISSING}]
    assert render(report) == [
        "db (Db): process sleep 300 (pid 42) on vm-2: gone",
        "db (Db): file /srv/web.conf on vm-2: missing",
        "environment shop: 1 of 1 components drifted; `laguna deploy` of its blueprint "
        "repairs them"]
    assert DriftMarks(service.workdir.cloud_dir).get(environment_id) == {"db1"}

    assert service.deploy(path).status == "ok"
    assert frontend.repairs == [frozenset(), frozenset({"db1"})]
    assert DriftMarks(service.workdir.cloud_dir).get(environment_id) == frozenset()
    assert service.deploy(path).status == "ok"
    assert frontend.repairs[-1] == frozenset()


def test_a_host_that_cannot_be_asked_is_reported(service: Service, hosts: Hosts,
                                                 tmp_path: Path) -> None:
    from laguna.agent.errors import AgentUnreachable
    deployed(service, tmp_path)
    hosts.answers["vm-1"] = AgentUnreachable("http://x", "Connection refused")
    report = service.check("shop")
    assert (report.drifted, report.exit_code) == ([], 1)
    assert report.to_json()["hosts"][0] == {
        "host": "vm-1", "stack": "s1",
        "error": "The agent at http://x is unreachable: Connection refused"}
    assert render(report) == [
        "host vm-1: not checked: The agent at http://x is unreachable: Connection refused",
        "environment shop: 1 of 2 hosts could not be checked"]


def test_an_environment_without_hosts_has_nothing_to_check(service: Service,
                                                           tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    report = service.check("shop")
    assert (report.hosts, report.exit_code) == ((), 0)
    assert render(report) == [
        "environment shop: no hosts to check (its scripts ran without an agent)"]


def test_checking_an_unknown_or_undeployed_environment_is_refused(
        service: Service, tmp_path: Path) -> None:
    with pytest.raises(DeployError, match="no environment named 'nowhere'") as caught:
        service.check("nowhere")
    assert caught.value.kind == "environment_not_found"
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    service.deploy(path)
    service.undeploy("shop")
    with pytest.raises(DeployError, match="environment 'shop' has nothing deployed") \
            as caught:
        service.check("shop")
    assert caught.value.kind == "not_deployed"


def render(renderable: object) -> list[str]:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with console.capture() as captured:
        console.print(renderable)
    return [line.rstrip() for line in captured.get().splitlines()]
