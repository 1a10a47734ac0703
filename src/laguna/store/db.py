"""Connecting to the catalog database and bringing its schema up to date."""

from __future__ import annotations

import contextlib
import typing as t
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"
#: the execution option that marks the connections of :meth:`Database.read_session`
READ_ONLY = "laguna_read_only"


def make_engine(url: str, **options: t.Any) -> Engine:
    """An engine for ``url``; an SQLite file's folder is created if missing."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, **options)
    if parsed.get_backend_name() == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_foreign_keys)
    return engine


def _sqlite_foreign_keys(dbapi_connection: t.Any, _record: t.Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def alembic_config(url: str | None = None, connection: sa.Connection | None = None) -> AlembicConfig:
    """An Alembic configuration for the shipped migrations (no alembic.ini needed)."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Passed as attributes, not options: ini interpolation would mangle '%' in passwords.
    config.attributes["url"] = url
    config.attributes["connection"] = connection
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply the migrations to the database at ``url`` up to ``revision``."""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(url, connection), revision)
    finally:
        engine.dispose()


def downgrade(url: str, revision: str) -> None:
    """Revert the migrations down to ``revision`` (``base`` empties the schema)."""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(url, connection), revision)
    finally:
        engine.dispose()


class Database:
    """An engine plus a session factory; ``with db.session() as s`` commits on success."""

    def __init__(self, url: str, **options: t.Any) -> None:
        self.url = url
        self.engine = make_engine(url, **options)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._readers = sessionmaker(self.engine.execution_options(**{READ_ONLY: True}),
                                     expire_on_commit=False)

    @contextlib.contextmanager
    def session(self) -> t.Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    @contextlib.contextmanager
    def read_session(self) -> t.Iterator[Session]:
        """A session that only reads: on SQLite it does not take the write lock
        up front (see :mod:`laguna.deploy.workdir`), so readers run side by side."""
        with self._readers() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()


def open_database(url: str, migrate: bool = True) -> Database:
    """Connect to the catalog at ``url``, first bringing its schema up to date."""
    if migrate:
        upgrade(url)
    return Database(url)
