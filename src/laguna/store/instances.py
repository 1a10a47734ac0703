"""Instance statistics: when each instance (or application) of an environment
lived, for billing, as the original's ``instance_stats`` kept it.

The engine tracks a component when it is deployed and destroys it when it is
removed; times are whole seconds since the epoch. Durations run until the
component was destroyed, or until ``now`` while it lives.
"""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.store.models import InstanceStatRecord

#: the original's codes of what a row counts
UNCLASSIFIED = 0
APPLICATION = 100
INSTANCE = 200


def epoch_seconds(moment: datetime.datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp())


# Built once, on the table rather than the mapped class (no ORM bookkeeping): a
# running deployment tracks and untracks each of its components, and building a
# statement, or the ORM's unit of work, costs more than running it.
_STATS = t.cast(sa.Table, InstanceStatRecord.__table__)
# (an UPDATE's own bind names may not be column names)
_THIS_INSTANCE = sa.and_(_STATS.c.environment_id == sa.bindparam("the_environment"),
                         _STATS.c.instance_id == sa.bindparam("the_instance"))
_SET_UNIT_COUNT = sa.update(_STATS).where(_THIS_INSTANCE).values(
    unit_count=sa.bindparam("new_unit_count"))
_ADD = sa.insert(_STATS)
_DESTROY = sa.update(_STATS).where(_THIS_INSTANCE, _STATS.c.destroyed.is_(None)).values(
    destroyed=sa.bindparam("destroyed_at"))


def track_instance(session: Session, environment_id: str, project_id: str, instance_id: str,
                   instance_type: int, type_name: str, type_title: str | None,
                   unit_count: int | None, now: datetime.datetime) -> None:
    """Count ``instance_id`` as living from ``now``; one tracked before keeps its
    start and takes the new ``unit_count``, as the original did."""
    key = {"the_environment": environment_id, "the_instance": instance_id,
           "new_unit_count": unit_count}
    updated = session.execute(_SET_UNIT_COUNT, key)
    if t.cast(sa.CursorResult[t.Any], updated).rowcount:
        return
    row = {"environment_id": environment_id, "instance_id": instance_id,
           "project_id": project_id, "instance_type": instance_type,
           "type_name": type_name, "type_title": type_title, "unit_count": unit_count,
           "created": epoch_seconds(now), "destroyed": None}
    try:
        with session.begin_nested():
            session.execute(_ADD, row)
    except IntegrityError:
        # another writer added it since the update: it keeps its start
        session.execute(_SET_UNIT_COUNT, key)


def destroy_instance(session: Session, environment_id: str, instance_id: str,
                     now: datetime.datetime) -> None:
    """Mark ``instance_id`` destroyed at ``now`` (once: a later call changes nothing)."""
    session.execute(_DESTROY, {"the_environment": environment_id, "the_instance": instance_id,
                               "destroyed_at": epoch_seconds(now)})


def raw_stats(session: Session, environment_id: str, now: datetime.datetime,
              instance_id: str | None = None) -> list[dict[str, t.Any]]:
    """One entry per tracked component of the environment (or only ``instance_id``)."""
    query = sa.select(InstanceStatRecord).where(
        InstanceStatRecord.environment_id == environment_id)
    if instance_id is not None:
        query = query.where(InstanceStatRecord.instance_id == instance_id)
    current = epoch_seconds(now)
    return [{"type": record.instance_type,
             "duration": (record.destroyed or current) - record.created,
             "type_name": record.type_name, "unit_count": record.unit_count,
             "instance_id": record.instance_id, "type_title": record.type_title,
             "active": record.destroyed is None}
            for record in session.scalars(query.order_by(InstanceStatRecord.created,
                                                         InstanceStatRecord.instance_id))]


def aggregated_stats(session: Session, environment_id: str,
                     now: datetime.datetime) -> list[dict[str, int]]:
    """Per kind of component: how many were tracked and their total seconds."""
    lived = sa.func.coalesce(InstanceStatRecord.destroyed, epoch_seconds(now)) \
        - InstanceStatRecord.created
    rows = session.execute(
        sa.select(InstanceStatRecord.instance_type, sa.func.sum(lived), sa.func.count())
        .where(InstanceStatRecord.environment_id == environment_id)
        .group_by(InstanceStatRecord.instance_type)
        .order_by(InstanceStatRecord.instance_type))
    return [{"type": int(kind), "duration": int(duration), "count": int(count)}
            for kind, duration, count in rows]
