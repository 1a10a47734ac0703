"""Configuration sessions of the API: working copies of environment descriptions."""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.store.models import ConfigurationSession

OPENED = "opened"
DEPLOYING = "deploying"
DEPLOYED = "deployed"
DEPLOY_FAILURE = "deploy failure"
DELETING = "deleting"
DELETE_FAILURE = "delete failure"


def sessions_of(session: Session, environment_id: str,
                state: str | None = None) -> list[ConfigurationSession]:
    """An environment's sessions, newest version first, then last updated first
    (the order the environment's status is read in)."""
    query = sa.select(ConfigurationSession).where(
        ConfigurationSession.environment_id == environment_id)
    if state is not None:
        query = query.where(ConfigurationSession.state == state)
    return list(session.scalars(query.order_by(ConfigurationSession.version.desc(),
                                               ConfigurationSession.updated.desc())))


def has_state(session: Session, environment_id: str, state: str) -> bool:
    return session.scalar(sa.select(sa.func.count()).select_from(ConfigurationSession).where(
        ConfigurationSession.environment_id == environment_id,
        ConfigurationSession.state == state)) != 0


def open_session(session: Session, environment_id: str, version: int, user_id: str,
                 description: dict[str, t.Any], now: datetime.datetime,
                 state: str = OPENED) -> ConfigurationSession:
    """A new session of the environment holding ``description``."""
    record = ConfigurationSession(environment_id=environment_id, user_id=user_id, state=state,
                                  version=version, description=description, created=now,
                                  updated=now)
    session.add(record)
    session.flush()
    return record


def states_by_environment(session: Session,
                          environment_ids: t.Sequence[str]) -> dict[str, list[str]]:
    """The session states of many environments in one query, each in
    :func:`sessions_of`'s order."""
    found: dict[str, list[str]] = {environment_id: [] for environment_id in environment_ids}
    if not environment_ids:
        return found
    # by the session's connection: no ORM compilation for two plain columns
    rows = session.connection().execute(
        sa.select(ConfigurationSession.environment_id, ConfigurationSession.state)
        .where(ConfigurationSession.environment_id.in_(environment_ids))
        .order_by(ConfigurationSession.version.desc(), ConfigurationSession.updated.desc()))
    for environment_id, state in rows:
        found[environment_id].append(state)
    return found


def delete_abandoned(session: Session, before: datetime.datetime) -> int:
    """Delete the ``opened`` sessions nobody changed since ``before`` (never
    deployed, so they hold nothing an environment depends on); how many."""
    result = session.execute(sa.delete(ConfigurationSession).where(
        ConfigurationSession.state == OPENED, ConfigurationSession.updated < before))
    return int(getattr(result, "rowcount", 0) or 0)
