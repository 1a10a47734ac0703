"""Reporters: where a front end's reports and component states go.

:class:`StoreReporter` keeps them in the store, committed in batches at most
:data:`FLUSH_AFTER` seconds late (a process killed mid-deployment loses the
reports of that last moment, which its events already showed). :class:`MemoryReporter` keeps them in memory, for dry
runs (which keep nothing).
"""

from __future__ import annotations

import datetime
import threading
import typing as t

from sqlalchemy.orm import Session

from laguna.deploy.events import ComponentChanged, EventSink, ReportEmitted
from laguna.deploy.result import LEVELS, Component, Report
from laguna.deploy.writebehind import WriteBehind
from laguna.store import environments as repo
from laguna.store import instances as usage
from laguna.store.db import Database

Clock = t.Callable[[], datetime.datetime]

#: what a tracked object counts as in the usage statistics, with the original's codes
USAGE_KINDS = {"application": usage.APPLICATION, "server": usage.INSTANCE}
#: seconds a report or state may wait before it is committed: how late another
#: process's ``status`` or ``deployments`` can see it during a run
FLUSH_AFTER = 0.1
#: a batch this large is committed without waiting
FLUSH_AT = 500


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"report level {level!r} is not one of {', '.join(LEVELS)}")
    return level


class MemoryReporter:
    """Collects reports and component states; forwards them to ``sink``."""

    def __init__(self, environment: str, sink: EventSink, clock: Clock,
                 known: t.Mapping[str, Component] | None = None) -> None:
        self.environment = environment
        self.sink = sink
        self.clock = clock
        self.reports: list[Report] = []
        self.components: dict[str, Component] = {}
        #: the environment's components before the run (``known``): what its
        #: reports' objects are called until the run announces them anew
        self.known = dict(known or {})
        self._lock = threading.Lock()

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        with self._lock:
            report = Report(_check_level(level), text, self.clock(), object_id)
            self._keep_report(report)
            self.reports.append(report)
            subject = None if object_id is None else \
                self.components.get(object_id) or self.known.get(object_id)
        self.sink(ReportEmitted(self.environment, report, subject))

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        component = Component(type=type, name=name, state=state)
        with self._lock:
            self.components[object_id] = component
            self._keep_component(object_id, component)
        self.sink(ComponentChanged(self.environment, object_id, component))

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        """Usage statistics are the store's; a run that keeps nothing counts nothing."""
        if kind not in USAGE_KINDS:
            raise ValueError(f"usage kind {kind!r} is not one of {', '.join(USAGE_KINDS)}")

    def untrack(self, object_id: str) -> None:
        """As :meth:`track`: nothing to keep here."""

    def _keep_report(self, report: Report) -> None:
        """Subclasses store the report; nothing here."""

    def _keep_component(self, object_id: str, component: Component) -> None:
        """Subclasses store the component; nothing here."""


class StoreReporter(MemoryReporter):
    """Keeps reports, component states and usage in the store, written behind.

    The writes of a run are committed in batches (:mod:`laguna.deploy.writebehind`):
    other processes see them within :data:`FLUSH_AFTER` seconds, and
    :meth:`close`, which the service calls when the run ends, commits the rest.
    """

    def __init__(self, database: Database, environment_id: str, project: str,
                 deployment_id: str, environment: str, sink: EventSink, clock: Clock,
                 known: t.Mapping[str, Component] | None = None) -> None:
        super().__init__(environment, sink, clock, known)
        self.environment_id = environment_id
        self.project = project
        self.deployment_id = deployment_id
        self._writes = WriteBehind(database, FLUSH_AFTER, FLUSH_AT)
        # The environment's stored components, read at the first write: the run
        # holds the environment, so nothing else writes them meanwhile. Changes
        # wait in ``_changed`` until a batch writes the map once for all of them.
        self._stored: dict[str, t.Any] | None = None
        self._changed: dict[str, t.Any] = {}
        # not the reporter's lock, which is held while a full batch commits
        self._changed_lock = threading.Lock()

    def close(self) -> None:
        """Commit every write still waiting (and raise a failed commit)."""
        self._writes.close()

    def _keep_report(self, report: Report) -> None:
        self._writes.add(lambda session: repo.append_report(
            session, self.deployment_id, report.level, report.text, report.object, report.time))

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        super().track(object_id, kind, type_name, title, unit_count)
        now = self.clock()
        self._writes.add(lambda session: usage.track_instance(
            session, self.environment_id, self.project, object_id, USAGE_KINDS[kind],
            type_name, title, unit_count, now))

    def untrack(self, object_id: str) -> None:
        now = self.clock()
        self._writes.add(lambda session: usage.destroy_instance(
            session, self.environment_id, object_id, now))

    def _keep_component(self, object_id: str, component: Component) -> None:
        with self._changed_lock:
            self._changed[object_id] = component.to_json()
        self._writes.add(self._write_components, once="components")

    def _write_components(self, session: Session) -> None:
        with self._changed_lock:
            changed, self._changed = self._changed, {}
        if self._stored is None:
            self._stored = repo.get_components(session, self.environment_id)
            if self._stored is None:
                return      # the environment is gone
        self._stored.update(changed)
        repo.write_components(session, self.environment_id, self._stored)
