"""The periodic jobs of the workers (:mod:`laguna.engine.periodic` runs each
once per period across all of them):

- ``expire-tokens``: tokens of the embedded identity that expired are deleted;
- ``expire-sessions``: configuration sessions opened and left untouched for
  :data:`SESSION_LIFETIME` are deleted (a deployed or failed one is history
  and stays);
- ``resend-tasks``: a task still ``queued`` :data:`RESEND_AFTER` after it was
  asked for is sent again: its first message may never have reached RabbitMQ
  (the broker was down, or the API process died between its commit and the
  send). A duplicate is harmless: a task runs only while it has not ended;
- ``check-running``: each ready environment that offers (or may offer: its
  actions are not kept in the store) a ``CheckRunning.check_running`` action
  (TOSCA's refresh, seed 003) gets a ``refresh`` task, which runs it on every
  node that has one, unless the environment already has a task waiting or
  running.
"""

from __future__ import annotations

import datetime
import logging

import sqlalchemy as sa
from dramatiq.brokers.rabbitmq import RabbitmqBroker

from laguna.engine.broker import task_message
from laguna.engine.handlers import CHECK_RUNNING, REFRESH
from laguna.engine.periodic import Job
from laguna.engine.tasks import QUEUED, RUNNING, utcnow
from laguna.store import identity, sessions
from laguna.store.db import Database
from laguna.store.models import EnvironmentRecord, TaskRecord

log = logging.getLogger(__name__)

SESSION_LIFETIME = datetime.timedelta(hours=24)
RESEND_AFTER = datetime.timedelta(minutes=2)


def housekeeping_jobs(database: Database, broker: RabbitmqBroker, *,
                      resend_after: datetime.timedelta = RESEND_AFTER,
                      check_running_every: datetime.timedelta = datetime.timedelta(minutes=5),
                      ) -> list[Job]:
    def expire_tokens() -> None:
        with database.session() as session:
            gone = identity.delete_expired(session, utcnow())
        if gone:
            log.info("expire-tokens: %d expired tokens deleted", gone)

    def expire_sessions() -> None:
        with database.session() as session:
            gone = sessions.delete_abandoned(session, utcnow() - SESSION_LIFETIME)
        if gone:
            log.info("expire-sessions: %d abandoned sessions deleted", gone)

    def resend() -> None:
        for task_id in stale_tasks(database, utcnow() - resend_after):
            broker.enqueue(task_message(task_id))
            log.warning("resend-tasks: task %s was still queued; sent again", task_id)

    def check_running() -> None:
        for task_id in queue_refreshes(database):
            broker.enqueue(task_message(task_id))

    return [Job("expire-tokens", datetime.timedelta(minutes=10), expire_tokens),
            Job("expire-sessions", datetime.timedelta(minutes=10), expire_sessions),
            Job("resend-tasks", max(resend_after / 2, datetime.timedelta(seconds=1)), resend),
            Job("check-running", check_running_every, check_running)]


def stale_tasks(database: Database, before: datetime.datetime) -> list[str]:
    with database.session() as session:
        return list(session.scalars(sa.select(TaskRecord.id).where(
            TaskRecord.state == QUEUED, TaskRecord.created < before)
            .order_by(TaskRecord.created)))


def may_offer_check_running(record: EnvironmentRecord) -> bool:
    """Whether the environment offers check_running, or may: its actions are
    kept in the store only when its front end lists them from the stored
    model alone (MuranoPL's); otherwise (TOSCA's) the refresh asks the front end."""
    kept = record.actions
    if kept is None or kept.get("actions") is None:
        return True
    return any(isinstance(action, dict) and action.get("name") == CHECK_RUNNING
               for action in kept["actions"])


def queue_refreshes(database: Database) -> list[str]:
    """A ``refresh`` task for each ready environment offering check_running and
    having no task waiting or running; their ids."""
    queued = []
    with database.session() as session:
        busy = set(session.scalars(sa.select(TaskRecord.environment_id).where(
            TaskRecord.state.in_((QUEUED, RUNNING)),
            TaskRecord.environment_id.is_not(None))))
        for record in session.scalars(sa.select(EnvironmentRecord).where(
                EnvironmentRecord.status == "ready")):
            if record.id in busy or not may_offer_check_running(record):
                continue
            task = TaskRecord(kind=REFRESH, project_id=record.project_id,
                              environment_id=record.id, state=QUEUED,
                              payload={"environment_id": record.id})
            session.add(task)
            session.flush()
            queued.append(task.id)
    return queued


