"""``laguna serve --processes 2``: two API processes on one port and one SQLite
store; a deployment runs once, and a killed process is replaced."""

from __future__ import annotations

import os
import signal
import typing as t
from pathlib import Path

import httpx
import pytest
from muranoclient.v1.client import Client

from laguna.api.serving import settings_from_json, settings_to_json
from laguna.api.settings import ApiSettings
from tests.compat.test_muranoclient import EXAMPLES, wait_for
from tests.servers import Server, serve


@pytest.fixture()
def two_processes(tmp_path: Path) -> t.Iterator[Server]:
    with serve(tmp_path, "--processes", "2") as served:
        yield served


def server_processes(supervisor: int) -> list[int]:
    """The supervisor's children that serve (not multiprocessing's resource tracker)."""
    with open(f"/proc/{supervisor}/task/{supervisor}/children", encoding="ascii") as listed:
        children = [int(pid) for pid in listed.read().split()]
    serving = []
    for pid in children:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    serving.append(pid)
        except FileNotFoundError:
            continue   # gone meanwhile
    return serving


def test_the_settings_reach_the_children_unchanged(tmp_path: Path) -> None:
    import datetime

    settings = ApiSettings(workdir=tmp_path, database_url="sqlite:///x.sqlite", workers=3,
                           token_lifetime=datetime.timedelta(hours=2), max_body_size=10,
                           anonymous=("p", "u"))
    assert settings_from_json(settings_to_json(settings)) == settings


def test_a_deployment_through_two_processes_on_sqlite_runs_once(two_processes: Server) -> None:
    server = two_processes
    assert len(server_processes(server.pid)) == 2
    server.laguna("package", "import", "--db-url", str(server.workdir / ".laguna" /
                                                       "laguna.sqlite"),
                  str(EXAMPLES / "webserver"))
    client = Client(server.url, token=server.token())
    environment = client.environments.create({"name": "two"})
    session = client.sessions.configure(environment.id)
    client.services.post(environment.id, path="/", data={
        "?": {"id": "web1", "type": "org.laguna.examples.WebServer"}, "name": "web",
        "message": "two processes", "instance": {
            "?": {"id": "vm1", "type": "io.murano.resources.LinuxMuranoInstance"},
            "name": "web-1", "image": "ubuntu", "flavor": "m1.small"}},
        session_id=session.id)
    client.sessions.deploy(environment.id, session.id)
    try:
        state = wait_for(lambda: client.sessions.get(environment.id, session.id).state
                         in ("deployed", "deploy failure")
                         and client.sessions.get(environment.id, session.id).state)
        assert state == "deployed"
        # one deployment, whichever process's engine claimed the task
        assert [d.state for d in client.deployments.list(environment.id)] == ["success"]
        [service] = client.environments.get(environment.id).services
        assert service["message"] == "two processes"
    finally:
        client.environments.delete(environment.id)
        wait_for(lambda: not client.environments.list())


def test_a_killed_process_is_replaced_and_requests_keep_being_answered(
        two_processes: Server) -> None:
    server = two_processes
    headers = {"X-Auth-Token": server.token()}
    first, second = server_processes(server.pid)
    os.kill(first, signal.SIGKILL)
    with httpx.Client(base_url=server.url, headers=headers) as client:
        # the other process answers at once, new connections each time
        statuses = [client.get("/v1/environments", headers={"Connection": "close"}).status_code
                    for _ in range(20)]
    assert statuses == [200] * 20
    replaced = wait_for(lambda: len(server_processes(server.pid)) == 2
                        and server_processes(server.pid), seconds=60)
    assert first not in replaced and second in replaced
    with httpx.Client(base_url=server.url, headers=headers) as client:
        answers = [client.get("/v1/environments", headers={"Connection": "close"}).json()
                   for _ in range(20)]
    assert answers == [{"environments": []}] * 20
