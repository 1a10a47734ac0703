"""Configuration sessions as the API uses them: validity, and the session a
request names in ``X-Configuration-Session``."""

from __future__ import annotations

import typing as t

from sqlalchemy.orm import Session

from laguna.api.environments import check_environment
from laguna.api.timestamps import timestamp
from laguna.api.errors import ApiError, bad_request, forbidden, not_found
from laguna.api.identity import RequestContext
from laguna.store import sessions as session_store
from laguna.store.models import ConfigurationSession, EnvironmentRecord


def valid(session: Session, record: EnvironmentRecord, configuration: ConfigurationSession) -> bool:
    """A session is valid while no other one was deployed since it was opened
    (the environment's version moved on) and, while open, none is deploying.
    A session that was deployed stays readable (its state is its history),
    although its own deployment moved the version on."""
    if configuration.state != session_store.OPENED:
        return True
    if record.version > configuration.version:
        return False
    if configuration.state == session_store.OPENED and (
            session_store.has_state(session, record.id, session_store.DEPLOYING)
            or session_store.has_state(session, record.id, session_store.DELETING)):
        return False
    return True


def invalid_message(session_id: str) -> str:
    return (f"Session <SessionId {session_id}> is invalid: environment has been updated or "
            "updating right now with other session")


def check_session(session: Session, context: RequestContext, environment_id: str,
                  session_id: str) -> tuple[EnvironmentRecord, ConfigurationSession]:
    """The session of the URL, with its environment: 404 when missing, 400 when it
    belongs to another environment, then the environment's own checks."""
    configuration = session.get(ConfigurationSession, session_id)
    if configuration is None:
        raise not_found(f"Session <SessionId {session_id}> is not found")
    if configuration.environment_id != environment_id:
        raise bad_request(f"Session <SessionId {session_id}> is not tied with Environment "
                          f"<EnvId {environment_id}>")
    return check_environment(session, context, environment_id), configuration


def editable_session(session: Session, context: RequestContext, environment_id: str,
                     session_id: str | None) -> tuple[EnvironmentRecord, ConfigurationSession]:
    """The session of ``X-Configuration-Session`` for a change: 400 without the
    header, 404 when unknown, 401 when another user's (the seed's table of
    "POST applications"), 403 when invalid or deploying."""
    record = check_environment(session, context, environment_id)
    if not session_id:
        raise bad_request("X-Configuration-Session header which indicates to the session "
                          "is missed")
    configuration = session.get(ConfigurationSession, session_id)
    if configuration is None or configuration.environment_id != environment_id:
        raise not_found(f"Session <SessionId {session_id}> is not found")
    owner_check(context, configuration)
    if not valid(session, record, configuration):
        raise forbidden(invalid_message(session_id))
    if configuration.state == session_store.DEPLOYING:
        raise forbidden(f"Session <SessionId {session_id}> is already in deployment state")
    return record, configuration


def session_view(configuration: ConfigurationSession) -> dict[str, t.Any]:
    return {"id": configuration.id, "environment_id": configuration.environment_id,
            "created": timestamp(configuration.created),
            "updated": timestamp(configuration.updated), "user_id": configuration.user_id,
            "version": configuration.version, "state": configuration.state}


def owner_check(context: RequestContext, configuration: ConfigurationSession) -> None:
    """Only the user who opened a session may read, change, delete or deploy it
    (401, the seed's code for each of these verbs)."""
    if configuration.user_id != context.user_id:
        raise ApiError(401, f"User <UserId {context.user_id}> is not authorized to access "
                            f"session <SessionId {configuration.id}>.")
