"""The distributed mode end to end (issue 25): two API processes and three
engine workers over PostgreSQL and RabbitMQ, driven by the original client
(python-muranoclient), surviving a worker killed mid-deploy, RabbitMQ
restarted mid-run and an API process killed."""

from __future__ import annotations

import datetime
import os
import signal
import typing as t
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from muranoclient.common.exceptions import HTTPBadRequest
from muranoclient.v1.client import Client

from laguna.engine.tasks import DONE, RUNNING
from laguna.store.db import Database
from laguna.store.models import DeploymentRecord, EnvironmentRecord
from tests.e2e.helpers import nothing_left
from tests.distributed import Cluster, cluster, wait_for
from tests.pgschema import private_schema
from tests.rabbitmq import RabbitMQ, rabbitmq
from tests.unit.api.test_static_actions import CLASS

EXAMPLES = Path(__file__).parents[2] / "examples"
APPLICATION = "org.laguna.examples.WebServer"


@pytest.fixture()
def node(tmp_path: Path) -> t.Iterator[RabbitMQ]:
    with rabbitmq(tmp_path / "rabbitmq") as started:
        yield started


@pytest.fixture()
def running(tmp_path: Path, node: RabbitMQ) -> t.Iterator[Cluster]:
    calc = tmp_path / "calc"
    (calc / "Classes").mkdir(parents=True)
    (calc / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: test.static\nName: Calc\nVersion: 0.1.0\n"
        "Classes: {test.static.Calc: Calc.yaml}\n")
    # the static actions' class of the API's tests
    (calc / "Classes" / "Calc.yaml").write_text(CLASS.replace("{version}", "0.1.0"))
    with private_schema() as url, cluster(tmp_path / "work", url, node) as made:
        for package in (EXAMPLES / "webserver", calc):
            made.laguna("package", "import", "--public", "--db-url", url, str(package))
        yield made


def add_environment(client: Client, name: str) -> tuple[str, str]:
    """An environment with the web server application, in a session; (env, session)."""
    environment = client.environments.create({"name": name})
    session = client.sessions.configure(environment.id)
    client.services.post(environment.id, path="/", data={
        "?": {"id": f"app-{name}", "type": APPLICATION}, "name": f"web-{name}",
        "message": name, "instance": {
            "?": {"id": f"vm-{name}", "type": "io.murano.resources.LinuxMuranoInstance"},
            "name": f"vm-{name}", "image": "debian-12", "flavor": "m1.small"}},
        session_id=session.id)
    return environment.id, session.id


def session_state(client: Client, environment_id: str, session_id: str) -> str:
    return str(client.sessions.get(environment_id, session_id).state)


def deployed(cluster_: Cluster, clients: list[Client], sessions: dict[str, str]) -> bool:
    states = {env: session_state(clients[n % len(clients)], env, session)
              for n, (env, session) in enumerate(sessions.items())}
    assert "deploy failure" not in states.values(), (states, errors(cluster_))
    return all(state == "deployed" for state in states.values())


def errors(cluster_: Cluster) -> list[t.Any]:
    """The failed deployments' errors and the workers' logs (for a failure's message)."""
    database = Database(cluster_.database_url)
    try:
        with database.session() as session:
            found: list[t.Any] = [d.result for d in session.scalars(
                sa.select(DeploymentRecord).where(DeploymentRecord.state == "failure"))]
    finally:
        database.dispose()
    return found + [w.log.read_text()[-3000:] for w in cluster_.workers]


def assert_answering(client: Client, environment_id: str, name: str) -> None:
    shown = client.environments.get(environment_id)
    assert shown.status == "ready"
    [service] = shown.services
    assert httpx.get(service["url"], timeout=10).text.strip() == \
        f"<html><body><h1>{name}</h1></body></html>"


def assert_never_two_at_once(database_url: str) -> dict[str, list[DeploymentRecord]]:
    """No environment had two deployments running at the same time; each
    environment's deployments in order. A run whose worker died ended with
    its last report before the death (its ``finished`` is the time the next
    run found it dead)."""
    database = Database(database_url)
    try:
        with database.session() as session:
            found: dict[str, list[DeploymentRecord]] = {}
            ends: dict[str, datetime.datetime] = {}
            for deployment in session.scalars(sa.select(DeploymentRecord)
                                              .order_by(DeploymentRecord.started)):
                found.setdefault(deployment.environment_id, []).append(deployment)
                times = [r.time for r in deployment.report_rows]
                interrupted = (deployment.result or {}).get("error") or {}
                if interrupted.get("kind") == "interrupted":
                    # the last report is the recovery's own
                    ends[deployment.id] = max(times[:-1], default=deployment.started)
                else:
                    assert deployment.finished is not None
                    ends[deployment.id] = deployment.finished
            for deployments in found.values():
                for deployment in deployments:
                    session.expunge(deployment)
    finally:
        database.dispose()
    for runs in found.values():
        for before, after in zip(runs, runs[1:]):
            assert ends[before.id] <= after.started, (before.id, ends[before.id], after.started)
    return found


