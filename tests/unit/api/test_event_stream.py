"""GET /v1/environments/{id}/events through a real uvicorn server, on SQLite and
(with LAGUNA_TEST_PG_URL) PostgreSQL: history, live events, resumption, scope,
the bound on open streams; on PostgreSQL, a write of another process carried
to the stream by NOTIFY alone."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import sys
import time
import typing as t
from pathlib import Path

import httpx
import pytest

from laguna.api.app import create_app
from laguna.api.settings import ApiSettings
from laguna.deploy.workdir import open_store
from laguna.engine.tasks import StoreTaskQueue
from laguna.store import events as store_events
from laguna.store.db import Database
from laguna.store.notifications import notifications
from tests.unit.api.sse import Served, SseEvent, Stream, token
from tests.unit.store.conftest import database_url, emptied  # noqa: F401 - the fixture, reused
from tests.unit.store.test_store_events import Story

SRC = Path(store_events.__file__).parents[2]


class Server:
    def __init__(self, served: Served, database: Database) -> None:
        self.served = served
        self.database = database
        self.token = token(database, "p1")

    def events_url(self, environment_id: str, query: str = "") -> str:
        return f"{self.served.url}/v1/environments/{environment_id}/events{query}"

    def stream(self, environment_id: str, query: str = "", token: str | None = None,
               last_event_id: str | None = None) -> Stream:
        headers = {"X-Auth-Token": token or self.token}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return Stream(self.events_url(environment_id, query), headers)


@pytest.fixture()
def serve(database_url: str, tmp_path: Path) -> t.Iterator[t.Callable[..., Server]]:  # noqa: F811
    database = open_store(database_url)
    running: list[Served] = []

    def idle(_settings: ApiSettings, database: Database) -> StoreTaskQueue:
        return StoreTaskQueue(database, {}, workers=0)

    def start(**settings: t.Any) -> Server:
        app = create_app(ApiSettings(workdir=tmp_path, database_url=database_url, workers=0,
                                     **settings), database=database, queue=idle)
        running.append(Served(app))
        return Server(running[-1], database)

    try:
        yield start
    finally:
        for served in running:
            served.stop()
        emptied(database)
        database.dispose()


def summary(events: t.Sequence[SseEvent]) -> list[tuple[str | None, t.Any]]:
    """Each event's kind and what tells it apart: a report's text, a deployment's
    state, the status."""
    return [(event.event, event.data.get("text") or event.data.get("state")
             or event.data.get("status")) for event in events]


def test_the_stream_sends_the_last_deployment_then_live_events(
        serve: t.Callable[..., Server]) -> None:
    server = serve()
    story = Story(server.database)
    old = story.start(1)
    story.finish(old, 2, ok=False)
    first = story.start(3)
    story.report(first, "Creating the server", 4)
    stream = server.stream(story.environment_id)
    try:
        assert stream.response.status_code == 200
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        history = stream.events(3)
        # the old deployment's start and end are left out: only the last one's
        assert [(e.id, e.event, e.data) for e in history] == [
            (str(e.cursor), e.kind, e.data) for e in read_all(server.database, story)[2:]]
        assert summary(history) == [("deployment", "running"),
                                    ("report", "Creating the server"),
                                    ("status", "deploying")]
        # written by another connection while the stream waits
        # a line break and non-ASCII text stay in the one data line, as JSON
        story.report(first, "Server is up\nat 10.0.0.5 — ok", 5)
        story.finish(first, 6)
        live = stream.events(3)
        assert summary(live) == [("report", "Server is up\nat 10.0.0.5 — ok"),
                                 ("deployment", "success"), ("status", "ready")]
        assert live[0].data == {"deployment_id": first, "position": 2, "level": "info",
                                "text": "Server is up\nat 10.0.0.5 — ok", "entity_id": "app",
                                "time": "2026-01-01T12:00:05.250000+00:00"}
        assert live[-1].id == str(read_all(server.database, story)[-1].cursor)
    finally:
        stream.close()


def read_all(database: Database, story: Story) -> list[store_events.Event]:
    with database.read_session() as session:
        batch = store_events.read_events(session, story.environment_id,
                                         store_events.BEGINNING)
    assert batch is not None
    return batch.events


def read_after(database: Database, story: Story, cursor: str) -> list[store_events.Event]:
    with database.read_session() as session:
        batch = store_events.read_events(session, story.environment_id,
                                         store_events.Cursor.parse(cursor))
    assert batch is not None
    return batch.events


def test_last_event_id_resumes_with_exactly_the_missed_events(
        serve: t.Callable[..., Server]) -> None:
    server = serve()
    story = Story(server.database)
    first = story.start(1)
    story.report(first, "one", 2)
    stream = server.stream(story.environment_id, "?since=0")
    try:
        seen = stream.events(3)
    finally:
        stream.close()
    assert summary(seen) == [("deployment", "running"), ("report", "one"),
                             ("status", "deploying")]
    # missed while disconnected
    story.report(first, "two", 3)
    story.finish(first, 4)
    second = story.start(5, operation="action")
    story.report(second, "three", 6)
    resumed = server.stream(story.environment_id, last_event_id=seen[-1].id)
    try:
        missed = resumed.events(4)
        # no status event: it went to ready and back to deploying while the client was
        # away, and the status the client has is the store's now
        assert summary(missed) == [("report", "two"), ("deployment", "success"),
                                   ("deployment", "running"), ("report", "three")]
        assert [(e.id, e.event, e.data) for e in missed] == [
            (str(e.cursor), e.kind, e.data)
            for e in read_after(server.database, story, seen[-1].id)]
        with pytest.raises(queue.Empty):     # and nothing more
            resumed.next(timeout=1)
    finally:
        resumed.close()
    # the since query takes the same cursors; the header wins over it
    again = server.stream(story.environment_id, f"?since={seen[0].id}",
                          last_event_id=missed[-2].id)
    try:
        assert summary(again.events(1)) == [("report", "three")]
    finally:
        again.close()


def test_the_stream_is_scoped_as_the_environment_itself(serve: t.Callable[..., Server]) -> None:
    server = serve()
    story = Story(server.database, project="p1")
    other = token(server.database, "p2", "u2")
    for environment_id, caller, expected in [(story.environment_id, other, 403),
                                             ("no-such-environment", server.token, 404)]:
        headers = {"X-Auth-Token": caller}
        shown = httpx.get(f"{server.served.url}/v1/environments/{environment_id}",
                          headers=headers)
        streamed = httpx.get(server.events_url(environment_id), headers=headers)
        assert streamed.status_code == shown.status_code == expected
        assert streamed.json() == shown.json()
    assert httpx.get(server.events_url(story.environment_id)).status_code == 401
    refused = httpx.get(server.events_url(story.environment_id, "?since=nonsense"),
                        headers={"X-Auth-Token": server.token})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "not an event cursor: 'nonsense'"


def test_streams_over_the_bound_answer_503_until_one_closes(
        serve: t.Callable[..., Server]) -> None:
    server = serve(max_event_streams=2)
    story = Story(server.database)
    state = server.served.server.config.app.state.laguna
    opened = [server.stream(story.environment_id) for _ in range(2)]
    try:
        for stream in opened:
            assert summary(stream.events(1)) == [("status", "pending")]
        refused = httpx.get(server.events_url(story.environment_id),
                            headers={"X-Auth-Token": server.token})
        assert refused.status_code == 503
        assert refused.json()["error"]["message"] == (
            "Too many event streams are open: the limit (max_event_streams) is 2; "
            "try again later")
        assert state.streams.open == 2
        opened.pop().close()
        deadline = time.monotonic() + 5
        while state.streams.open != 1:      # freed when the server sees the disconnection
            assert time.monotonic() < deadline, state.streams.open
            time.sleep(0.02)
        opened.append(server.stream(story.environment_id))
        assert opened[-1].response.status_code == 200
    finally:
        for stream in opened:
            stream.close()


def test_an_idle_stream_sends_keep_alive_comments(serve: t.Callable[..., Server]) -> None:
    server = serve(event_keepalive=0.2)
    story = Story(server.database)
    stream = server.stream(story.environment_id)
    try:
        assert summary(stream.events(1)) == [("status", "pending")]
        assert stream.next(timeout=3) == ": keep-alive"
    finally:
        stream.close()


def test_a_deleted_environment_ends_its_stream(serve: t.Callable[..., Server]) -> None:
    server = serve()
    story = Story(server.database)
    stream = server.stream(story.environment_id)
    try:
        assert summary(stream.events(1)) == [("status", "pending")]
        with server.database.session() as session:
            from laguna.store.models import EnvironmentRecord
            session.delete(session.get(EnvironmentRecord, story.environment_id))
        last = stream.events(1)[0]
        assert (last.event, last.data) == ("status", {"status": None})
        assert stream.next() is None
    finally:
        stream.close()


# A report written by another process, carried by NOTIFY: the stream's poll
# interval is so long that only a notification can bring it in time.
WRITER = """
import datetime, sys
from laguna.store.db import Database
from laguna.store import environments as repo
database = Database(sys.argv[1])
with database.session() as session:
    repo.append_report(session, sys.argv[2], "info", "from another process", None,
                       datetime.datetime(2026, 1, 1, 13, tzinfo=datetime.timezone.utc))
