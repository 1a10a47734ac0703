"""Configuration sessions of the API: working copies of environment descriptions."""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.store.models import ConfigurationSession, EnvironmentRecord

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


def open_session(session: Session, record: EnvironmentRecord, user_id: str,
                 description: dict[str, t.Any]) -> ConfigurationSession:
    """A new session of ``user_id`` on the environment ``record``, opened on its
    current version and holding ``description`` as its working copy."""
    now = datetime.datetime.now(datetime.timezone.utc)
    configuration = ConfigurationSession(
        environment_id=record.id, user_id=user_id, state=OPENED, version=record.version,
        description=description, created=now, updated=now)
    session.add(configuration)
    session.flush()
    return configuration
