"""The deployment service with a fake front end: results, states, store, recovery."""

from __future__ import annotations

import datetime
import typing as t
from pathlib import Path

import pytest

from laguna.deploy.events import (
    ComponentChanged,
    DeploymentFinished,
    DeploymentStarted,
    Event,
    ReportEmitted,
)
from laguna.deploy.context import RunContext
from laguna.deploy.frontend import FrontendRegistry, Outcome, PrepareOptions
from laguna.deploy.owner import ProcessOwner
from laguna.deploy.reporter import StoreReporter
from laguna.deploy.errors import Rejected
from laguna.deploy.service import WATCH_RETRY, Service
from laguna.deploy.workdir import Workdir
from laguna.store import environments as repo
from laguna.store.models import DeploymentRecord

from .fakes import DB, PACKAGE, WEB, WEB_DEPLOYED, FakeFrontend, Ticker, write_blueprint


class DeadOwners:
    def __init__(self, dead: set[int]) -> None:
        self.dead = dead

    def alive(self, owner: ProcessOwner) -> bool:
        return owner.pid not in self.dead


@pytest.fixture()
def frontend() -> FakeFrontend:
    return FakeFrontend()


@pytest.fixture()
def service(tmp_path: Path, frontend: FakeFrontend) -> Service:
    return Service(Workdir(tmp_path / "wd"), FrontendRegistry([frontend]), clock=Ticker(),
                   owner=ProcessOwner("here", 100, "1"), liveness=DeadOwners(set()))


def test_deploy_result_json_is_exact(service: Service, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    result = service.deploy(path, PrepareOptions(settings={"size": "2"}))
    assert result.to_json() == WEB_DEPLOYED
    assert result.exit_code == 0


def test_events_come_in_order(service: Service, tmp_path: Path) -> None:
    events: list[Event] = []
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]), sink=events.append)
    assert [type(e) for e in events] == [DeploymentStarted, ComponentChanged, ReportEmitted,
                                         ComponentChanged, ReportEmitted, DeploymentFinished]
    finished = events[-1]
    assert isinstance(finished, DeploymentFinished) and finished.state == "success"


def test_name_option_wins_over_the_blueprint_name(service: Service, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "file", name="from-model", components=[])
    assert service.deploy(path).name == "from-model"
    assert service.deploy(path, PrepareOptions(name="given")).name == "given"
    assert [e.name for e in service.environments().environments] == ["from-model", "given"]


def test_unrecognised_path_is_rejected_and_keeps_nothing(service: Service,
                                                        tmp_path: Path) -> None:
    path = tmp_path / "model.yaml"
    path.write_text("a: 1\n")
    result = service.deploy(path)
    assert result.to_json()["status"] == "rejected"
    assert result.error is not None
    assert (result.error.kind, result.error.message) == (
        "model_invalid", f"no blueprint language recognises {path}")
    assert result.exit_code == 2
    assert not service.workdir.state_dir.exists()


def test_missing_path_is_rejected(service: Service, tmp_path: Path) -> None:
    result = service.deploy(tmp_path / "nope.fake")
    assert result.error is not None
    assert (result.status, result.error.kind, result.error.message) == (
        "rejected", "model_invalid", f"{tmp_path / 'nope.fake'} does not exist")


def test_rejected_in_prepare_creates_no_environment(service: Service, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", reject={"kind": "class_not_found",
                                                     "message": "no class Web"})
    result = service.deploy(path)
    assert result.to_json() == {
        "name": "shop", "language": "fake", "status": "rejected", "state": None,
        "outputs": {}, "components": {}, "reports": [], "model": None,
        "error": {"kind": "class_not_found", "code": "LAG-E0302", "message": "no class Web"}}
    assert service.environments().to_json() == []


def test_failed_deploy_is_recorded_and_retryable(service: Service, tmp_path: Path) -> None:
    failing = write_blueprint(tmp_path, "shop", components=[WEB, DB], fail={
        "at": "db1", "kind": "script_failed", "message": "install.sh exited with 1"})
    result = service.deploy(failing)
    assert (result.status, result.state, result.exit_code) == ("failed", "deploy failure", 1)
    assert result.error is not None and result.error.to_json() == {
        "kind": "script_failed", "code": "LAG-E1011", "message": "install.sh exited with 1",
        "object": "db1",
        "method": "deploy", "trace": "Db::deploy @ fake:1", "output": "exit 1"}
    assert result.model == {"components": [WEB]}
    assert {k: c.state for k, c in result.components.items()} == {
        "web1": "deployed", "db1": "failed"}
    assert [r.text for r in result.reports] == [
        "deploying web", "web deployed", "deploying db", "install.sh exited with 1"]

    fixed = write_blueprint(tmp_path, "shop", components=[WEB, DB])
    retry = service.deploy(fixed)
    assert (retry.status, retry.state) == ("ok", "ready")
    # web1 was deployed by the failed run and is left alone now
    assert [r.text for r in retry.reports] == ["deploying db", "db deployed"]
    history = service.deployments("shop").to_json()
    assert [(d["operation"], d["state"]) for d in history] == [
        ("deploy", "failure"), ("deploy", "success")]


