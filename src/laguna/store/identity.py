"""The embedded identity: projects, users, their roles and tokens.

A token is a random string handed out once; the store keeps only its
SHA-256 digest, so a copy of the database gives no usable token.

A project's id is its name (and a user's too): the command line's
environments live in project ``local``, so a token of project ``local``
sees them through the API, and the CLI sees what that token deployed.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import secrets

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.store.models import MembershipRecord, ProjectRecord, TokenRecord, UserRecord


@dataclasses.dataclass(frozen=True)
class TokenOwner:
    """Whom a valid token speaks for."""

    project_id: str
    user_id: str
    is_admin: bool
    expires: datetime.datetime


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def ensure_project(session: Session, name: str) -> ProjectRecord:
    """The project named ``name``, created if missing."""
    record = session.scalars(sa.select(ProjectRecord).where(
        ProjectRecord.name == name)).one_or_none()
    if record is None:
        record = ProjectRecord(id=name, name=name)
        session.add(record)
        session.flush()
    return record


def ensure_user(session: Session, name: str) -> UserRecord:
    """The user named ``name``, created if missing."""
    record = session.scalars(sa.select(UserRecord).where(UserRecord.name == name)).one_or_none()
    if record is None:
        record = UserRecord(id=name, name=name)
        session.add(record)
        session.flush()
    return record


def ensure_membership(session: Session, project: ProjectRecord, user: UserRecord,
                      admin: bool) -> MembershipRecord:
    """The user's membership of the project; ``admin`` makes it an admin (never less)."""
    record = session.get(MembershipRecord, (project.id, user.id))
    if record is None:
        record = MembershipRecord(project_id=project.id, user_id=user.id, is_admin=admin)
        session.add(record)
    elif admin:
        record.is_admin = True
    session.flush()
    return record


def issue_token(session: Session, project: str, user: str, admin: bool,
                now: datetime.datetime, lifetime: datetime.timedelta) -> str:
    """A new token for ``user`` in ``project`` (both created if missing)."""
    project_record = ensure_project(session, project)
    user_record = ensure_user(session, user)
    membership = ensure_membership(session, project_record, user_record, admin)
    token = secrets.token_hex(32)
    session.add(TokenRecord(digest=digest(token), project_id=project_record.id,
                            user_id=user_record.id, is_admin=membership.is_admin,
                            created=now, expires=now + lifetime))
    session.flush()
    return token


def token_owner(session: Session, token: str, now: datetime.datetime) -> TokenOwner | None:
    """Whom ``token`` speaks for; None when it is unknown or expired."""
    record = session.get(TokenRecord, digest(token))
    if record is None:
        return None
    expires = record.expires
    if expires.tzinfo is None:  # SQLite gives back naive datetimes
        expires = expires.replace(tzinfo=datetime.timezone.utc)
    if expires <= now:
        return None
    return TokenOwner(record.project_id, record.user_id, record.is_admin, expires)


def delete_expired(session: Session, now: datetime.datetime) -> int:
    """Forget the tokens that expired; how many went."""
    result = session.execute(sa.delete(TokenRecord).where(TokenRecord.expires <= now))
    return int(getattr(result, "rowcount", 0) or 0)
