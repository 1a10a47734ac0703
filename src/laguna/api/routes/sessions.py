"""Configuration sessions: open (configure), show, delete and deploy."""

from __future__ import annotations

import copy
import typing as t

import sqlalchemy as sa
from fastapi import APIRouter, BackgroundTasks

from laguna.api.deps import Caller, State, Store
from laguna.api.environments import (
    check_environment,
    current_description,
    refuse_taken_over,
    status,
    utcnow,
)
from laguna.api.errors import forbidden
from laguna.api.queueing import queue_deploy
from laguna.api.sessions import check_session, invalid_message, owner_check, session_view, valid
from laguna.store import sessions as session_store
from laguna.store.models import ConfigurationSession, EnvironmentRecord

router = APIRouter(tags=["sessions"])


@router.post("/environments/{environment_id}/configure", summary="Open a session")
def configure(environment_id: str, context: Caller, session: Store) -> dict[str, t.Any]:
    record = check_environment(session, context, environment_id)
    refuse_taken_over(record)
    if status(session, record) in (session_store.DEPLOYING, session_store.DELETING):
        raise forbidden(f"Could not open session for environment <EnvId: {environment_id}>, "
                        "environment has deploying or deleting status.")
    configuration = session_store.open_session(
        session, record.id, record.version, context.user_id,
        copy.deepcopy(current_description(record)), utcnow())
    return session_view(configuration)


@router.get("/environments/{environment_id}/sessions",
            summary="The caller's open and deploying sessions of the environment",
            description="laguna's own (the original's clients kept the session they "
                        "opened): the caller's sessions still `opened` and valid, or "
                        "`deploying`, newest first, each as showing it answers plus "
                        "`changed`: whether its description differs from the environment's "
                        "current one (what deploying it would change).")
def open_sessions(environment_id: str, context: Caller,
                  session: Store) -> dict[str, list[dict[str, t.Any]]]:
    record = check_environment(session, context, environment_id)
    current = current_description(record)
    found = [c for c in session_store.sessions_of(session, record.id)
             if c.user_id == context.user_id and (
                 c.state == session_store.DEPLOYING
                 or (c.state == session_store.OPENED and valid(session, record, c)))]
    return {"sessions": [{**session_view(c), "changed": c.description != current}
                         for c in found]}


@router.get("/environments/{environment_id}/sessions/{session_id}", summary="Show a session")
def show(environment_id: str, session_id: str, context: Caller,
         session: Store) -> dict[str, t.Any]:
    record, configuration = check_session(session, context, environment_id, session_id)
    owner_check(context, configuration)
    refuse_taken_over(record)
    if not valid(session, record, configuration):
        raise forbidden(invalid_message(session_id))
    return session_view(configuration)


@router.delete("/environments/{environment_id}/sessions/{session_id}",
               summary="Delete a session")
def delete(environment_id: str, session_id: str, context: Caller, session: Store) -> None:
    _, configuration = check_session(session, context, environment_id, session_id)
    owner_check(context, configuration)
    if configuration.state == session_store.DEPLOYING:
        raise forbidden(f"Session <SessionId: {session_id}> is in deploying state and could "
                        "not be deleted")
    session.delete(configuration)
    return None


@router.post("/environments/{environment_id}/sessions/{session_id}/deploy",
             summary="Deploy a session")
def deploy(environment_id: str, session_id: str, context: Caller, session: Store, state: State,
           background: BackgroundTasks) -> None:
    # The environment's row is locked first (PostgreSQL; SQLite's writers are
    # serialised already), so two sessions deployed at once cannot both pass the
    # checks below: the second sees the first deploying and is invalid.
    session.execute(sa.select(EnvironmentRecord.id).where(
        EnvironmentRecord.id == environment_id).with_for_update())
    record, configuration = check_session(session, context, environment_id, session_id)
    owner_check(context, configuration)
    refuse_taken_over(record)
    if not valid(session, record, configuration):
        raise forbidden(invalid_message(session_id))
    if configuration.state != session_store.OPENED:
        raise forbidden(f"Session <SessionId {session_id}> is already deployed or deployment "
                        "is in progress")
    claimed = session.execute(
        sa.update(ConfigurationSession)
        .where(ConfigurationSession.id == session_id,
               ConfigurationSession.state == session_store.OPENED)
        .values(state=session_store.DEPLOYING, updated=utcnow())
        .execution_options(synchronize_session=False))
    if t.cast(sa.CursorResult[t.Any], claimed).rowcount != 1:
        raise forbidden(f"Session <SessionId {session_id}> is already deployed or deployment "
                        "is in progress")
    session.refresh(configuration)
    queue_deploy(session, state, background, context, record, configuration)
    return None
