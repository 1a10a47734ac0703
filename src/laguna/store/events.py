"""An environment's events, read from the store after a cursor.

The events are what the store keeps, in the order they happened: for each
deployment of the environment (by start), its start, its status reports (by
position), its end; after them, the environment's status when it differs
from the last one sent. Any process reads them the same way, whoever wrote
them: the API's event stream and ``laguna status --watch`` are two readers.

The **cursor** says what a reader has been given, so that it can resume
(an SSE client sends it back as ``Last-Event-ID``): the last deployment it
saw (its start time and id), how far into it (``-1`` nothing yet, ``0`` its
start, ``n`` its reports up to position ``n``), whether its end was sent, and
the status last sent. Each event carries the cursor just after it. In text:
``<start, µs since the epoch>:<deployment id>:<position>:<ended 0|1>:<status>``
(the status percent-encoded; empty fields where nothing was seen); ``0`` is
the beginning, before everything.

The status is the store's current value, not a history: statuses that came
and went between two reads are not sent, only the one found (deployments'
ends carry their outcome). Deployments are ordered by their start time as
their processes' clocks wrote it (then by id): one environment's
deployments run one at a time, so only clocks apart by more than the gap
between two of them could reorder them.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t
import urllib.parse

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.store.errors import INVALID_CURSOR, StoreError
from laguna.store.models import DeploymentRecord, EnvironmentRecord, StatusReport

__all__ = ["BEGINNING", "REPORT", "DEPLOYMENT", "STATUS", "Batch", "Cursor", "Event",
           "InvalidCursor", "before_last_deployment", "read_events"]

#: the kinds of events (the SSE ``event:`` field)
REPORT = "report"
DEPLOYMENT = "deployment"
STATUS = "status"

#: how many deployments and reports one read returns at most; a longer
#: history comes in several reads (:attr:`Batch.complete` False)
DEPLOYMENTS_PER_READ = 100
REPORTS_PER_READ = 1000

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class InvalidCursor(StoreError, ValueError):
    """A cursor's text that no reader wrote."""

    code = INVALID_CURSOR


def _micros(time: datetime.datetime) -> int:
    if time.tzinfo is None:      # SQLite gives the UTC it was given, without its zone
        time = time.replace(tzinfo=datetime.timezone.utc)
    return (time - _EPOCH) // datetime.timedelta(microseconds=1)


def _utc(time: datetime.datetime) -> datetime.datetime:
    return time if time.tzinfo is not None else time.replace(tzinfo=datetime.timezone.utc)


@dataclasses.dataclass(frozen=True)
class Cursor:
    """What a reader has been given (see the module's docstring)."""

    #: the last deployment seen: its start (µs since the epoch) and id; None: none
    started: int | None = None
    deployment_id: str | None = None
    #: how far into that deployment: -1 nothing, 0 its start, n its reports to n
    position: int = -1
    #: whether that deployment's end was sent
    ended: bool = False
    #: the environment's status last sent; None: none yet
    status: str | None = None

    def __str__(self) -> str:
        if self == BEGINNING:
            return "0"
        started = "" if self.started is None else str(self.started)
        status = "" if self.status is None else urllib.parse.quote(self.status, safe="")
        return (f"{started}:{self.deployment_id or ''}:{self.position}:{int(self.ended)}:"
                f"{status}")

    @classmethod
    def parse(cls, text: str) -> Cursor:
        """The cursor ``text`` names; :class:`InvalidCursor` if none does."""
        if text.strip() == "0":
            return BEGINNING
        try:
            started, rest = text.strip().split(":", 1)
            # the status is encoded (no ':'), an id might not be: split from the right
            deployment, position, ended, status = rest.rsplit(":", 3)
            if ended not in ("0", "1") or bool(started) != bool(deployment):
                raise ValueError(text)
            return cls(started=int(started) if started else None,
                       deployment_id=deployment or None, position=int(position),
                       ended=ended == "1",
                       status=urllib.parse.unquote(status) if status else None)
        except ValueError:
            raise InvalidCursor(f"not an event cursor: {text!r}") from None


#: before every event of an environment
BEGINNING = Cursor()


@dataclasses.dataclass(frozen=True)
class Event:
    """One event: its kind, its JSON data and the cursor just after it."""

    kind: str
    data: dict[str, t.Any]
    cursor: Cursor


@dataclasses.dataclass(frozen=True)
class Batch:
    """What one read found: the events and the cursor after them."""

    events: list[Event]
    cursor: Cursor
    #: False when the read stopped at its bounds: read again at once for the rest
    complete: bool = True
    #: the environment's status now
    status: str | None = None
    #: whether a deployment of the environment is running (as read)
    running: bool = False


def _time(value: datetime.datetime | None) -> str | None:
    return None if value is None else _utc(value).isoformat()


def before_last_deployment(session: Session, environment_id: str) -> Cursor:
    """The cursor just before the environment's last deployment (the beginning
    when it has none): a reader from there gets that deployment whole."""
    last = session.execute(
        sa.select(DeploymentRecord.started, DeploymentRecord.id)
        .where(DeploymentRecord.environment_id == environment_id)
        .order_by(DeploymentRecord.started.desc(), DeploymentRecord.id.desc()).limit(1)).first()
    if last is None:
        return BEGINNING
    return Cursor(started=_micros(last.started), deployment_id=last.id, position=-1)