def test_redeploy_applies_the_difference(service: Service, tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB, DB]))
    other = {"id": "cache1", "type": "Cache", "name": "cache"}
    result = service.deploy(write_blueprint(tmp_path, "shop", components=[WEB, other]))
    assert [(r.object, r.text) for r in result.reports] == [
        ("db1", "destroying db"), ("cache1", "deploying cache"), ("cache1", "cache deployed")]
    assert list(result.components) == ["web1", "cache1"]
    assert service.environments().environments[0].version == 2


def test_status_is_the_deploy_result_with_the_current_model(service: Service,
                                                           tmp_path: Path) -> None:
    deployed = service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    assert service.status("shop").to_json() == deployed.to_json()


def test_status_of_an_unknown_environment(service: Service) -> None:
    result = service.status("nope")
    assert result.to_json() == {
        "name": "nope", "language": None, "status": "rejected", "state": None,
        "outputs": {}, "components": {}, "reports": [], "model": None,
        "error": {"kind": "environment_not_found", "code": "LAG-E1002",
                  "message": "no environment named 'nope'"}}
    assert not service.workdir.state_dir.exists()


def test_environment_keeps_its_packages(service: Service, tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = repo.find_environment(session, "local", "shop")
            assert record is not None
            assert [(p.name, p.version, p.archive) for p in record.package_rows] == [
                (PACKAGE.name, PACKAGE.version, PACKAGE.archive)]
    finally:
        database.dispose()


def test_action_runs_on_the_stored_model(service: Service, frontend: FakeFrontend,
                                         tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result = service.action("shop", "web1", "restart", {"force": "yes"})
    assert (result.status, result.state, dict(result.outputs)) == (
        "ok", "ready", {"method": "restart", "force": "yes"})
    assert [r.text for r in result.reports] == ["restart ran"]
    assert frontend.calls == ["deploy", "action web1.restart"]
    history = service.deployments("shop").to_json()
    assert history[-1]["action"] == {"object": "web1", "method": "restart",
                                     "arguments": {"force": "yes"}}


def test_action_rejected_by_the_front_end_keeps_the_state(service: Service,
                                                         tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result = service.action("shop", "ghost", "restart")
    assert result.error is not None
    assert (result.status, result.state, result.error.kind) == (
        "rejected", "ready", "model_invalid")


def test_action_after_undeploy_is_refused(service: Service, tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    service.undeploy("shop")
    result = service.action("shop", "web1", "go")
    assert result.error is not None
    assert (result.status, result.state, result.error.kind, result.error.message) == (
        "rejected", "undeployed", "not_deployed",
        "environment 'shop' has nothing deployed to run an action on")


def test_undeploy_keeps_the_history(service: Service, tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result = service.undeploy("shop")
    assert result.to_json() | {"reports": []} == {
        "name": "shop", "language": "fake", "status": "ok", "state": "undeployed",
        "outputs": {}, "components": {}, "reports": [], "model": None, "error": None,
        "destroyed": [{"action": "destroy", "object": "web1", "name": "web", "type": "Web"}]}
    assert [r.text for r in result.reports] == ["destroying web"]
    again = service.undeploy("shop")
    assert again.error is not None
    assert (again.status, again.error.kind, again.error.message) == (
        "rejected", "not_deployed", "environment 'shop' is undeployed: nothing to undeploy")
    assert [d.operation for d in service.deployments("shop").deployments] == [
        "deploy", "undeploy"]


def test_dry_run_keeps_nothing(service: Service, tmp_path: Path) -> None:
    result = service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]), dry_run=True)
    data = result.to_json()
    assert (data["status"], data["state"]) == ("ok", "ready")
    assert data["plan"] == [
        {"kind": "stack", "template": {"resources": {"web1": "Web"}}},
        {"kind": "agent", "host": "web", "plan": {"Body": "deploy"}}]
    assert [r["text"] for r in data["reports"]] == ["deploying web", "web deployed"]
    assert not service.workdir.state_dir.exists()


def test_dry_run_of_a_redeploy_reads_but_does_not_write(service: Service,
                                                       tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    before = service.deployments("shop").to_json()
    result = service.deploy(write_blueprint(tmp_path, "shop", components=[WEB, DB]),
                            dry_run=True)
    assert [r.text for r in result.reports] == ["deploying db", "db deployed"]
    assert service.deployments("shop").to_json() == before
    assert service.status("shop").model == {"components": [WEB]}


def _abandon(service: Service, name: str, pid: int) -> None:
    """An environment held by a running deployment of process ``pid``."""
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = repo.find_environment(session, "local", name)
            assert record is not None
            deployment = repo.add_deployment(session, DeploymentRecord(
                environment_id=record.id, operation="deploy", state="running",
                started=service.clock(), owner_host="here", owner_pid=pid,
                owner_started="1"))
            assert repo.acquire(session, record.id, deployment.id, service.clock())
            record.status = "deploying"
    finally:
        database.dispose()


def test_live_holder_refuses_a_second_deploy(service: Service, tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    service.deploy(path)
    _abandon(service, "shop", pid=200)
    result = service.deploy(path)
    assert result.error is not None
    assert (result.status, result.state, result.error.kind) == (
        "rejected", "deploying", "environment_busy")
    assert result.error.message.startswith("environment 'shop' is busy: deployment ")


def test_dead_holder_is_recovered_by_the_next_command(service: Service,
                                                      tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    service.deploy(path)
    _abandon(service, "shop", pid=300)
    t.cast(DeadOwners, service.liveness).dead.add(300)
    status = service.status("shop")
    assert status.error is not None
    assert (status.status, status.state, status.error.kind) == (
        "failed", "deploy failure", "interrupted")
    assert status.error.message == (
        "the deploy was interrupted: its process (pid 300 on here) ended before it finished")
    assert service.deploy(path).status == "ok"


def test_a_failed_first_deploy_keeps_language_and_packages(service: Service,
                                                          tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB], fail={
        "at": "web1", "kind": "cloud_error", "message": "no capacity"}))
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = repo.find_environment(session, "local", "shop")
            assert record is not None
            assert (record.language, record.status, record.version) == (
                "fake", "deploy failure", 0)
            assert [p.name for p in record.package_rows] == [PACKAGE.name]
    finally:
        database.dispose()
    assert service.undeploy("shop").status == "ok"


class Interrupting(FakeFrontend):
    def undeploy(self, context: RunContext) -> Outcome:
        context.reporter.report("info", "destroying web", "web1")
        raise KeyboardInterrupt


class Crashing(FakeFrontend):
    def undeploy(self, context: RunContext) -> Outcome:
        raise RuntimeError("bug")


@pytest.mark.parametrize(("frontend_class", "kind", "message"), [
    (Interrupting, "interrupted", "the undeploy was interrupted by the user"),
    (Crashing, "internal_error", "RuntimeError: bug"),
])
def test_interrupted_or_crashed_front_end_releases_the_environment(
        tmp_path: Path, frontend_class: type[FakeFrontend], kind: str, message: str) -> None:
    service = Service(Workdir(tmp_path / "wd"), FrontendRegistry([frontend_class()]),
                      clock=Ticker())
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result = service.undeploy("shop")
    assert result.error is not None
    assert (result.status, result.state, result.error.kind, result.error.message) == (
        "failed", "delete failure", kind, message)
    assert result.reports[-1].text == message
    assert service.environments().environments[0].acquired_by is None


def test_forget_deletes_an_environment_with_nothing_deployed(service: Service,
                                                             tmp_path: Path) -> None:
    path = write_blueprint(tmp_path, "shop", components=[WEB])
    assert service.deploy(path).status == "ok"
    refused = service.forget("shop")
    assert refused.error is not None
    assert (refused.status, refused.state, refused.error.kind, refused.error.message) == (
        "rejected", "ready", "still_deployed",
        "environment 'shop' has a deployment: undeploy it first (laguna undeploy shop)")
    assert service.undeploy("shop").status == "ok"
    forgotten = service.forget("shop")
    assert (forgotten.status, forgotten.language, forgotten.state) == ("ok", "fake", None)
    assert service.environments().environments == []
    gone = service.status("shop")
    assert gone.error is not None and gone.error.kind == "environment_not_found"
    # the name is free again: a new deploy starts a new history
    assert service.deploy(path).status == "ok"
    assert len(service.deployments("shop").deployments) == 1


def test_a_store_that_fails_to_keep_the_reports_fails_the_run(
        service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(reporter: StoreReporter) -> None:
        raise OSError("disk full")

    path = write_blueprint(tmp_path, "shop", components=[WEB])
    with monkeypatch.context() as patched:
        patched.setattr(StoreReporter, "close", refuse)
        result = service.deploy(path)
    assert (result.status, result.state) == ("failed", "deploy failure")
    assert result.error is not None
    assert (result.error.kind, result.error.message) == (
        "internal_error", "the store failed to keep the run's reports: OSError: disk full")
    # the environment was released: the next deploy runs
    retry = service.deploy(path)
    assert (retry.status, retry.state) == ("ok", "ready")


class Watching(FakeFrontend):
    """A front end that watches: each pass finds what ``found`` says next."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str | None] = []

    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        self.calls.append(f"watch {period}")
        fire = self.found.pop(0)
        due = now + datetime.timedelta(seconds=period or 60)
        if fire is None:
            return Outcome(ok=True, quiet=True, watch_due=due,
                           model={**(context.stored.model or {}), "checked": now.isoformat()})
        context.reporter.report("error", f"{fire} is on fire", fire)
        context.reporter.component(fire, "Web", fire, "error")
        return Outcome(ok=True, watch_due=due)


def _due(service: Service, name: str) -> t.Any:
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = repo.find_environment(session, repo.LOCAL_PROJECT, name)
            assert record is not None
            return record.watch_due
    finally:
        database.dispose()


def test_a_watch_pass_that_changed_something_is_a_deployment_keeping_the_state(
        tmp_path: Path) -> None:
    frontend = Watching()
    service = Service(Workdir(tmp_path / "wd"), FrontendRegistry([frontend]), clock=Ticker(),
                      owner=ProcessOwner("here", 100, "1"), liveness=DeadOwners(set()))
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    assert _due(service, "shop") is not None    # a deploy is watched at once
    frontend.found = [None, "web1"]
    result, due = service.watch("shop", period=5)
    # nothing changed: no deployment, no reports, what it read kept, due in 5 s
    assert (result.status, result.state, list(result.reports)) == ("ok", "ready", [])
    assert result.model is not None and "checked" in result.model
    assert [d["operation"] for d in service.deployments("shop").to_json()] == ["deploy"]
    assert due is not None and due.tzinfo is not None
    result, due = service.watch("shop", period=5)
    assert (result.status, result.state, result.components["web1"].state) == (
        "ok", "ready", "error")
    assert [r.text for r in result.reports] == ["web1 is on fire"]
    assert [(d["operation"], d["state"]) for d in service.deployments("shop").to_json()] == [
        ("deploy", "success"), ("watch", "success")]
    assert frontend.calls == ["deploy", "watch 5", "watch 5"]
    service.undeploy("shop")
    assert _due(service, "shop") is None
    result, due = service.watch("shop")
    assert result.error is not None
    assert (result.status, result.error.message, due) == (
        "rejected", "environment 'shop' has nothing deployed to watch", None)


class RefusingWatch(Watching):
    """A front end whose watch pass is refused (its stored packages no longer load)."""

    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        self.calls.append("watch")
        raise Rejected("class_not_found", "class Web is not in the stored packages")


def test_a_refused_watch_pass_is_tried_again_a_minute_later_not_at_once(
        tmp_path: Path) -> None:
    frontend = RefusingWatch()
    clock = Ticker()
    service = Service(Workdir(tmp_path / "wd"), FrontendRegistry([frontend]), clock=clock,
                      owner=ProcessOwner("here", 100, "1"), liveness=DeadOwners(set()))
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result, due = service.watch("shop")
    assert result.error is not None
    assert (result.status, result.state, result.error.message, due) == (
        "rejected", "ready", "class Web is not in the stored packages", None)
    # due a minute after the refusal (the clock read last): the worker's
    # periodic job does not queue it again on its next tick
    assert _due(service, "shop").replace(tzinfo=datetime.timezone.utc) == \
        clock.now + WATCH_RETRY
    assert [d["operation"] for d in service.deployments("shop").to_json()] == ["deploy"]


def test_a_language_that_watches_nothing_has_quiet_passes(service: Service,
                                                          tmp_path: Path) -> None:
    service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    result, due = service.watch("shop")
    assert (result.status, result.state, due) == ("ok", "ready", None)
    assert [d["operation"] for d in service.deployments("shop").to_json()] == ["deploy"]
