"""The engine's workers: a task whose worker process died is failed when the
service starts again, its session ends ``deploy failure``, and the environment
can be deployed again."""

from __future__ import annotations

import socket

import sqlalchemy as sa

from laguna.engine.tasks import FAILED, RUNNING
from laguna.store.models import ConfigurationSession, TaskRecord
from tests.unit.api.conftest import EXAMPLES, Api
from tests.unit.api.test_environments import APP, configure, create

#: a process of this host that cannot exist (pids stop far below)
DEAD = f"{socket.gethostname()}|999999999|1"


def queued_deploy(api: Api, token: str, env_id: str) -> str:
    session_id = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                    headers=api.headers(token, session_id))
    response = api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                               headers=api.headers(token))
    assert response.status_code == 200, response.text
    return session_id


def test_a_task_of_a_dead_worker_fails_and_the_environment_deploys_again(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    lost_session = queued_deploy(api, token, env_id)
    task = api.queue.claim()
    assert task is not None
    with api.database.session() as session:    # the worker that claimed it was killed
        session.execute(sa.update(TaskRecord).where(TaskRecord.id == task.id)
                        .values(claimed_by=DEAD))
    shown = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token)).json()
    assert shown["status"] == "deploying"

    assert api.queue.recover() == [task.id]
    with api.database.session() as session:
        record = session.get(TaskRecord, task.id)
        assert record is not None
        assert (record.state, record.result) == (FAILED, {
            "error": "the engine worker running the task ended before it finished"})
        configuration = session.get(ConfigurationSession, lost_session)
        assert configuration is not None and configuration.state == "deploy failure"
    shown = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token)).json()
    assert shown["status"] == "deploy failure"

    again = queued_deploy(api, token, env_id)
    assert api.run_tasks() == 1
    assert api.client.get(f"/v1/environments/{env_id}/sessions/{again}",
                          headers=api.headers(token)).json()["state"] == "deployed"
    assert api.client.get(f"/v1/environments/{env_id}",
                          headers=api.headers(token)).json()["status"] == "ready"


def test_a_task_of_a_living_worker_is_left_to_it(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    queued_deploy(api, token, env_id)
    task = api.queue.claim()     # claimed by this very process, which lives
    assert task is not None
    assert api.queue.recover() == []
    with api.database.session() as session:
        assert session.scalar(sa.select(TaskRecord.state)) == RUNNING


def test_two_workers_never_claim_one_task(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    queued_deploy(api, token, env_id)
    first, second = api.queue.claim(), api.queue.claim()
    assert first is not None and second is None
    with api.database.session() as session:
        assert session.scalars(sa.select(TaskRecord.state)).all() == [RUNNING]


def test_a_dead_workers_deployment_is_finished_when_the_service_starts(api: Api) -> None:
    # a server killed mid-deploy left its deployment `running`, the environment
    # claimed and a component `deploying`: the next server's start finishes it
    import datetime

    from laguna.store.models import DeploymentRecord, EnvironmentRecord

    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    queued_deploy(api, token, env_id)
    task = api.queue.claim()
    assert task is not None
    host, pid, started = DEAD.split("|")
    with api.database.session() as session:
        session.execute(sa.update(TaskRecord).where(TaskRecord.id == task.id)
                        .values(claimed_by=DEAD))
        record = session.get(EnvironmentRecord, env_id)
        assert record is not None
        deployment = DeploymentRecord(
            environment_id=env_id, operation="deploy", state="running",
            started=datetime.datetime.now(datetime.timezone.utc), description={},
            owner_host=host, owner_pid=int(pid), owner_started=started)
        session.add(deployment)
        session.flush()
        record.acquired_by, record.status = deployment.id, "deploying"
        record.components = {"web1": {"type": "Web", "name": "web", "state": "deploying"},
                             "db1": {"type": "Db", "name": "db", "state": "deployed"}}
        deployment_id = deployment.id
    assert api.queue.recover() == [task.id]
    with api.database.session() as session:
        deployment = session.get(DeploymentRecord, deployment_id)
        record = session.get(EnvironmentRecord, env_id)
        assert deployment is not None and record is not None
        assert (deployment.state, deployment.result["error"]["kind"]) == (
            "failure", "interrupted")
        assert (record.acquired_by, record.status) == (None, "deploy failure")
        assert {key: c["state"] for key, c in record.components.items()} == {
            "web1": "interrupted", "db1": "deployed"}
