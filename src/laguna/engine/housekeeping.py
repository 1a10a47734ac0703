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
- ``watch``: each environment whose watch is due (``watch_due``, which its
  front end's last pass set to its earliest check or policy: TOSCA's
  ``check_running`` every ``period``, seed 003; an assembly's Integrity every
  ``integrityPeriod``) gets a ``refresh`` task, a
  watch pass (:meth:`laguna.deploy.service.Service.watch`), unless it already
  has a task waiting or running. The job runs every :data:`WATCH_EVERY`: a
  check is run at most that late.
"""

from __future__ import annotations

import datetime
import logging

import sqlalchemy as sa
from dramatiq.brokers.rabbitmq import RabbitmqBroker

from laguna.engine.broker import task_message
from laguna.engine.handlers import REFRESH
from laguna.engine.periodic import Job
from laguna.engine.tasks import QUEUED, RUNNING, utcnow
from laguna.store import identity, sessions
from laguna.store.db import Database
from laguna.store.models import EnvironmentRecord, TaskRecord

log = logging.getLogger(__name__)

SESSION_LIFETIME = datetime.timedelta(hours=24)
RESEND_AFTER = datetime.timedelta(minutes=2)
#: how often the ``watch`` job looks for environments due a watch pass
WATCH_EVERY = datetime.timedelta(seconds=5)
#: the states of environments that are watched (something is deployed and no
#: operation holds them)
WATCHED_STATES = ("ready", "deploy failure")


def housekeeping_jobs(database: Database, broker: RabbitmqBroker, *,
                      resend_after: datetime.timedelta = RESEND_AFTER,
                      watch_every: datetime.timedelta = WATCH_EVERY) -> list[Job]:
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

    def watch() -> None:
        for task_id in queue_watches(database, utcnow()):
            broker.enqueue(task_message(task_id))

    return [Job("expire-tokens", datetime.timedelta(minutes=10), expire_tokens),
            Job("expire-sessions", datetime.timedelta(minutes=10), expire_sessions),
            Job("resend-tasks", max(resend_after / 2, datetime.timedelta(seconds=1)), resend),
            Job("watch", watch_every, watch)]


def stale_tasks(database: Database, before: datetime.datetime) -> list[str]:
    with database.session() as session:
        return list(session.scalars(sa.select(TaskRecord.id).where(
            TaskRecord.state == QUEUED, TaskRecord.created < before)
            .order_by(TaskRecord.created)))


def queue_watches(database: Database, now: datetime.datetime) -> list[str]:
    """A ``refresh`` task (a watch pass) for each environment whose watch is due
    at ``now`` and that has no task waiting or running; their ids."""
    queued = []
    with database.session() as session:
        busy = set(session.scalars(sa.select(TaskRecord.environment_id).where(
            TaskRecord.state.in_((QUEUED, RUNNING)),
            TaskRecord.environment_id.is_not(None))))
        for record in session.scalars(sa.select(EnvironmentRecord).where(
                EnvironmentRecord.status.in_(WATCHED_STATES),
                EnvironmentRecord.watch_due.is_not(None),
                EnvironmentRecord.watch_due <= now)
                .order_by(EnvironmentRecord.watch_due)):
            if record.id in busy:
                continue
            task = TaskRecord(kind=REFRESH, project_id=record.project_id,
                              environment_id=record.id, state=QUEUED,
                              payload={"environment_id": record.id})
            session.add(task)
            session.flush()
            queued.append(task.id)
    return queued
