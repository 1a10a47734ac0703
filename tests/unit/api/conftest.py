"""An API service per test, on SQLite and (with LAGUNA_TEST_PG_URL) PostgreSQL.

The engine's queue has no worker threads here: a test runs the queued tasks
itself (``api.run_tasks()``), so what it asserts never races the engine.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from laguna.api.app import create_app
from laguna.agent.transport import RecordingAgent
from laguna.engine.handlers import EngineWiring, engine_handlers
from laguna.cloud.recording import RecordingCloud
from laguna.deploy.context import Resources
from laguna.frontends import builtin_frontends
from laguna.deploy.frontend import FrontendRegistry
from laguna.packages.package import load_package
from laguna.store.packages import import_package
from laguna.api.settings import ApiSettings
from laguna.engine.tasks import StoreTaskQueue
from laguna.deploy.workdir import open_store
from laguna.store.db import Database
from laguna.store.identity import issue_token
from tests.unit.store.conftest import database_url, emptied  # noqa: F401 - the fixture, reused


@dataclasses.dataclass
class Api:
    client: TestClient
    database: Database
    queue: StoreTaskQueue
    workdir: Path

    def token(self, project: str = "p1", user: str = "u1", admin: bool = False) -> str:
        with self.database.session() as session:
            return issue_token(session, project, user, admin,
                               datetime.datetime.now(datetime.timezone.utc),
                               datetime.timedelta(hours=1))

    def headers(self, token: str, session: str | None = None) -> dict[str, str]:
        # as the original client sends them: JSON content type even on GETs
        headers = {"X-Auth-Token": token, "Content-Type": "application/json"}
        if session is not None:
            headers["X-Configuration-Session"] = session
        return headers

    def run_tasks(self) -> int:
        return self.queue.run_pending()

    def import_package(self, path: Path, owner: str = "p1", public: bool = True) -> None:
        with self.database.session() as session:
            record = import_package(session, load_package(path))
            record.owner_id, record.is_public = owner, public


EXAMPLES = Path(__file__).parents[3] / "examples"


class RecordingResources:
    """A cloud per environment and agents that record what they are sent and
    succeed: the engine runs for real, no host is made; the clouds live as long
    as the test, so an action finds the servers its deploy made."""

    def __init__(self) -> None:
        self.clouds: dict[str, RecordingCloud] = {}

    def __call__(self, state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
        cloud = self.clouds.setdefault(environment_id, RecordingCloud())
        return Resources(cloud=cloud, agents=lambda host: RecordingAgent(
            getattr(host, "server_name", "host")))


@pytest.fixture()
def api(database_url: str, tmp_path: Path) -> t.Iterator[Api]:  # noqa: F811
    database = open_store(database_url)
    settings = ApiSettings(workdir=tmp_path, database_url=database_url, workers=0)
    queues: list[StoreTaskQueue] = []

    def queue(settings: ApiSettings, database: Database) -> StoreTaskQueue:
        # as the server wires its engine: confined (docs/API.md, "The engine")
        wiring = EngineWiring(FrontendRegistry(builtin_frontends(confined=True)),
                              RecordingResources())
        made = StoreTaskQueue(database, engine_handlers(settings.workdir, database, wiring),
                              workers=0)
        queues.append(made)
        return made

    app = create_app(settings, database=database, queue=queue)
    try:
        with TestClient(app) as client:
            yield Api(client, database, queues[0], tmp_path)
    finally:
        emptied(database)
        database.dispose()
