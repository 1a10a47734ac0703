"""Connecting to the catalog database and bringing its schema up to date.

A database with no tables gets the newest schema straight from the models
(``create_all``) and is stamped with :data:`HEAD_REVISION`, as Alembic's
cookbook describes; one stamped with that revision is left alone; any other
goes through the Alembic migrations. The first two never import Alembic
(about a quarter of a second of a command's start) nor read its scripts.
A test proves that both ways give the same schema, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import contextlib
import typing as t
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from laguna.store import catalogchanges, publication
from laguna.store.models import Base
from laguna.store.names import HEAD_REVISION

if t.TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

__all__ = ["HEAD_REVISION", "READ_ONLY", "Database", "alembic_config", "bring_up_to_date",
           "create_schema", "downgrade", "make_engine", "open_database", "upgrade"]

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
    from alembic.config import Config as AlembicConfig
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Passed as attributes, not options: ini interpolation would mangle '%' in passwords.
    config.attributes["url"] = url
    config.attributes["connection"] = connection
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply the migrations to the database at ``url`` up to ``revision``."""
    from alembic import command
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(url, connection), revision)
    finally:
        engine.dispose()


def downgrade(url: str, revision: str) -> None:
    """Revert the migrations down to ``revision`` (``base`` empties the schema)."""
    from alembic import command
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


def bring_up_to_date(url: str) -> None:
    """The newest schema in the database at ``url``: created from the models
    when the database has no tables, migrated when it is stamped with an
    older revision (or none), untouched when it is at :data:`HEAD_REVISION`."""
    engine = _schema_engine(url)
    try:
        with engine.begin() as connection:
            tables = sa.inspect(connection).get_table_names()
            if not tables:
                create_schema(connection)
                return
            if _stamped_revision(connection, tables) == HEAD_REVISION:
                return
    finally:
        engine.dispose()
    upgrade(url)


def create_schema(connection: sa.Connection) -> None:
    """The newest schema, from the models, stamped as migrated to its head."""
    Base.metadata.create_all(connection)
    # what the migrations add beyond the models' tables (PostgreSQL only)
    publication.install(connection)
    catalogchanges.install(connection)
    version = _alembic_version_table()
    version.create(connection)
    connection.execute(version.insert().values(version_num=HEAD_REVISION))


def _alembic_version_table() -> sa.Table:
    # Alembic's own definition of its version table (alembic.runtime.migration)
    return sa.Table("alembic_version", sa.MetaData(),
                    sa.Column("version_num", sa.String(32), nullable=False),
                    sa.PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))


def _stamped_revision(connection: sa.Connection, tables: list[str]) -> str | None:
    if "alembic_version" not in tables:
        return None
    revisions = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalars()
    found = list(revisions)
    return found[0] if len(found) == 1 else None


def _schema_engine(url: str) -> Engine:
    """An engine whose transactions hold DDL too. pysqlite runs each CREATE in a
    transaction of its own (a sync of the file each, 3 ms apiece for the
    ~30 statements of the schema); here SQLAlchemy begins, with ``BEGIN
    IMMEDIATE``, so that the schema is made at once and a second process
    opening a new store waits for the first one's tables instead of making
    them again."""
    engine = make_engine(url)
    if engine.dialect.name == "sqlite":
        def connect(dbapi_connection: t.Any, _record: t.Any) -> None:
            dbapi_connection.isolation_level = None

        def begin(connection: sa.Connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        sa.event.listen(engine, "connect", connect)
        sa.event.listen(engine, "begin", begin)
    return engine


def open_database(url: str, migrate: bool = True) -> Database:
    """Connect to the catalog at ``url``, first bringing its schema up to date
    (:func:`bring_up_to_date`)."""
    if migrate:
        bring_up_to_date(url)
    return Database(url)
