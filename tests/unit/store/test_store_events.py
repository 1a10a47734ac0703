"""An environment's events read from the store after a cursor, and the wait for
the next ones (SQLite, and PostgreSQL when LAGUNA_TEST_PG_URL is set)."""

from __future__ import annotations

import datetime
import threading
import time
import typing as t

import pytest

from laguna.store import environments as repo
from laguna.store import events
from laguna.store.db import Database
from laguna.store.events import BEGINNING, Cursor, InvalidCursor, read_events
from laguna.store.models import DeploymentRecord, EnvironmentRecord
from laguna.store.notifications import Notifications

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0, 250000, tzinfo=datetime.timezone.utc)


def at(seconds: float) -> datetime.datetime:
    return T0 + datetime.timedelta(seconds=seconds)


class Story:
    """Writes an environment's life as the deployment service does, each step
    in its own transaction (as another process would)."""

    def __init__(self, database: Database, name: str = "shop", project: str = "p1") -> None:
        self.database = database
        with database.session() as session:
            self.environment_id = repo.create_environment(
                session, project, name, "pending", T0).id

    def start(self, when: float, operation: str = "deploy") -> str:
        with self.database.session() as session:
            record = session.get(EnvironmentRecord, self.environment_id)
            assert record is not None
            deployment = repo.add_deployment(session, DeploymentRecord(
                environment_id=self.environment_id, operation=operation, state="running",
                started=at(when), owner_host="h", owner_pid=1, owner_started="5"))
            record.status = "deploying"
            return deployment.id

    def report(self, deployment_id: str, text: str, when: float,
               level: str = "info", entity: str | None = "app") -> None:
        with self.database.session() as session:
            repo.append_report(session, deployment_id, level, text, entity, at(when))

    def finish(self, deployment_id: str, when: float, ok: bool = True) -> None:
        with self.database.session() as session:
            deployment = repo.get_deployment(session, deployment_id)
            record = session.get(EnvironmentRecord, self.environment_id)
            assert deployment is not None and record is not None
            deployment.state, deployment.finished = ("success" if ok else "failure"), at(when)
            record.status = "ready" if ok else "deploy failure"


def shapes(found: t.Sequence[events.Event]) -> list[tuple[str, dict[str, t.Any]]]:
    return [(event.kind, event.data) for event in found]


def read(database: Database, environment_id: str, cursor: Cursor) -> events.Batch:
    with database.read_session() as session:
        batch = read_events(session, environment_id, cursor)
    assert batch is not None
    return batch


def test_a_deployment_reads_as_start_reports_end_then_status(database: Database) -> None:
    story = Story(database)
    first = story.start(1)
    story.report(first, "Creating the server", 2)
    story.report(first, "Server is up", 3, level="warning", entity=None)
    story.finish(first, 4)
    batch = read(database, story.environment_id, BEGINNING)
    assert shapes(batch.events) == [
        ("deployment", {"deployment_id": first, "operation": "deploy", "state": "running",
                        "started": "2026-01-01T12:00:01.250000+00:00", "finished": None}),
        ("report", {"deployment_id": first, "position": 1, "level": "info",
                    "text": "Creating the server", "entity_id": "app",
                    "time": "2026-01-01T12:00:02.250000+00:00"}),
        ("report", {"deployment_id": first, "position": 2, "level": "warning",
                    "text": "Server is up", "entity_id": None,
                    "time": "2026-01-01T12:00:03.250000+00:00"}),
        ("deployment", {"deployment_id": first, "operation": "deploy", "state": "success",
                        "started": "2026-01-01T12:00:01.250000+00:00",
                        "finished": "2026-01-01T12:00:04.250000+00:00"}),
        ("status", {"status": "ready"}),
    ]
    assert batch.complete and not batch.running and batch.status == "ready"
    assert batch.cursor == batch.events[-1].cursor
    started = 1767268801250000   # 2026-01-01T12:00:01.25Z in µs
    assert [str(event.cursor) for event in batch.events] == [
        f"{started}:{first}:0:0:", f"{started}:{first}:1:0:", f"{started}:{first}:2:0:",
        f"{started}:{first}:2:1:", f"{started}:{first}:2:1:ready"]
    # nothing new: nothing read
    assert read(database, story.environment_id, batch.cursor).events == []


def test_resuming_from_any_event_gives_exactly_the_rest(database: Database) -> None:
    story = Story(database)
    first = story.start(1)
    story.report(first, "one", 2)
    story.finish(first, 3, ok=False)
    second = story.start(4, operation="action")
    story.report(second, "two", 5)
    story.report(second, "three", 6)
    everything = read(database, story.environment_id, BEGINNING).events
    assert [(e.kind, e.data.get("text") or e.data.get("state") or e.data.get("status"))
            for e in everything] == [
        ("deployment", "running"), ("report", "one"), ("deployment", "failure"),
        ("deployment", "running"), ("report", "two"), ("report", "three"),
        ("status", "deploying")]
    for index, event in enumerate(everything):
        resumed = read(database, story.environment_id, Cursor.parse(str(event.cursor)))
        assert shapes(resumed.events) == shapes(everything[index + 1:]), index
    story.finish(second, 7)
    rest = read(database, story.environment_id, everything[-1].cursor).events
    assert [(e.kind, e.data.get("state") or e.data.get("status")) for e in rest] == [
        ("deployment", "success"), ("status", "ready")]


