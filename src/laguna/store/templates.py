"""Environment templates: named sets of applications that environments are made from.

Functions over a session, like :mod:`laguna.store.environments`: callers own
the transaction. A template's ``description`` holds its applications under
``services``, as the original kept them. Names are unique per project; the
functions that could break that answer None (or False) instead of raising,
and leave the session as it was.
"""

from __future__ import annotations

import copy
import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.store.models import EnvironmentTemplateRecord

Json = t.Any


def get_template(session: Session, template_id: str) -> EnvironmentTemplateRecord | None:
    return session.get(EnvironmentTemplateRecord, template_id)


def list_templates(session: Session, project_id: str,
                   is_public: bool | None = None) -> list[EnvironmentTemplateRecord]:
    """The templates a project sees: its own and every public one; with
    ``is_public`` True only the public ones (of any project), with False only
    the project's private ones. Oldest first."""
    query = sa.select(EnvironmentTemplateRecord)
    if is_public is None:
        query = query.where(sa.or_(EnvironmentTemplateRecord.is_public.is_(True),
                                   EnvironmentTemplateRecord.project_id == project_id))
    elif is_public:
        query = query.where(EnvironmentTemplateRecord.is_public.is_(True))
    else:
        query = query.where(EnvironmentTemplateRecord.is_public.is_(False),
                            EnvironmentTemplateRecord.project_id == project_id)
    return list(session.scalars(query.order_by(EnvironmentTemplateRecord.created,
                                               EnvironmentTemplateRecord.id)))


def _flushed(session: Session, record: EnvironmentTemplateRecord) -> bool:
    """Write ``record`` now; False (and nothing written) when its project already
    has a template of its name."""
    try:
        with session.begin_nested():
            session.add(record)
            session.flush()
    except IntegrityError:
        return False
    return True


def create_template(session: Session, project_id: str, name: str, is_public: bool,
                    services: list[Json], now: datetime.datetime,
                    description_text: str | None = None) -> EnvironmentTemplateRecord | None:
    """A new template of ``project_id`` holding ``services``; None when the
    project has a template of that name."""
    record = EnvironmentTemplateRecord(
        project_id=project_id, name=name, is_public=is_public, version=0,
        description={"services": services}, created=now, updated=now,
        description_text=description_text)
    return record if _flushed(session, record) else None


def update_template(session: Session, record: EnvironmentTemplateRecord, *,
                    name: str | None = None, is_public: bool | None = None,
                    description_text: str | None = None, now: datetime.datetime) -> bool:
    """Rename the template, change whether it is public or its description
    text; False (the record unchanged) when the new name is taken in its project."""
    before = (record.name, record.is_public, record.description_text, record.updated)
    if name is not None:
        record.name = name
    if is_public is not None:
        record.is_public = is_public
    if description_text is not None:
        record.description_text = description_text
    record.updated = now
    if _flushed(session, record):
        return True
    record.name, record.is_public, record.description_text, record.updated = before
    return False


def save_services(session: Session, record: EnvironmentTemplateRecord,
                  services: list[Json], now: datetime.datetime) -> None:
    """Replace the template's applications."""
    description = dict(record.description or {})
    description["services"] = services
    # a new dict, so that the ORM sees the JSON column change
    record.description = description
    record.updated = now
    session.flush()


def services_of(record: EnvironmentTemplateRecord) -> list[Json]:
    """A copy of the template's applications, free to change."""
    services = (record.description or {}).get("services")
    return copy.deepcopy(services) if isinstance(services, list) else []


def delete_template(session: Session, record: EnvironmentTemplateRecord) -> None:
    session.delete(record)
    session.flush()
