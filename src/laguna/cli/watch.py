"""``laguna status NAME --watch``: an environment's events as they come, until
its running deployment ends.

The events are read from the store as any reader reads them
(:mod:`laguna.store.events`, the reader of the API's event stream too), from
the start of the running deployment, and the wait between reads is the
store's (:mod:`laguna.store.notifications`: a notification on PostgreSQL, a
short poll on SQLite), so a deployment run by any process sharing the store
shows here. Imported only when ``--watch`` is given: ``laguna status``
alone reads the store without SQLAlchemy.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import time
import typing as t

import click

from laguna.deploy.owner import ProcessLiveness, ProcessOwner
from laguna.deploy.result import Component, Report, iso
from laguna.store import environments as repo
from laguna.store import events as store_events
from laguna.store.db import Database
from laguna.store.events import Batch, Cursor, Event
from laguna.store.notifications import notifications

__all__ = ["Watched", "event_line", "watch"]

#: seconds between two looks at whether a running deployment's process is alive
OWNER_CHECK = 2.0


class Watched(t.NamedTuple):
    """How a watch ended: whether it saw a deployment end, and how."""

    #: the state of the deployment whose end was printed (None: none ended)
    state: str | None
    #: the environment was deleted meanwhile
    gone: bool = False


def event_line(kind: str, data: t.Mapping[str, t.Any],
               components: t.Mapping[str, t.Any]) -> str:
    """One line of human output for an event of ``kind``; reports name their
    object by the environment's ``components`` when it is one (as the progress
    view does)."""
    if kind == store_events.REPORT:
        known = components.get(data["entity_id"]) if data["entity_id"] else None
        who = Component.from_json(known).title() if isinstance(known, dict) else None
        report = Report(data["level"], data["text"],
                        datetime.datetime.fromisoformat(data["time"]), data["entity_id"])
        return report.line(who)
    if kind == store_events.DEPLOYMENT:
        if data["finished"] is None:
            return (f"{_at(data['started'])} {data['operation']} started "
                    f"(deployment {data['deployment_id']})")
        return f"{_at(data['finished'])} {data['operation']} finished: {data['state']}"
    return f"status: {data['status']}"


def _at(text: str) -> str | None:
    """A time of the events' JSON as reports print theirs."""
    return iso(datetime.datetime.fromisoformat(text))


def watch(database: Database, project: str, name: str, as_json: bool,
          shown_status: str | None = None, poll_interval: float | None = None,
          liveness: ProcessLiveness | None = None) -> Watched:
    """Print ``name``'s events from the start of its last deployment (the
    running one: the caller saw the environment busy) until that deployment
    ends, or none runs any more. ``shown_status``: the status already printed
    (a status event is printed when it changes)."""
    liveness = liveness or ProcessLiveness()
    with database.read_session() as session:
        record = repo.find_environment(session, project, name)
        if record is None:
            return Watched(None, gone=True)
        environment_id = record.id
        components = dict(record.components or {})
        cursor = dataclasses.replace(
            store_events.before_last_deployment(session, environment_id), status=shown_status)
    # subscribed before the first read: a change during it wakes the next wait
    with notifications(database.engine).subscribe(environment_id, poll_interval) as waiting:
        watched, ended = None, None
        last_check = time.monotonic()
        while True:
            batch = _read(database, environment_id, cursor)
            if batch is None:
                return Watched(None, gone=True)
            if _unknown_reporters(batch, components):
                # a component the run announced since: its reports name it
                with database.read_session() as session:
                    components = repo.get_components(session, environment_id) or components
            for event in batch.events:
                _print(event, components, as_json)
                if event.kind != store_events.DEPLOYMENT:
                    continue
                if event.data["finished"] is None:
                    watched = watched or event.data["deployment_id"]
                elif event.data["deployment_id"] == watched:
                    ended = event.data["state"]
            cursor = batch.cursor
            if ended is not None:
                return Watched(ended)
            if not batch.complete:
                continue
            if not batch.running:
                return Watched(None)         # it went without an end (refused, undone)
            waiting.wait()
            if time.monotonic() - last_check >= OWNER_CHECK:
                last_check = time.monotonic()
                if not _owner_alive(database, cursor, liveness):
                    click.echo("the deployment's process ended before it finished; "
                               "the next command on the environment records its end",
                               err=True)
                    return Watched("failure")


def _unknown_reporters(batch: Batch, components: t.Mapping[str, t.Any]) -> bool:
    return any(e.kind == store_events.REPORT and e.data["entity_id"]
               and e.data["entity_id"] not in components for e in batch.events)


def _read(database: Database, environment_id: str, cursor: Cursor) -> Batch | None:
    with database.read_session() as session:
        return store_events.read_events(session, environment_id, cursor)


def _owner_alive(database: Database, cursor: Cursor, liveness: ProcessLiveness) -> bool:
    if cursor.deployment_id is None:
        return True
    with database.read_session() as session:
        deployment = repo.get_deployment(session, cursor.deployment_id)
        if deployment is None or deployment.finished is not None:
            return True         # the next read tells
        return liveness.alive(ProcessOwner(deployment.owner_host, deployment.owner_pid,
                                           deployment.owner_started))


def _print(event: Event, components: t.Mapping[str, t.Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"id": str(event.cursor), "event": event.kind,
                               "data": event.data}, ensure_ascii=False))
    else:
        click.echo(event_line(event.kind, event.data, components))
