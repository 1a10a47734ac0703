"""``laguna status`` and ``laguna environments`` read from the working
directory's store with the standard library's sqlite3: no SQLAlchemy, no
store models, no blueprint language (issue 22: about a second of their start).

The store stays the one source of truth, and the service
(:class:`~laguna.deploy.service.Service`) the reference: each read here gives
the very result the service gives, or None when it cannot, and the command
then asks the service. None when:

- the store cannot be opened as it is (it is never created here: ``mode=rw``),
  or is not stamped with the models' revision (:data:`HEAD_REVISION`): it needs
  a migration, which the service makes;
- an environment it reads is held by a deployment (``acquired_by``): that
  deployment's process may have died, and the service's recovery writes;
- ``status``: the environment's deployed objects have actions and the store
  does not keep their list for its current model and packages (below).

The columns are decoded by the types the store declares for them
(``PRAGMA table_info``), as SQLAlchemy's SQLite dialect stores them (JSON as
text, times as ISO 8601 text without a zone); the SQL names only the tables
and columns read. ``tests/unit/deploy/test_readonly.py`` runs both paths over
the same stores and compares what they print.

**Kept actions.** Listing a MuranoPL environment's actions builds its classes
from its stored packages. A front end whose list follows from the stored state
alone (:class:`~laguna.deploy.frontend.StoreActionLister`) has the list kept
in ``environments.actions`` at the end of each run (:func:`kept_actions`),
with the digest of what it was listed from: the model, the packages (names,
versions, archives) and laguna's version. A list whose digest is not that of
the environment as stored now (a run that died after adding its packages, an
older store, a package rewritten in place) is not used.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import sqlite3
import typing as t
from pathlib import Path

from laguna import __version__
from laguna.deploy import errors
from laguna.deploy.result import (
    FAILED,
    OK,
    REJECTED,
    Action,
    Component,
    EnvironmentList,
    EnvironmentView,
    ErrorInfo,
    Report,
    Result,
)
from laguna.deploy.states import DeploymentState
from laguna.deploy.workdir import BUSY_TIMEOUT, Workdir
from laguna.store.names import HEAD_REVISION, LOCAL_PROJECT

Row = dict[str, t.Any]


class _Unreadable(Exception):
    """The store is not one this module reads: the service answers."""


# -- kept actions ---------------------------------------------------------------------


def actions_digest(model: t.Any, packages: t.Iterable[tuple[str, str, bytes]]) -> str:
    """The digest of what an environment's actions are listed from: its model
    (as the store gives it back), its packages in order, laguna's version."""
    digest = hashlib.sha256(json.dumps([__version__, model], sort_keys=True,
                                       separators=(",", ":")).encode())
    for name, version, archive in packages:
        digest.update(json.dumps([name, version]).encode())
        digest.update(hashlib.sha256(archive).digest())
    return digest.hexdigest()


def kept_actions(actions: t.Sequence[Action] | None, model: t.Any,
                 packages: t.Iterable[tuple[str, str, bytes]]) -> dict[str, t.Any]:
    """What ``environments.actions`` keeps of ``actions``, listed from ``model``
    (as stored: what JSON gives back) and ``packages``."""
    return {"digest": actions_digest(model, packages),
            "actions": [a.to_json() for a in actions] if actions is not None else None}


# -- reading -------------------------------------------------------------------------


def read_environments(workdir: Workdir,
                      project: str | None = LOCAL_PROJECT) -> EnvironmentList | None:
    """Every environment of ``project`` (None: of every project, by project), by
    name, as ``Service.environments`` lists them; None when the service must answer."""
    by_project = project is None
    if not workdir.has_store():
        return EnvironmentList([], by_project=by_project)
    try:
        with _Reader(workdir) as reader:
            # one project's by its index; every project's (rare) by a scan
            where, given = ("", ()) if project is None else ("WHERE project_id = ? ", (project,))
            rows = reader.rows(
                "environments",
                "SELECT id, name, project_id, language, status, version, created, updated, "
                f"acquired_by FROM environments {where}ORDER BY project_id, name", given)
    except (_Unreadable, sqlite3.Error, ValueError):
        return None
    if any(row["acquired_by"] is not None for row in rows):
        return None
    return EnvironmentList([EnvironmentView(
        id=row["id"], name=row["name"], project=row["project_id"], language=row["language"],
        state=row["status"], version=row["version"], created=row["created"],
        updated=row["updated"], acquired_by=row["acquired_by"]) for row in rows],
        by_project=by_project)


def read_status(workdir: Workdir, name: str, project: str = LOCAL_PROJECT) -> Result | None:
    """Environment ``name`` after its last deployment, as ``Service.status``
    gives it; None when the service must answer."""
    if not workdir.has_store():
        return _not_found(name)
    try:
        with _Reader(workdir) as reader:
            return _status(reader, name, project)
    except (_Unreadable, sqlite3.Error, ValueError, KeyError, TypeError, AttributeError):
        return None


