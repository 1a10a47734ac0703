"""The workers' periodic jobs on a real store."""

from __future__ import annotations

import datetime
from pathlib import Path

import sqlalchemy as sa

from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.engine.handlers import REFRESH
from laguna.deploy.workdir import Workdir
from laguna.engine.housekeeping import SESSION_LIFETIME, queue_watches, stale_tasks
from laguna.engine.tasks import DONE, QUEUED, RUNNING
from laguna.frontends.assembly import AssemblyFrontend
from laguna.store import identity, sessions
from laguna.store.db import Database
from laguna.store.models import ConfigurationSession, EnvironmentRecord, TaskRecord

NOW = datetime.datetime.now(datetime.timezone.utc)
def environment(database: Database, name: str, status: str = "ready",
                watch_due: datetime.datetime | None = None) -> str:
    with database.session() as session:
        record = EnvironmentRecord(project_id="p", name=name, status=status,
                                   language="tosca", watch_due=watch_due)
        session.add(record)
        session.flush()
        return record.id


def test_tasks_queued_too_long_are_found_for_resending(pg: Database) -> None:
    with pg.session() as session:
        old = TaskRecord(kind="deploy", project_id="p", payload={}, state=QUEUED,
                         created=NOW - datetime.timedelta(minutes=5))
        new = TaskRecord(kind="deploy", project_id="p", payload={}, state=QUEUED, created=NOW)
        ran = TaskRecord(kind="deploy", project_id="p", payload={}, state=DONE,
                         created=NOW - datetime.timedelta(minutes=5))
        session.add_all([old, new, ran])
        session.flush()
        old_id = old.id
    assert stale_tasks(pg, NOW - datetime.timedelta(minutes=2)) == [old_id]


def test_environments_due_a_watch_get_one_refresh(tmp_path: Path) -> None:
    """The ``watch`` job's sweep (on SQLite here, as `laguna worker` over a working
    directory's store): each environment whose watch is due and that no task
    holds gets one ``refresh`` task; one due later, one not watched, one
    undeployed and one busy get none."""
    database = Workdir(tmp_path).open_store()
    try:
        due = environment(database, "due", watch_due=NOW - datetime.timedelta(seconds=1))
        failed = environment(database, "failed", status="deploy failure", watch_due=NOW)
        environment(database, "later", watch_due=NOW + datetime.timedelta(seconds=5))
        environment(database, "unwatched")
        environment(database, "gone", status="undeployed", watch_due=NOW)
        busy = environment(database, "busy", watch_due=NOW)
        with database.session() as session:
            session.add(TaskRecord(kind="deploy", project_id="p", environment_id=busy,
                                   payload={}, state=RUNNING))
        queued = queue_watches(database, NOW)
        with database.session() as session:
            tasks = [session.get(TaskRecord, task_id) for task_id in queued]
            assert [(t.kind, t.environment_id, t.payload["environment_id"])
                    for t in tasks if t is not None] == [
                (REFRESH, due, due), (REFRESH, failed, failed)]
        # their passes are now waiting: none more until they ran
        assert queue_watches(database, NOW) == []
    finally:
        database.dispose()


def test_expired_tokens_and_abandoned_sessions_go(pg: Database) -> None:
    env = environment(pg, "e")
    with pg.session() as session:
        identity.issue_token(session, "p", "u", False, NOW - datetime.timedelta(days=2),
                             datetime.timedelta(hours=1))
        kept = identity.issue_token(session, "p", "u", False, NOW, datetime.timedelta(hours=1))
        sessions.open_session(session, env, 1, "u", {}, NOW - SESSION_LIFETIME * 2)
        sessions.open_session(session, env, 1, "u", {}, NOW)
        sessions.open_session(session, env, 1, "u", {}, NOW - SESSION_LIFETIME * 2,
                              state=sessions.DEPLOYED)
    with pg.session() as session:
        assert identity.delete_expired(session, NOW) == 1
        assert sessions.delete_abandoned(session, NOW - SESSION_LIFETIME) == 1
    with pg.session() as session:
        assert identity.token_owner(session, kept, NOW) is not None
        assert sorted(s.state for s in session.scalars(sa.select(ConfigurationSession))) == \
            ["deployed", "opened"]


WATCHED = Path(__file__).parents[2] / "e2e" / "assembly_watch"


def test_an_assembly_with_integrity_checks_is_due_a_watch_every_period(
        tmp_path: Path) -> None:
    """An assembly whose resources declare Integrity is selected by the ``watch``
    job as a TOSCA deployment is: due at once after its deploy, then every
    ``integrityPeriod`` its passes set (real scripts: the e2e daemon package)."""
    clock = [NOW]
    service = Service(Workdir(tmp_path), FrontendRegistry([AssemblyFrontend()]),
                      clock=lambda: clock[0])
    try:
        deployed = service.deploy(WATCHED / "watched.yaml", PrepareOptions(
            libs=(WATCHED,), name="w", settings={"integrityPeriod": "30"}))
        assert (deployed.status, deployed.state) == ("ok", "ready"), deployed.error
        database = Workdir(tmp_path).open_store()
        try:
            with database.session() as session:
                record = session.scalars(sa.select(EnvironmentRecord)).one()
                env_id = record.id
            (task,) = queue_watches(database, NOW)
            with database.session() as session:
                queued = session.get(TaskRecord, task)
                assert queued is not None
                assert (queued.kind, queued.environment_id) == (REFRESH, env_id)
                queued.state = DONE     # the worker ran it: the pass below
            result, due = service.watch("w")
            assert (result.status, due) == ("ok", NOW + datetime.timedelta(seconds=30))
            assert queue_watches(database, NOW + datetime.timedelta(seconds=29)) == []
            assert len(queue_watches(database, NOW + datetime.timedelta(seconds=30))) == 1
        finally:
            database.dispose()
    finally:
        service.undeploy("w")