database.dispose()
"""


# PostgreSQL only: SQLite publishes nothing (its streams poll)
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_report_of_another_process_arrives_by_notification(
        serve: t.Callable[..., Server], database_url: str) -> None:  # noqa: F811
    server = serve(event_poll_interval=1000.0, event_keepalive=1000.0)
    story = Story(server.database)
    first = story.start(1)
    stream = server.stream(story.environment_id)
    try:
        assert summary(stream.events(2)) == [("deployment", "running"),
                                             ("status", "deploying")]
        hub = notifications(server.database.engine)
        deadline = time.monotonic() + 10
        while not hub.listening():
            assert time.monotonic() < deadline, "the listener did not start"
            time.sleep(0.01)
        time.sleep(0.3)    # past the listener's first wake-up of every reader
        subprocess.run([sys.executable, "-c", WRITER, database_url, first], check=True,
                       env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}, timeout=60)
        written = time.monotonic()
        arrived = stream.events(1, timeout=5)
        assert time.monotonic() - written < 2
        assert [(e.event, e.data) for e in arrived] == [
            ("report", {"deployment_id": first, "position": 1, "level": "info",
                        "text": "from another process", "entity_id": None,
                        "time": "2026-01-01T13:00:00+00:00"})]
    finally:
        stream.close()


def test_the_document_describes_the_stream() -> None:
    from laguna.api.openapi import document
    operation = document()["paths"]["/v1/environments/{environment_id}/events"]["get"]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert [p["name"] for p in operation["parameters"]] == [
        "environment_id", "since", "Last-Event-ID", "x-auth-token"]
    json.dumps(operation)


def test_status_watch_follows_the_stream_of_a_remote_server(
        serve: t.Callable[..., Server]) -> None:
    from click.testing import CliRunner

    from laguna.cli.main import cli

    server = serve()
    story = Story(server.database)
    first = story.start(1)
    story.report(first, "Creating the server", 2)
    state = server.served.server.config.app.state.laguna

    def deploy_goes_on() -> None:
        deadline = time.monotonic() + 10
        while state.streams.open == 0:      # the command is following the stream
            assert time.monotonic() < deadline
            time.sleep(0.01)
        story.report(first, "Server is up", 3, entity=None)
        story.finish(first, 4, ok=False)

    writer = threading.Thread(target=deploy_goes_on)
    writer.start()
    try:
        result = CliRunner().invoke(cli, ["status", "shop", "--watch", "--check",
                                          "--api", server.served.url],
                                    env={"LAGUNA_TOKEN": server.token})
    finally:
        writer.join()
    assert (result.exit_code, result.stdout.splitlines()) == (1, [
        f"environment shop ({story.environment_id}): deploying",
        f"2026-01-01T12:00:01.250000Z deploy started (deployment {first})",
        "2026-01-01T12:00:02.250000Z info app: Creating the server",
        "2026-01-01T12:00:03.250000Z info: Server is up",
        "2026-01-01T12:00:04.250000Z deploy finished: failure",
    ]), result.output


def test_status_api_needs_watch_and_a_known_environment(serve: t.Callable[..., Server]) -> None:
    from click.testing import CliRunner

    from laguna.cli.main import cli

    server = serve()
    runner = CliRunner()
    alone = runner.invoke(cli, ["status", "shop", "--api", server.served.url])
    assert alone.exit_code == 2 and "--api follows a remote event stream: it needs --watch" \
        in alone.output
    missing = runner.invoke(cli, ["status", "nope", "--watch", "--api", server.served.url,
                                  "--token", server.token])
    assert (missing.exit_code, missing.stderr.strip()) == (
        2, f"error[LAG-E1305]: environment 'nope' not found at {server.served.url} "
           "(the token's project) [api_unusable]")
    refused = runner.invoke(cli, ["status", "nope", "--watch", "--api", server.served.url,
                                  "--token", "wrong"])
    assert refused.exit_code == 2 and "the API answered 401" in refused.stderr
