"""Handing work to the engine: a task row in the request's transaction, and the
queue woken once the answer is sent (the row is committed by then)."""

from __future__ import annotations

import typing as t

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from laguna.engine.handlers import ACTION, DEPLOY
from laguna.api.identity import RequestContext
from laguna.api.state import ApiState
from laguna.engine.tasks import QUEUED
from laguna.store.models import ConfigurationSession, EnvironmentRecord, TaskRecord


def _queue(session: Session, state: ApiState, background: BackgroundTasks, kind: str,
           context: RequestContext, record: EnvironmentRecord,
           payload: dict[str, t.Any]) -> TaskRecord:
    task = TaskRecord(kind=kind, project_id=record.project_id, environment_id=record.id,
                      payload=payload, state=QUEUED)
    session.add(task)
    session.flush()
    background.add_task(state.queue.notify, task.id)
    return task


def queue_deploy(session: Session, state: ApiState, background: BackgroundTasks,
                 context: RequestContext, record: EnvironmentRecord,
                 configuration: ConfigurationSession) -> TaskRecord:
    return _queue(session, state, background, DEPLOY, context, record,
                  {"environment_id": record.id, "session_id": configuration.id,
                   "user_id": context.user_id})


def queue_action(session: Session, state: ApiState, background: BackgroundTasks,
                 context: RequestContext, record: EnvironmentRecord,
                 configuration: ConfigurationSession, object_id: str, method: str,
                 arguments: t.Mapping[str, t.Any]) -> TaskRecord:
    return _queue(session, state, background, ACTION, context, record,
                  {"environment_id": record.id, "session_id": configuration.id,
                   "object_id": object_id, "method": method, "arguments": dict(arguments),
                   "user_id": context.user_id})