def _not_found(name: str) -> Result:
    error = errors.EnvironmentNotFound(name)
    return Result(name=name, language=None, status=REJECTED, state=None,
                  error=ErrorInfo(error.kind, error.message))


def _status(reader: _Reader, name: str, project: str) -> Result | None:
    found = reader.rows(
        "environments",
        "SELECT id, name, language, status, model, outputs, components, acquired_by, actions "
        "FROM environments WHERE project_id = ? AND name = ?", (project, name))
    if not found:
        return _not_found(name)
    record = found[0]
    if record["acquired_by"] is not None:
        return None
    actions: list[Action] | None = None
    if record["model"] is not None:
        kept = record["actions"]
        if not isinstance(kept, dict):
            return None
        packages = reader.rows(
            "environment_packages",
            "SELECT name, version, archive FROM environment_packages "
            "WHERE environment_id = ? ORDER BY position", (record["id"],))
        digest = actions_digest(record["model"], [
            (row["name"], row["version"], row["archive"]) for row in packages])
        if kept.get("digest") != digest:
            return None
        listed = kept.get("actions")
        actions = [Action.from_json(a) for a in listed] if listed is not None else None
    status = OK
    error = None
    reports: list[Report] = []
    last = reader.rows(
        "deployments",
        "SELECT id, state, result FROM deployments WHERE environment_id = ? "
        "ORDER BY started DESC, id DESC LIMIT 1", (record["id"],))
    if last:
        deployment = last[0]
        reports = [Report(level=row["level"], text=row["text"], time=row["time"],
                          object=row["entity_id"]) for row in reader.rows(
            "status_reports",
            "SELECT level, text, entity_id, time FROM status_reports "
            "WHERE deployment_id = ? ORDER BY position", (deployment["id"],))]
        stored_error = (deployment["result"] or {}).get("error")
        if stored_error is not None:
            error = ErrorInfo.from_json(stored_error)
        if deployment["state"] == DeploymentState.FAILURE.value:
            status = FAILED
    return Result(
        name=record["name"], language=record["language"], status=status,
        state=record["status"], outputs=dict(record["outputs"]),
        components={k: Component.from_json(v) for k, v in record["components"].items()},
        reports=reports, model=record["model"], error=error, actions=actions)


class _Reader:
    """One read transaction on the store (one snapshot for every query)."""

    def __init__(self, workdir: Workdir) -> None:
        self.workdir = workdir
        self._decoders: dict[str, dict[str, t.Callable[[t.Any], t.Any] | None]] = {}
        self._connection: sqlite3.Connection | None = None

    def __enter__(self) -> _Reader:
        # the store's file and folder made private, as opening it for the service does
        self.workdir.prepare_store()
        # mode=rw: an existing file only; the connection checkpoints and removes
        # SQLite's -wal and -shm files when it closes, as the service's do
        uri = f"{Path(self.workdir.store_path).absolute().as_uri()}?mode=rw"
        self._connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT,
                                           isolation_level=None)
        try:
            self._connection.execute("BEGIN")
            revisions = self._connection.execute(
                "SELECT version_num FROM alembic_version").fetchall()
        except sqlite3.Error:
            self.__exit__()
            raise _Unreadable("no revision") from None
        if revisions != [(HEAD_REVISION,)]:
            self.__exit__()
            raise _Unreadable(f"revision {revisions!r}, not {HEAD_REVISION}")
        return self

    def __exit__(self, *_exc: object) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            connection.close()

    def rows(self, table: str, sql: str, parameters: tuple[t.Any, ...]) -> list[Row]:
        """The rows of ``sql`` (a query of ``table``), each column decoded."""
        assert self._connection is not None
        decoders = self._table(table)
        cursor = self._connection.execute(sql, parameters)
        names = [column[0] for column in cursor.description]
        for column in names:
            if column not in decoders:
                raise _Unreadable(f"{table} has no column {column}")
        found = []
        for values in cursor.fetchall():
            row: Row = {}
            for column, value in zip(names, values):
                decode = decoders[column]
                row[column] = decode(value) if decode is not None and value is not None \
                    else value
            found.append(row)
        return found

    def _table(self, table: str) -> dict[str, t.Callable[[t.Any], t.Any] | None]:
        known = self._decoders.get(table)
        if known is None:
            assert self._connection is not None
            known = {str(column[1]): _decoder(str(column[2])) for column in
                     self._connection.execute(f"PRAGMA table_info({table})").fetchall()}
            if not known:
                raise _Unreadable(f"no table {table}")
            self._decoders[table] = known
        return known


def _decoder(declared: str) -> t.Callable[[t.Any], t.Any] | None:
    """How a value of a column of the ``declared`` type comes back through
    SQLAlchemy's SQLite dialect (None: as it is)."""
    kind = declared.split("(", 1)[0].strip().upper()
    if kind == "JSON":
        return json.loads
    if kind == "DATETIME":
        return datetime.datetime.fromisoformat
    if kind == "BOOLEAN":
        return bool
    if kind in ("VARCHAR", "CHAR", "TEXT", "INTEGER", "BLOB"):
        return None
    raise _Unreadable(f"a column of type {declared}")