def read_events(session: Session, environment_id: str, cursor: Cursor) -> Batch | None:
    """The events of the environment after ``cursor``, in two queries; None
    when there is no such environment (any more)."""
    deployments = _deployments(session, environment_id, cursor)
    if deployments is None:
        return None
    status, rows = deployments
    more_deployments = len(rows) > DEPLOYMENTS_PER_READ
    rows = rows[:DEPLOYMENTS_PER_READ]
    reports = _reports(session, cursor, [row.id for row in rows])
    more_reports = len(reports) > REPORTS_PER_READ
    reports = reports[:REPORTS_PER_READ]
    by_deployment: dict[str, list[t.Any]] = {}
    for report in reports:
        by_deployment.setdefault(report.deployment_id, []).append(report)
    last_with_reports = reports[-1].deployment_id if reports else None

    events: list[Event] = []
    running = any(row.finished is None for row in rows)
    for row in rows:
        started = _micros(row.started)
        same = row.id == cursor.deployment_id and started == cursor.started
        position = cursor.position if same else -1
        ended = cursor.ended if same else False
        deployment = {"deployment_id": row.id, "operation": row.operation}
        if position < 0:
            position = 0
            cursor = Cursor(started, row.id, position, False, cursor.status)
            events.append(Event(DEPLOYMENT, {**deployment, "state": "running",
                                             "started": _time(row.started),
                                             "finished": None}, cursor))
        for report in by_deployment.get(row.id, ()):
            cursor = dataclasses.replace(cursor, position=report.position)
            events.append(Event(REPORT, {
                "deployment_id": row.id, "position": report.position, "level": report.level,
                "text": report.text, "entity_id": report.entity_id,
                "time": _time(report.time)}, cursor))
        if more_reports and row.id == last_with_reports:
            # its other reports (and its end) were left for the next read
            return Batch(events, cursor, complete=False, status=status, running=running)
        if row.finished is not None and not ended:
            cursor = dataclasses.replace(cursor, ended=True)
            events.append(Event(DEPLOYMENT, {**deployment, "state": row.state,
                                             "started": _time(row.started),
                                             "finished": _time(row.finished)}, cursor))
    if more_deployments:
        return Batch(events, cursor, complete=False, status=status, running=running)
    if status != cursor.status:
        cursor = dataclasses.replace(cursor, status=status)
        events.append(Event(STATUS, {"status": status}, cursor))
    return Batch(events, cursor, status=status, running=running)


_DEPLOYMENTS = t.cast(sa.Table, DeploymentRecord.__table__)
_ENVIRONMENTS = t.cast(sa.Table, EnvironmentRecord.__table__)
_REPORTS = t.cast(sa.Table, StatusReport.__table__)


def _after(cursor: Cursor) -> sa.ColumnElement[bool]:
    """The deployments from the cursor's on (itself included: its rest)."""
    if cursor.started is None or cursor.deployment_id is None:
        return sa.true()
    started = _EPOCH + datetime.timedelta(microseconds=cursor.started)
    return sa.or_(_DEPLOYMENTS.c.started > started,
                  sa.and_(_DEPLOYMENTS.c.started == started,
                          _DEPLOYMENTS.c.id >= cursor.deployment_id))


def _deployments(session: Session, environment_id: str,
                 cursor: Cursor) -> tuple[str, list[t.Any]] | None:
    # one statement for the status and the deployments, so that both are of
    # one moment: a deployment read running comes with the status it set
    joined = _ENVIRONMENTS.outerjoin(_DEPLOYMENTS, sa.and_(
        _DEPLOYMENTS.c.environment_id == _ENVIRONMENTS.c.id, _after(cursor)))
    rows = session.execute(
        sa.select(_ENVIRONMENTS.c.status, _DEPLOYMENTS.c.id, _DEPLOYMENTS.c.operation,
                  _DEPLOYMENTS.c.state, _DEPLOYMENTS.c.started, _DEPLOYMENTS.c.finished)
        .select_from(joined).where(_ENVIRONMENTS.c.id == environment_id)
        .order_by(_DEPLOYMENTS.c.started, _DEPLOYMENTS.c.id)
        .limit(DEPLOYMENTS_PER_READ + 1)).all()
    if not rows:
        return None
    return rows[0].status, [row for row in rows if row.id is not None]


def _reports(session: Session, cursor: Cursor, deployment_ids: list[str]) -> list[t.Any]:
    if not deployment_ids:
        return []
    # only the deployments the first query read: a deployment started since
    # comes whole with the next read, after the status of its moment
    seen = sa.and_(_REPORTS.c.deployment_id == cursor.deployment_id,
                   _REPORTS.c.position <= cursor.position) \
        if cursor.deployment_id is not None else sa.false()
    return list(session.execute(
        sa.select(_REPORTS.c.deployment_id, _REPORTS.c.position, _REPORTS.c.level,
                  _REPORTS.c.text, _REPORTS.c.entity_id, _REPORTS.c.time)
        .select_from(_REPORTS.join(_DEPLOYMENTS,
                                   _DEPLOYMENTS.c.id == _REPORTS.c.deployment_id))
        .where(_REPORTS.c.deployment_id.in_(deployment_ids), sa.not_(seen))
        .order_by(_DEPLOYMENTS.c.started, _DEPLOYMENTS.c.id, _REPORTS.c.position)
        .limit(REPORTS_PER_READ + 1)).all())
