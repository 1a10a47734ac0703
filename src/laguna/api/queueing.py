"""Handing work to the engine: a task row in the request's transaction, and the
queue woken once the answer is sent (the row is committed by then)."""

from __future__ import annotations

import typing as t

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from laguna.engine.handlers import ACTION, DEPLOY
from laguna.api.identity import RequestContext
from laguna.api.state import ApiState
from laguna.engine.tasks import ENDED, QUEUED
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


#: how long a route waits for a task another process runs (a static action:
#: the sandbox's time limit, plus the queue's delay)
REMOTE_WAIT = 120.0
#: how often it looks at the task's record meanwhile
REMOTE_POLL = 0.05


def run_and_wait(state: ApiState, kind: str, project_id: str,
                 payload: dict[str, t.Any],
                 timeout: float = REMOTE_WAIT) -> dict[str, t.Any] | None:
    """Queue a task for the workers and wait for its end; its result (None:
    it had not ended within ``timeout`` seconds).

    For a route that answers a task's result (a static action, as the
    original's API waited on its engine over RPC) when the engine runs in
    other processes (``--broker``).
    """
    import tenacity

    with state.database.session() as session:
        task = TaskRecord(kind=kind, project_id=project_id, environment_id=None,
                          payload=payload, state=QUEUED)
        session.add(task)
        session.flush()
        task_id = task.id
    state.queue.notify(task_id)

    def ended() -> dict[str, t.Any] | None:
        with state.database.session() as session:
            record = session.get(TaskRecord, task_id)
            if record is None or record.state not in ENDED:
                return None
            return record.result or {}

    waiting = tenacity.Retrying(
        stop=tenacity.stop_after_delay(timeout), wait=tenacity.wait_fixed(REMOTE_POLL),
        retry=tenacity.retry_if_result(lambda result: result is None),
        retry_error_callback=lambda _state: None)
    found: dict[str, t.Any] | None = waiting(ended)
    return found
