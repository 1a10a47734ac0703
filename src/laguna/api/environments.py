"""Environments as the API sees them: scoped lookups, creation, status and JSON views."""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.api import descriptions
from laguna.api.errors import ApiError, bad_request, conflict, forbidden, not_found
from laguna.api.identity import RequestContext
from laguna.api.timestamps import timestamp
from laguna.deploy.states import EnvironmentState
from laguna.store import sessions as session_store
from laguna.store.models import EnvironmentRecord

NAME_LIMIT = 255
NOT_AUTHORIZED = "User is not authorized to access these tenant resources"


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def check_environment(session: Session, context: RequestContext,
                      environment_id: str) -> EnvironmentRecord:
    """The environment, if the caller may see it: 404 when there is none, 403 when
    it is another project's (admins see every project's), as the original answered."""
    record = session.get(EnvironmentRecord, environment_id)
    if record is None:
        raise not_found(f"Environment with id {environment_id} not found")
    if record.project_id != context.project_id and not context.is_admin:
        raise forbidden(NOT_AUTHORIZED)
    return record


#: the columns an environment's view and description are made of: not its
#: outputs, components and actions (JSON the API does not show)
SHOWN_COLUMNS = (EnvironmentRecord.id, EnvironmentRecord.project_id, EnvironmentRecord.name,
                 EnvironmentRecord.status, EnvironmentRecord.version, EnvironmentRecord.created,
                 EnvironmentRecord.updated, EnvironmentRecord.model,
                 EnvironmentRecord.description, EnvironmentRecord.description_text)
_SHOWN = sa.select(*SHOWN_COLUMNS).where(EnvironmentRecord.id == sa.bindparam("id"))


def shown_environment(session: Session, context: RequestContext,
                      environment_id: str) -> EnvironmentRecord:
    """:func:`check_environment` for a read that changes nothing: the columns
    of :data:`SHOWN_COLUMNS` only, read by the session's connection without
    the ORM's compilation and identity map (a third of the cost of showing
    an environment); the record is detached, for reading."""
    row = session.connection().execute(_SHOWN, {"id": environment_id}).one_or_none()
    if row is None:
        raise not_found(f"Environment with id {environment_id} not found")
    record = EnvironmentRecord(**row._mapping)
    if record.project_id != context.project_id and not context.is_admin:
        raise forbidden(NOT_AUTHORIZED)
    return record


def refuse_taken_over(record: EnvironmentRecord) -> None:
    """403 for an operation (a session, a deploy, an action, a deletion that
    destroys) on an environment ``laguna takeover`` brought from Murano: its
    resources are on OpenStack, which no cloud driver of laguna's reaches; it
    can only be read and abandoned (docs/TAKEOVER.md)."""
    if record.status == EnvironmentState.TAKEN_OVER.value:
        raise forbidden(f"Environment {record.name!r} was deployed by Murano on OpenStack; "
                        "laguna has no OpenStack cloud driver yet: abandon it (delete it "
                        "with abandon=True)")


def checked_name(body: t.Any, missing: str) -> str:
    """The ``name`` of a create or rename body; 400 as the original answered."""
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise bad_request(missing)
    if len(name) > NAME_LIMIT:
        raise bad_request("Environment name should be 255 characters maximum")
    return name


def checked_description_text(body: t.Any) -> str | None:
    """``description_text`` of a create or update body (environments' and
    templates'), free text the original kept beside the model; None when absent."""
    text = body.get("description_text") if isinstance(body, dict) else None
    if text is not None and not isinstance(text, str):
        raise bad_request("description_text must be text")
    return text


def create_environment(session: Session, context: RequestContext, name: str,
                       objects: t.Mapping[str, t.Any] | None = None) -> EnvironmentRecord:
    """A new environment of the caller's project with the initial description
    (``objects``: more of the Environment object, e.g. a template's); 409 when
    the project has an environment of that name."""
    now = utcnow()
    record = EnvironmentRecord(
        project_id=context.project_id, name=name, status="ready", version=0, outputs={},
        components={}, created=now, updated=now,
        # the original kept it as a column, and in the model as the rest of the body
        description_text=checked_description_text(objects),
        description=descriptions.initial_description(name, context.project_id,
                                                     context.user_id, objects))
    try:
        with session.begin_nested():
            session.add(record)
            session.flush()
    except IntegrityError:
        raise conflict("Environment with specified name already exists") from None
    return record


def current_description(record: EnvironmentRecord) -> dict[str, t.Any]:
    """The environment's description: what was last deployed, else what the API made."""
    deployed = descriptions.from_engine(record.model)
    if deployed is not None:
        return deployed
    if record.description is not None:
        return record.description
    return descriptions.initial_description(record.name, record.project_id, "")


def status(session: Session, record: EnvironmentRecord,
           states: t.Sequence[str] | None = None) -> str:
    """The environment's status as the original read it from its sessions: a
    running deploy or delete first, then a failed one, then an open session
    (pending); no session: the store's own state. ``states``: the sessions'
    states in :func:`~laguna.store.sessions.sessions_of`'s order, when known."""
    if states is None:
        states = [c.state for c in session_store.sessions_of(session, record.id)]
    return status_of(record.status, states)


def status_of(stored: str, states: t.Sequence[str]) -> str:
    """:func:`status` of an environment whose own state is ``stored``."""
    has_opened = False
    for state in states:
        if state in (session_store.DEPLOYING, session_store.DELETING,
                     session_store.DEPLOY_FAILURE, session_store.DELETE_FAILURE):
            return state
        if state == session_store.OPENED:
            has_opened = True
        elif state == session_store.DEPLOYED:
            break
    if has_opened:
        return "pending"
    if stored in ("pending", "undeployed"):
        return "ready"
    return stored


def view(session: Session, record: EnvironmentRecord,
         states: t.Sequence[str] | None = None) -> dict[str, t.Any]:
    """The environment as the original's list and create answered it."""
    return {
        "id": record.id, "name": record.name, "created": timestamp(record.created),
        "updated": timestamp(record.updated), "tenant_id": record.project_id,
        "version": record.version, "status": status(session, record, states),
        "networking": {}, "description_text": record.description_text or "",
    }


def list_views(session: Session, project_id: str | None) -> list[dict[str, t.Any]]:
    """The environments of ``project_id`` (None: of every project) as
    :func:`view` shows them, oldest first, in two queries: their columns
    (not their models and descriptions, which a listing does not show), then
    their sessions' states."""
    columns = (EnvironmentRecord.id, EnvironmentRecord.name, EnvironmentRecord.created,
               EnvironmentRecord.updated, EnvironmentRecord.project_id,
               EnvironmentRecord.version, EnvironmentRecord.status,
               EnvironmentRecord.description_text)
    query = sa.select(*columns).order_by(EnvironmentRecord.created, EnvironmentRecord.id)
    if project_id is not None:
        query = query.where(EnvironmentRecord.project_id == project_id)
    rows = session.connection().execute(query).all()
    states = session_store.states_by_environment(session, [row[0] for row in rows])
    return [{"id": id_, "name": name, "created": timestamp(created),
             "updated": timestamp(updated), "tenant_id": project, "version": version,
             "status": status_of(stored, states[id_]), "networking": {},
             "description_text": text or ""}
            for id_, name, created, updated, project, version, stored, text in rows]


def api_error_for(error: descriptions.PathError, what: str) -> ApiError:
    return not_found(f"{what} not found: {error}")