def delete_all(cluster_: Cluster, client: Client, environment_ids: t.Iterable[str]) -> None:
    for environment_id in environment_ids:
        client.environments.delete(environment_id)
    wait_for(lambda: not client.environments.list(), seconds=240)
    # nothing of the local cloud is left: processes, addresses, host folders
    nothing_left(cluster_.workdir)


def test_a_worker_killed_mid_deploy_has_its_environment_resumed(running: Cluster) -> None:
    clients = [Client(api.url, token=running.token("local")) for api in running.apis]
    sessions = dict(add_environment(clients[n % 2], f"e{n:02d}") for n in range(12))
    for n, (environment_id, session_id) in enumerate(sessions.items()):
        clients[n % 2].sessions.deploy(environment_id, session_id)

    # a worker in the middle of a deployment: the owner of a running deployment row
    def victim() -> t.Any:
        database = Database(running.database_url)
        try:
            with database.session() as session:
                busy = {(d.owner_pid, d.environment_id) for d in session.scalars(
                    sa.select(DeploymentRecord).where(DeploymentRecord.state == "running"))}
        finally:
            database.dispose()
        for worker in running.workers:
            for pid, environment_id in busy:
                if pid == worker.pid:
                    return worker, next(t for t in running.tasks()
                                        if t.environment_id == environment_id
                                        and t.kind == "deploy")
        return None

    worker, task = wait_for(victim, seconds=120, every=0.05)
    running.kill_worker(worker)

    wait_for(lambda: deployed(running, clients, sessions), seconds=300)
    for n, environment_id in enumerate(sessions):
        assert_answering(clients[n % 2], environment_id, f"e{n:02d}")
    # the killed worker's environment: its run interrupted, then resumed by another
    resumed = next(t for t in running.tasks() if t.id == task.id)
    assert resumed.state == DONE
    assert not (resumed.claimed_by or "").startswith(worker.owner_text_prefix())
    runs = assert_never_two_at_once(running.database_url)
    assert [r.state for r in runs[task.environment_id]] == ["failure", "success"]
    assert runs[task.environment_id][0].result["error"]["kind"] == "interrupted"
    delete_all(running, clients[0], sessions)


def test_work_resumes_after_rabbitmq_restarts_and_an_api_process_dies(
        running: Cluster) -> None:
    clients = [Client(api.url, token=running.token("local")) for api in running.apis]
    sessions = dict(add_environment(clients[n % 2], f"r{n}") for n in range(4))
    for n, (environment_id, session_id) in enumerate(sessions.items()):
        clients[n % 2].sessions.deploy(environment_id, session_id)
    wait_for(lambda: any(t.state == RUNNING for t in running.tasks()), seconds=120,
             every=0.05)
    running.broker.restart()
    wait_for(lambda: deployed(running, clients, sessions), seconds=300)
    for n, environment_id in enumerate(sessions):
        assert_answering(clients[n % 2], environment_id, f"r{n}")
    assert_never_two_at_once(running.database_url)

    # one API process killed: the other keeps serving, deploys included
    os.kill(running.apis[0].pid, signal.SIGKILL)
    survivor = clients[1]
    assert sorted(e.name for e in survivor.environments.list()) == ["r0", "r1", "r2", "r3"]
    environment_id, session_id = add_environment(survivor, "after")
    survivor.sessions.deploy(environment_id, session_id)
    wait_for(lambda: session_state(survivor, environment_id, session_id) == "deployed")
    assert_answering(survivor, environment_id, "after")
    # a static action: the API waits for the worker that runs it
    answer = survivor.static_actions.call({"className": "test.static.Calc",
                                           "methodName": "add",
                                           "parameters": {"a": 2, "b": 40}})
    assert answer.get_result() == 42
    refused = survivor.static_actions.call({"className": "test.static.Calc",
                                            "methodName": "add",
                                            "parameters": {"a": "x", "b": 1}})
    with pytest.raises(HTTPBadRequest):
        refused.get_result()
    assert [t.kind for t in running.tasks()].count("static-action") == 2
    delete_all(running, survivor, [*sessions, environment_id])
