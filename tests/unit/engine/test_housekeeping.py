"""The workers' periodic jobs on a real store."""

from __future__ import annotations

import datetime

import sqlalchemy as sa

from laguna.engine.handlers import REFRESH
from laguna.engine.housekeeping import SESSION_LIFETIME, queue_refreshes, stale_tasks
from laguna.engine.tasks import DONE, QUEUED, RUNNING
from laguna.store import identity, sessions
from laguna.store.db import Database
from laguna.store.models import ConfigurationSession, EnvironmentRecord, TaskRecord

NOW = datetime.datetime.now(datetime.timezone.utc)
CHECK = {"digest": "x", "actions": [
    {"object": "web", "object_name": "web", "object_type": "tosca.nodes.WebServer",
     "name": "CheckRunning.check_running", "arguments": [], "open": True}]}


def environment(database: Database, name: str, status: str = "ready",
                actions: dict[str, object] | None = None) -> str:
    with database.session() as session:
        record = EnvironmentRecord(project_id="p", name=name, status=status,
                                   language="tosca", actions=actions)
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


def test_ready_environments_offering_check_running_get_one_refresh(pg: Database) -> None:
    offers = environment(pg, "offers", actions=CHECK)
    environment(pg, "plain", actions={"digest": "x", "actions": []})
    # actions not kept in the store: the front end lists them, so it may offer one
    unkept = environment(pg, "unkept", actions=None)
    environment(pg, "failed", status="deploy failure", actions=CHECK)
    busy = environment(pg, "busy", actions=CHECK)
    with pg.session() as session:
        session.add(TaskRecord(kind="deploy", project_id="p", environment_id=busy,
                               payload={}, state=RUNNING))
    queued = queue_refreshes(pg)
    with pg.session() as session:
        tasks = [session.get(TaskRecord, task_id) for task_id in queued]
        assert sorted((t.kind, t.environment_id, t.payload["environment_id"])
                      for t in tasks if t is not None) == sorted(
            [(REFRESH, offers, offers), (REFRESH, unkept, unkept)])
    # its refresh is now waiting: none more until it ran
    assert queue_refreshes(pg) == []


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
