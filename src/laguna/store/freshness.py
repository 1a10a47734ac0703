"""Whether the store changed since an answer was made, read in one cheap
statement on a connection each process keeps for it.

The API keeps the answers of its most frequent reads (showing an
environment, listing environments, a page of the catalog) with the
generation of the data they were made from (:mod:`laguna.api.hotpaths`); a
request whose generation is the same is answered from memory. A generation
must change with every commit that could change the answer, in whichever
process it was made:

- **SQLite**: ``PRAGMA data_version``, which changes on a connection each
  time another connection commits to the file (this one never writes). One
  number for the whole store: any commit makes every kept answer unused.
- **PostgreSQL**: the ``xmin`` of the rows the answer was made from (the
  transaction that last wrote the row version; every update writes a new
  one) with their count, read per answer: the environment's row and its
  sessions', a project's environments and their sessions; for the catalog,
  the counter of its commits (:mod:`laguna.store.catalogchanges`).

The generation is read before the answer is made. Made from a later
snapshot, an answer is newer than its generation, never older: the next
reader sees a new generation and makes it again.

A statement that fails (the server restarted, the connection dropped)
answers None, which means "unknown": the caller reads the store as usual,
and the next call connects again.
"""

from __future__ import annotations

import logging
import threading
import typing as t

import sqlalchemy as sa

from laguna.store import catalogchanges
from laguna.store.db import make_engine

log = logging.getLogger(__name__)

#: a generation: equal generations, equal data
Generation = t.Hashable

_SQLITE_VERSION = "PRAGMA data_version"
_PG_ENVIRONMENT = (
    "SELECT e.xmin::text, (SELECT count(*)::text || ':' || coalesce(string_agg("
    "s.xmin::text, ',' ORDER BY s.id), '') FROM configuration_sessions s "
    "WHERE s.environment_id = e.id) FROM environments e WHERE e.id = %s")
_PG_ENVIRONMENTS = (
    "SELECT count(*), coalesce(sum(e.xmin::text::bigint), 0), (SELECT count(*)::text || ':' || "
    "coalesce(sum(s.xmin::text::bigint), 0)::text FROM configuration_sessions s "
    "JOIN environments f ON f.id = s.environment_id WHERE %s::text IS NULL OR f.project_id = %s) "
    "FROM environments e WHERE %s::text IS NULL OR e.project_id = %s")
_PG_CATALOG = catalogchanges.READ


class StoreFreshness:
    """The generations of a store, read on one connection of this process."""

    def __init__(self, url: str) -> None:
        parsed = sa.make_url(url)
        self.dialect = parsed.get_backend_name()
        in_memory = self.dialect == "sqlite" and (
            parsed.database in (None, "", ":memory:") or "mode=memory" in url)
        # an in-memory SQLite store is private to its connection: nothing to watch
        self.enabled = self.dialect in ("sqlite", "postgresql") and not in_memory
        self._url = url
        self._engine: sa.Engine | None = None
        self._connection: t.Any = None
        self._lock = threading.Lock()

    def environment(self, environment_id: str) -> Generation | None:
        """The generation of an environment's show (None: unknown or no such
        environment)."""
        if self.dialect == "postgresql":
            row = self._one(_PG_ENVIRONMENT, (environment_id,))
            return None if row is None else tuple(row)
        return self._sqlite_version()

    def environments(self, project_id: str | None) -> Generation | None:
        """The generation of the list of a project's environments (None:
        every project's)."""
        if self.dialect == "postgresql":
            row = self._one(_PG_ENVIRONMENTS, (project_id,) * 4)
            return None if row is None else tuple(row)
        return self._sqlite_version()

    def catalog(self) -> Generation | None:
        """The generation of the catalog's pages."""
        if self.dialect == "postgresql":
            row = self._one(_PG_CATALOG, ())
            return None if row is None else tuple(row)
        return self._sqlite_version()

    def close(self) -> None:
        with self._lock:
            self._drop()
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    def _sqlite_version(self) -> Generation | None:
        row = self._one(_SQLITE_VERSION, ())
        return None if row is None else row[0]

    def _one(self, statement: str, parameters: tuple[str | None, ...]) -> tuple[t.Any, ...] | None:
        if not self.enabled:
            return None
        with self._lock:
            try:
                cursor = self._cursor()
                cursor.execute(statement, parameters)
                row = cursor.fetchone()
                cursor.close()
            except Exception:   # noqa: BLE001 - any driver's error: unknown, connect again
                log.warning("reading the store's generation failed; reading it again "
                            "on a new connection", exc_info=True)
                self._drop()
                return None
        return None if row is None else tuple(row)

    def _cursor(self) -> t.Any:
        if self._connection is None:
            if self._engine is None:
                # its own engine and connection: never one of the requests' pool,
                # and on PostgreSQL in autocommit (no transaction left open)
                options: dict[str, t.Any] = {"poolclass": sa.pool.NullPool}
                if self.dialect == "postgresql":
                    options["isolation_level"] = "AUTOCOMMIT"
                self._engine = make_engine(self._url, **options)
            self._connection = self._engine.raw_connection()
        return self._connection.cursor()

    def _drop(self) -> None:
        if self._connection is not None:
            try:
                self._connection.invalidate()
            except Exception:   # noqa: BLE001 - closing a broken connection
                log.debug("closing the generation's connection failed", exc_info=True)
            self._connection = None
