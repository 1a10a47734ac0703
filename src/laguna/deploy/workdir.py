"""The working directory: where an environment's state lives between commands.

::

    DIR/.laguna/laguna.sqlite   the deployment store (the API's schema)
    DIR/.laguna/cloud/          the local cloud's hosts and agents, per environment

``DIR`` is ``--workdir``, else ``$LAGUNA_WORKDIR``, else the current
directory. Two working directories share nothing.

``.laguna`` is 0700 and the store (with SQLite's ``-wal`` and ``-shm``, which
take the store's mode) 0600 whatever the umask: the store holds every
environment's model, secrets included. A working directory made by an older
laguna is tightened when its store is opened.
"""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path

from laguna.config import STATE_DIR, STORE_FILE, WORKDIR_VAR, resolve_workdir, sqlite_url
from laguna.privacy import private_directory, tighten, write_private

if t.TYPE_CHECKING:
    import sqlalchemy as sa

    from laguna.store.db import Database

# SQLAlchemy and the store are imported where a store is opened: the read-only
# commands (laguna.deploy.readonly) use this module without them

__all__ = ["STATE_DIR", "STORE_FILE", "WORKDIR_VAR", "Workdir", "open_store", "resolve_workdir"]

CLOUD_DIR = "cloud"
#: how long a command waits for another one's write to the store, in seconds
BUSY_TIMEOUT = 30.0


@dataclasses.dataclass(frozen=True)
class Workdir:
    root: Path

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def store_path(self) -> Path:
        return self.state_dir / STORE_FILE

    @property
    def cloud_dir(self) -> Path:
        return self.state_dir / CLOUD_DIR

    @property
    def url(self) -> str:
        return sqlite_url(self.store_path)

    def has_store(self) -> bool:
        return self.store_path.is_file()

    def open_store(self) -> Database:
        """The store, created and migrated to the newest schema on first use."""
        self.prepare_store()
        return open_store(self.url)

    def prepare_store(self) -> None:
        """``.laguna`` (0700) and the store's file (0600, empty until SQLite
        fills it), made private even if they exist."""
        private_directory(self.state_dir)
        try:
            write_private(self.store_path, b"", exclusive=True)
        except FileExistsError:
            pass
        for suffix in ("", "-wal", "-shm"):
            tighten(self.store_path.with_name(STORE_FILE + suffix))


def open_store(url: str, **options: t.Any) -> Database:
    """The deployment store at ``url`` (an SQLite file or PostgreSQL), migrated
    to the newest schema; SQLite set up for writers in several processes.
    ``options`` go to the engine (a server's pool size, say)."""
    import sqlalchemy as sa

    from laguna.store.db import Database, open_database

    database = open_database(url)
    database.dispose()
    if sa.make_url(url).get_backend_name() != "sqlite":
        return Database(url, **options)
    database = Database(url, connect_args={"timeout": BUSY_TIMEOUT, "check_same_thread": False},
                        **options)
    _write_transactions(database.engine)
    return database


def _write_transactions(engine: sa.Engine) -> None:
    """Begin every transaction with ``BEGIN IMMEDIATE``: commands take SQLite's
    write lock up front and wait for each other (``timeout``), instead of two
    readers deadlocking when both want to write (as claiming an environment does).

    The store runs in WAL mode with ``synchronous=NORMAL``: a commit is in the
    log when it returns (a killed process loses nothing it reported) but does
    not wait for the disk, which it did for every report (tens of
    milliseconds each); a power cut may lose the last commits, never the
    store's consistency."""
    import sqlalchemy as sa

    from laguna.store.db import READ_ONLY

    def connect(dbapi_connection: t.Any, _record: t.Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy, not pysqlite, begins
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    def begin(connection: sa.Connection) -> None:
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    sa.event.listen(engine, "connect", connect)
    sa.event.listen(engine, "begin", begin)
