"""A running deployment's store writes, batched (SQLite, and PostgreSQL when set).

:class:`WriteBehind` and the :class:`StoreReporter` built on it: what is
committed when, in which order, and what a failed commit does.
"""

from __future__ import annotations

import datetime
import time
import typing as t

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.deploy.reporter import StoreReporter
from laguna.deploy.writebehind import WriteBehind
from laguna.store import environments as repo
from laguna.store.db import Database
from laguna.store.models import DeploymentRecord, EnvironmentRecord, InstanceStatRecord

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
#: long enough that the background thread never commits during a test
NEVER = 3600.0


def _names(database: Database) -> list[str]:
    with database.session() as session:
        return [e.name for e in repo.list_environments(session, "local")]


def _create(name: str) -> t.Callable[[Session], None]:
    def write(session: Session) -> None:
        repo.create_environment(session, "local", name, "pending", NOW)
    return write


def _eventually(check: t.Callable[[], bool], seconds: float = 10.0) -> bool:
    """Poll ``check`` (a background commit) for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


def test_writes_wait_until_flushed_then_commit_in_order(database: Database) -> None:
    runs: list[str] = []
    writes = WriteBehind(database, NEVER, limit=100)
    for name in ("b", "a", "c"):
        writes.add(lambda session, name=name: runs.append(name))   # type: ignore[misc]
        writes.add(_create(name))
    assert (_names(database), runs) == ([], [])
    writes.flush()
    assert (_names(database), runs) == (["a", "b", "c"], ["b", "a", "c"])
    writes.close()


def test_the_background_thread_commits_after_the_delay(database: Database) -> None:
    writes = WriteBehind(database, 0.05, limit=100)
    writes.add(_create("shop"))
    assert _eventually(lambda: _names(database) == ["shop"])
    writes.close()


def test_a_full_batch_commits_at_once(database: Database) -> None:
    writes = WriteBehind(database, NEVER, limit=3)
    writes.add(_create("a"))
    writes.add(_create("b"))
    assert _names(database) == []
    writes.add(_create("c"))
    assert _names(database) == ["a", "b", "c"]
    writes.close()


def test_a_write_with_a_waiting_once_key_is_dropped(database: Database) -> None:
    runs: list[str] = []
    writes = WriteBehind(database, NEVER, limit=100)
    writes.add(lambda session: runs.append("first"), once="map")
    writes.add(lambda session: runs.append("second"), once="map")
    writes.add(lambda session: runs.append("other"))
    writes.flush()
    assert runs == ["first", "other"]
    writes.add(lambda session: runs.append("after the flush"), once="map")
    writes.close()
    assert runs == ["first", "other", "after the flush"]


def test_close_commits_what_waits_and_refuses_more(database: Database) -> None:
    writes = WriteBehind(database, NEVER, limit=100)
    writes.add(_create("shop"))
    writes.close()
    assert _names(database) == ["shop"]
    with pytest.raises(RuntimeError) as raised:
        writes.add(_create("late"))
    assert str(raised.value) == "the deployment's store writes were already closed"


def test_a_failed_background_commit_is_raised_by_the_next_add(database: Database) -> None:
    def fail(session: Session) -> None:
        raise ValueError("disk full")

    writes = WriteBehind(database, 0.01, limit=100)
    writes.add(fail)
    writes.add(_create("lost"))     # same transaction as the failure: rolled back
    assert _eventually(lambda: writes._error is not None)
    with pytest.raises(ValueError) as raised:
        writes.add(_create("next"))
    assert str(raised.value) == "disk full"
    writes.close()
    assert _names(database) == []


def test_a_failed_commit_is_raised_by_close(database: Database) -> None:
    def fail(session: Session) -> None:
        raise ValueError("disk full")

    writes = WriteBehind(database, NEVER, limit=100)
    writes.add(fail)
    with pytest.raises(ValueError) as raised:
        writes.close()
    assert str(raised.value) == "disk full"


# -- the store reporter ----------------------------------------------------------------


def _running(database: Database) -> tuple[str, str]:
    """An environment with one stored component, and a running deployment of it."""
    with database.session() as session:
        environment = repo.create_environment(session, "local", "shop", "deploying", NOW)
        environment.components = {"db": {"type": "Db", "name": "db", "state": "started"}}
        deployment = repo.add_deployment(session, DeploymentRecord(
            environment_id=environment.id, operation="deploy", state="running", started=NOW,
            owner_host="h", owner_pid=1, owner_started="5"))
        return environment.id, deployment.id


def _reporter(database: Database, environment_id: str, deployment_id: str) -> StoreReporter:
    return StoreReporter(database, environment_id, "local", deployment_id, "shop",
                         lambda event: None, lambda: NOW)


def _stored(database: Database, environment_id: str,
            deployment_id: str) -> tuple[list[tuple[int, str, str | None]], dict[str, t.Any]]:
    with database.session() as session:
        reports = [(r.position, r.text, r.entity_id)
                   for r in repo.list_reports(session, deployment_id)]
        return reports, repo.get_components(session, environment_id) or {}


def test_reporter_reports_and_states_reach_the_store_at_close(database: Database,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setattr("laguna.deploy.reporter.FLUSH_AFTER", NEVER)
    environment_id, deployment_id = _running(database)
    reporter = _reporter(database, environment_id, deployment_id)
    reporter.component("web", "Web", "web", "creating")
    reporter.report("info", "creating web", "web")
    reporter.component("web", "Web", "web", "started")
    reporter.report("info", "web is up", "web")
    reporter.track("web", "application", "Web", "The web")
    reporter.untrack("web")
    assert _stored(database, environment_id, deployment_id) == (
        [], {"db": {"type": "Db", "name": "db", "state": "started"}})
    reporter.close()
    assert _stored(database, environment_id, deployment_id) == (
        [(1, "creating web", "web"), (2, "web is up", "web")],
        {"db": {"type": "Db", "name": "db", "state": "started"},
         "web": {"type": "Web", "name": "web", "state": "started"}})
    with database.session() as session:
        stat = session.scalars(sa.select(InstanceStatRecord)).one()
        assert (stat.instance_id, stat.type_name, stat.type_title, stat.destroyed) == (
            "web", "Web", "The web", stat.created)


def test_reporter_writes_are_visible_during_the_run(database: Database) -> None:
    environment_id, deployment_id = _running(database)
    reporter = _reporter(database, environment_id, deployment_id)
    reporter.component("web", "Web", "web", "creating")
    reporter.report("info", "creating web", "web")
    assert _eventually(lambda: _stored(database, environment_id, deployment_id) == (
        [(1, "creating web", "web")],
        {"db": {"type": "Db", "name": "db", "state": "started"},
         "web": {"type": "Web", "name": "web", "state": "creating"}}))
    reporter.component("web", "Web", "web", "started")
    assert _eventually(lambda: _stored(database, environment_id, deployment_id)[1]["web"] ==
                       {"type": "Web", "name": "web", "state": "started"})
    reporter.close()
