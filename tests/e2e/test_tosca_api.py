"""A CSAR of the catalog deployed through the API, as python-muranoclient drives
it: the CSAR uploaded (POST /v1/catalog/packages), an environment whose one
application's type is the CSAR's name, its session deployed. The TOSCA front end
deploys the topology on the local cloud (real agents), the application's
properties as the template's inputs; deleting the environment undeploys it."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from laguna.api.app import create_app
from laguna.api.settings import ApiSettings
from laguna.deploy.workdir import Workdir
from laguna.engine.handlers import default_wiring, engine_handlers
from laguna.engine.tasks import StoreTaskQueue
from laguna.store.db import Database
from laguna.store.identity import issue_token

from .test_tosca_catalog import FIXTURES, csar_file


class _Api:
    def __init__(self, client: TestClient, queue: StoreTaskQueue, token: str) -> None:
        self.client, self.queue, self.token = client, queue, token

    def call(self, method: str, path: str, session: str | None = None,
             **kwargs: t.Any) -> t.Any:
        headers = {"X-Auth-Token": self.token}
        if session is not None:
            headers["X-Configuration-Session"] = session
        response = self.client.request(method, f"/v1{path}", headers=headers, **kwargs)
        assert response.status_code == 200, response.text
        return response.json() if response.content else None


@pytest.fixture()
def api(workdir: Path) -> t.Iterator[_Api]:
    import datetime
    store = Workdir(workdir)
    database: Database = store.open_store()
    settings = ApiSettings(workdir=workdir, database_url=store.url, workers=0)
    queues: list[StoreTaskQueue] = []

    def queue(settings: ApiSettings, database: Database) -> StoreTaskQueue:
        made = StoreTaskQueue(database, engine_handlers(workdir, database, default_wiring()),
                              workers=0)
        queues.append(made)
        return made

    with database.session() as session:
        token = issue_token(session, "local", "alice", False,
                            datetime.datetime.now(datetime.timezone.utc),
                            datetime.timedelta(hours=1))
    try:
        with TestClient(create_app(settings, database=database, queue=queue)) as client:
            yield _Api(client, queues[0], token)
    finally:
        database.dispose()


def test_an_application_of_a_csar_package_deploys_through_the_api(
        api: _Api, workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    archive = csar_file(tmp_path_factory.mktemp("csars"), "web-service").read_bytes()
    package = api.call("POST", "/catalog/packages", data={"__metadata__": "{}"},
                       files={"file": ("web.csar", archive, "application/octet-stream")})
    assert (package["fully_qualified_name"], package["type"]) == ("web-service", "Tosca")

    env_id = api.call("POST", "/environments", json={"name": "web"})["id"]
    session_id = api.call("POST", f"/environments/{env_id}/configure")["id"]
    api.call("POST", f"/environments/{env_id}/services", session_id, json={
        "?": {"id": "a1", "type": "web-service"}, "greeting": "deployed through the API"})
    api.call("POST", f"/environments/{env_id}/sessions/{session_id}/deploy")
    assert api.queue.run_pending() == 1
    assert api.call("GET", f"/environments/{env_id}")["status"] == "ready"

    hosts = workdir / ".laguna" / "cloud" / "hosts"
    pages = list(hosts.glob("tosca-*/tosca_vm/page.txt"))
    assert [p.read_text() for p in pages] == ["deployed through the API\n"]

    api.call("DELETE", f"/environments/{env_id}")
    assert api.queue.run_pending() == 1
    assert not pages[0].parent.exists()
