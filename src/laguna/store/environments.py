"""Store operations on environments, deployments and status reports.

Functions over a session, like :mod:`laguna.store.packages`: callers own the
transaction. The environment lock is the ``acquired_by`` column: taken with a
conditional UPDATE (:func:`acquire`), so two processes racing for one
environment cannot both win, and released by :func:`release`.
"""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.store.models import (
    DeploymentRecord,
    EnvironmentPackage,
    EnvironmentRecord,
    StatusReport,
    new_id,
)
from laguna.store.names import LOCAL_PROJECT

__all__ = ["LOCAL_PROJECT", "acquire", "add_deployment", "add_packages", "add_report",
           "append_report", "create_environment", "find_environment", "get_components",
           "get_deployment", "last_deployment", "list_deployments", "list_environments",
           "list_reports", "release", "replace_packages", "write_components"]


def find_environment(session: Session, project: str, name: str) -> EnvironmentRecord | None:
    return session.scalars(sa.select(EnvironmentRecord).where(
        EnvironmentRecord.project_id == project, EnvironmentRecord.name == name)).one_or_none()


def create_environment(session: Session, project: str, name: str, status: str,
                       now: datetime.datetime,
                       environment_id: str | None = None) -> EnvironmentRecord:
    """Add an environment (with ``environment_id`` if given, else a new id); if
    another process just added one of that name, that one."""
    record = EnvironmentRecord(project_id=project, name=name, status=status, version=0,
                               outputs={}, components={}, created=now, updated=now)
    if environment_id is not None:
        record.id = environment_id
    try:
        with session.begin_nested():
            session.add(record)
            session.flush()
    except IntegrityError:
        found = find_environment(session, project, name)
        if found is None:
            raise
        return found
    return record


def list_environments(session: Session, project: str | None) -> list[EnvironmentRecord]:
    """``project``'s environments by name; None: every project's, by project and name."""
    query = sa.select(EnvironmentRecord).order_by(EnvironmentRecord.project_id,
                                                  EnvironmentRecord.name)
    if project is not None:
        query = query.where(EnvironmentRecord.project_id == project)
    return list(session.scalars(query))


def acquire(session: Session, environment_id: str, deployment_id: str,
            now: datetime.datetime) -> bool:
    """Claim the environment for ``deployment_id``; False when someone holds it."""
    result = session.execute(
        sa.update(EnvironmentRecord)
        .where(EnvironmentRecord.id == environment_id, EnvironmentRecord.acquired_by.is_(None))
        .values(acquired_by=deployment_id, acquired_at=now)
        .execution_options(synchronize_session=False))
    claimed = t.cast(sa.CursorResult[t.Any], result).rowcount == 1
    record = session.get(EnvironmentRecord, environment_id)
    if record is not None:
        session.refresh(record)
    return claimed


def release(session: Session, record: EnvironmentRecord) -> None:
    record.acquired_by = None
    record.acquired_at = None


def add_deployment(session: Session, record: DeploymentRecord) -> DeploymentRecord:
    session.add(record)
    session.flush()
    return record


def get_deployment(session: Session, deployment_id: str) -> DeploymentRecord | None:
    return session.get(DeploymentRecord, deployment_id)


def list_deployments(session: Session, environment_id: str) -> list[DeploymentRecord]:
    """An environment's deployments, oldest first."""
    return list(session.scalars(sa.select(DeploymentRecord).where(
        DeploymentRecord.environment_id == environment_id).order_by(
        DeploymentRecord.started, DeploymentRecord.id)))


def last_deployment(session: Session, environment_id: str) -> DeploymentRecord | None:
    return session.scalars(sa.select(DeploymentRecord).where(
        DeploymentRecord.environment_id == environment_id).order_by(
        DeploymentRecord.started.desc(), DeploymentRecord.id.desc()).limit(1)).one_or_none()