def test_without_a_cursor_readers_start_at_the_last_deployment(database: Database) -> None:
    story = Story(database)
    with database.read_session() as session:
        assert events.before_last_deployment(session, story.environment_id) == BEGINNING
    first = story.start(1)
    story.finish(first, 2)
    second = story.start(3)
    story.report(second, "again", 4)
    with database.read_session() as session:
        cursor = events.before_last_deployment(session, story.environment_id)
    assert [(e.kind, e.data.get("deployment_id"), e.data.get("text"))
            for e in read(database, story.environment_id, cursor).events] == [
        ("deployment", second, None), ("report", second, "again"), ("status", None, None)]


def test_a_status_change_alone_is_an_event(database: Database) -> None:
    story = Story(database)
    cursor = read(database, story.environment_id, BEGINNING).cursor
    assert cursor.status == "pending"
    with database.session() as session:
        record = session.get(EnvironmentRecord, story.environment_id)
        assert record is not None
        record.status = "ready"
    assert shapes(read(database, story.environment_id, cursor).events) == [
        ("status", {"status": "ready"})]


def test_an_environment_gone_reads_as_none(database: Database) -> None:
    story = Story(database)
    with database.session() as session:
        session.delete(session.get(EnvironmentRecord, story.environment_id))
    with database.read_session() as session:
        assert read_events(session, story.environment_id, BEGINNING) is None
        assert read_events(session, "no-such-id", BEGINNING) is None


def test_long_histories_come_in_bounded_reads(database: Database,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    story = Story(database)
    for number in range(3):
        deployment = story.start(10 * number)
        for report in range(3):
            story.report(deployment, f"{number}.{report}", 10 * number + report + 1)
        story.finish(deployment, 10 * number + 5)
    whole = read(database, story.environment_id, BEGINNING).events
    monkeypatch.setattr(events, "REPORTS_PER_READ", 2)
    monkeypatch.setattr(events, "DEPLOYMENTS_PER_READ", 2)
    pieces: list[events.Event] = []
    cursor, reads = BEGINNING, 0
    while True:
        batch = read(database, story.environment_id, cursor)
        pieces += batch.events
        cursor, reads = batch.cursor, reads + 1
        if batch.complete:
            break
    assert shapes(pieces) == shapes(whole) and len(whole) == 3 * 5 + 1
    assert reads == 5


def test_cursors_read_back_and_bad_ones_are_refused() -> None:
    cursor = Cursor(started=17, deployment_id="a:b", position=3, ended=True,
                    status="deploy failure")
    assert str(cursor) == "17:a:b:3:1:deploy%20failure"
    assert Cursor.parse(str(cursor)) == cursor
    assert str(BEGINNING) == "0" and Cursor.parse("0") == BEGINNING
    assert Cursor.parse("::-1:0:ready") == Cursor(status="ready")
    for text in ["", "x", "1:2:3", "a:d:1:0:", "1:d:x:0:", "1:d:1:2:", ":d:1:0:"]:
        with pytest.raises(InvalidCursor, match="not an event cursor"):
            Cursor.parse(text)


# SQLite only: a PostgreSQL store publishes (the test below)
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_wait_without_notifications_lasts_its_interval(database: Database) -> None:
    hub = Notifications(database.engine)
    assert not hub.publishes
    with hub.subscribe("e1", interval=0.05) as subscription:
        began = time.monotonic()
        assert subscription.wait() is False
        assert 0.04 < time.monotonic() - began < 1
        hub.deliver("e1")
        assert subscription.wait() is True


# PostgreSQL only: SQLite publishes nothing
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_write_on_another_connection_wakes_the_subscriber(database: Database) -> None:
    story = Story(database)
    other = Story(database, name="other")
    hub = Notifications(database.engine)
    # only a notification can end these waits early
    with hub.subscribe(story.environment_id, interval=60) as subscription, \
            hub.subscribe(other.environment_id, interval=60) as bystander:
        deadline = time.monotonic() + 10
        while not hub.listening() and time.monotonic() < deadline:
            time.sleep(0.01)
        subscription.wait(0.5)    # the wake-up of every reader when LISTEN began
        bystander.wait(0.5)
        writer = threading.Thread(target=story.start, args=(1,))
        began = time.monotonic()
        writer.start()
        assert subscription.wait() is True
        assert time.monotonic() - began < 2
        writer.join()
        assert bystander.wait(0.2) is False
    deadline = time.monotonic() + 5
    while hub.listening() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not hub.listening()      # the last subscriber gone, the listener closed