def add_report(session: Session, deployment_id: str, level: str, text: str,
               entity_id: str | None, time: datetime.datetime) -> StatusReport:
    """Append a report to a deployment (after its last one)."""
    last = session.scalar(sa.select(sa.func.max(StatusReport.position)).where(
        StatusReport.deployment_id == deployment_id))
    report = StatusReport(deployment_id=deployment_id, position=(last or 0) + 1, level=level,
                          text=text, entity_id=entity_id, time=time)
    session.add(report)
    session.flush()
    return report


# Built once, on the tables rather than the mapped classes (no ORM bookkeeping):
# a deployment's reporter runs them for every report, and building a statement
# (and its cache key) costs more than running it.
_REPORTS = t.cast(sa.Table, StatusReport.__table__)
_ENVIRONMENTS = t.cast(sa.Table, EnvironmentRecord.__table__)
_APPEND_REPORT = sa.insert(_REPORTS).values(
    id=sa.bindparam("id"), deployment_id=sa.bindparam("deployment_id"),
    position=sa.select(sa.func.coalesce(sa.func.max(_REPORTS.c.position), 0) + 1).where(
        _REPORTS.c.deployment_id == sa.bindparam("deployment_id")).scalar_subquery(),
    level=sa.bindparam("level"), text=sa.bindparam("text"),
    entity_id=sa.bindparam("entity_id"), time=sa.bindparam("time"))
_COMPONENTS = sa.select(_ENVIRONMENTS.c.components).where(
    _ENVIRONMENTS.c.id == sa.bindparam("environment_id"))
_SET_COMPONENTS = sa.update(_ENVIRONMENTS).where(
    _ENVIRONMENTS.c.id == sa.bindparam("environment_id")).values(
    components=sa.bindparam("components", type_=_ENVIRONMENTS.c.components.type))


def append_report(session: Session, deployment_id: str, level: str, text: str,
                  entity_id: str | None, time: datetime.datetime) -> None:
    """:func:`add_report` as one INSERT and no ORM object: what a running
    deployment's reporter calls for every report."""
    session.execute(_APPEND_REPORT, {"id": new_id(), "deployment_id": deployment_id,
                                     "level": level, "text": text, "entity_id": entity_id,
                                     "time": time})


def get_components(session: Session, environment_id: str) -> dict[str, t.Any] | None:
    """An environment's components (None if it is gone), reading that column only."""
    components = session.scalar(_COMPONENTS, {"environment_id": environment_id})
    return dict(components) if components is not None else None


def write_components(session: Session, environment_id: str,
                     components: t.Mapping[str, t.Any]) -> None:
    """Replace an environment's components, writing that column only."""
    session.execute(_SET_COMPONENTS, {"environment_id": environment_id,
                                      "components": dict(components)})


def list_reports(session: Session, deployment_id: str) -> list[StatusReport]:
    return list(session.scalars(sa.select(StatusReport).where(
        StatusReport.deployment_id == deployment_id).order_by(StatusReport.position)))


def replace_packages(session: Session, record: EnvironmentRecord,
                     packages: t.Iterable[tuple[str, str, bytes]]) -> None:
    """Make ``(name, version, archive)`` the environment's packages, in order."""
    record.package_rows.clear()
    session.flush()
    record.package_rows.extend(
        EnvironmentPackage(name=name, version=version, position=position, archive=archive)
        for position, (name, version, archive) in enumerate(packages))


def add_packages(session: Session, record: EnvironmentRecord,
                 packages: t.Iterable[tuple[str, str, bytes]]) -> None:
    """Add the ``(name, version, archive)`` the environment does not have yet, after its own."""
    have = {(row.name, row.version) for row in record.package_rows}
    position = len(record.package_rows)
    for name, version, archive in packages:
        if (name, version) not in have:
            have.add((name, version))
            record.package_rows.append(EnvironmentPackage(
                name=name, version=version, position=position, archive=archive))
            position += 1
