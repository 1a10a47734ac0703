"""The store's generations (laguna.store.freshness): each changes with every
commit that changes what it covers, made by any other connection, and a
broken connection answers "unknown" once, then connects again."""

from __future__ import annotations

import concurrent.futures
import datetime
import typing as t
from pathlib import Path

import sqlalchemy as sa

from laguna.packages.package import load_package
from laguna.store.db import Database
from laguna.store.freshness import StoreFreshness
from laguna.store.models import ConfigurationSession, EnvironmentRecord, PackageRecord
from laguna.store.packages import import_package

EXAMPLES = Path(__file__).parents[3] / "examples"
FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"

NOW = datetime.datetime(2026, 11, 27, tzinfo=datetime.timezone.utc)


def environment(database: Database, name: str, project: str = "p1") -> str:
    with database.session() as session:
        record = EnvironmentRecord(project_id=project, name=name, status="ready", version=0,
                                   outputs={}, components={}, created=NOW, updated=NOW)
        session.add(record)
        session.flush()
        return record.id


def test_generations_change_with_every_commit_they_cover(database: Database) -> None:
    first = environment(database, "e1")
    other = environment(database, "e2", project="p2")
    freshness = StoreFreshness(database.url)
    try:
        shown, listed, everyone = (freshness.environment(first), freshness.environments("p1"),
                                   freshness.environments(None))
        catalog = freshness.catalog()
        assert None not in (shown, listed, everyone, catalog)
        # nothing committed: the same generations
        assert freshness.environment(first) == shown
        assert freshness.environments("p1") == listed
        assert freshness.catalog() == catalog

        # a session of the environment opened, then its state changed
        with database.session() as session:
            opened = ConfigurationSession(environment_id=first, user_id="u1", state="opened",
                                          version=0, description={}, created=NOW, updated=NOW)
            session.add(opened)
            session.flush()
            opened_id = opened.id
        after_open = freshness.environment(first)
        assert after_open != shown
        assert freshness.environments("p1") != listed
        with database.session() as session:
            session.execute(sa.update(ConfigurationSession)
                            .where(ConfigurationSession.id == opened_id).values(state="deploying"))
        assert freshness.environment(first) != after_open

        # the environment's own row
        before = freshness.environment(first)
        with database.session() as session:
            session.execute(sa.update(EnvironmentRecord).where(EnvironmentRecord.id == first)
                            .values(name="renamed"))
        assert freshness.environment(first) != before

        # another project's environment: p1's list is another generation on
        # PostgreSQL (unchanged), everyone's list changes
        listed, everyone = freshness.environments("p1"), freshness.environments(None)
        with database.session() as session:
            session.execute(sa.update(EnvironmentRecord).where(EnvironmentRecord.id == other)
                            .values(status="deploying"))
        assert freshness.environments(None) != everyone
        if freshness.dialect == "postgresql":
            assert freshness.environments("p1") == listed
            assert freshness.environment("no-such-environment") is None

        # the catalog: a package imported, a flag changed, the package deleted
        catalog = freshness.catalog()
        with database.session() as session:
            import_package(session, load_package(EXAMPLES / "hello"))
        imported = freshness.catalog()
        assert imported != catalog
        with database.session() as session:
            session.execute(sa.update(PackageRecord).values(enabled=False))
        disabled = freshness.catalog()
        assert disabled != imported
        with database.session() as session:
            session.execute(sa.delete(PackageRecord))
        assert freshness.catalog() not in (disabled, imported)
        # an environment's change is not the catalog's, on PostgreSQL
        catalog = freshness.catalog()
        with database.session() as session:
            session.execute(sa.delete(EnvironmentRecord).where(EnvironmentRecord.id == other))
        assert (freshness.catalog() == catalog) == (freshness.dialect == "postgresql")
    finally:
        freshness.close()


def test_the_catalog_counter_counts_at_commit_only(database: Database) -> None:
    freshness = StoreFreshness(database.url)
    try:
        before = freshness.catalog()
        with database.session() as session:
            import_package(session, load_package(EXAMPLES / "hello"))
            session.flush()
            # written, not committed: no reader may see a new generation yet
            # (it would keep an answer made without the package under it)
            assert freshness.catalog() == before
        assert freshness.catalog() != before
    finally:
        freshness.close()


def test_a_broken_connection_is_unknown_once_then_replaced(database: Database) -> None:
    first = environment(database, "e1")
    freshness = StoreFreshness(database.url)
    try:
        known = freshness.environment(first)
        assert known is not None
        # the connection closed under it (a server restart, a dropped socket)
        freshness._connection.driver_connection.close()
        assert freshness.environment(first) is None
        assert freshness.environment(first) == known
    finally:
        freshness.close()


def test_an_in_memory_store_has_no_generation() -> None:
    freshness = StoreFreshness("sqlite://")
    assert (freshness.enabled, freshness.environment("x"), freshness.catalog()) == (
        False, None, None)


def test_catalog_writers_never_deadlock_on_the_counter(database: Database) -> None:
    """Counted at commit (deferred), the counter's row is locked after every
    statement of a writer, so writers of different packages never wait for
    each other on it in the middle of their work."""
    if database.engine.dialect.name != "postgresql":
        return   # SQLite: one writer at a time, and no counter
    with database.session() as session:
        first = import_package(session, load_package(EXAMPLES / "hello")).id
        second = import_package(session, load_package(FIXTURES / "app")).id

    def flag(connection: sa.Connection, package: t.Any) -> None:
        connection.execute(sa.update(PackageRecord).where(PackageRecord.id == package)
                           .values(enabled=False))

    with database.engine.connect() as one, database.engine.connect() as two, \
            concurrent.futures.ThreadPoolExecutor(2) as pool:
        one.execute(sa.text("SET lock_timeout = '10s'"))
        two.execute(sa.text("SET lock_timeout = '10s'"))
        flag(one, first)
        # with a counter locked at each statement, this would wait for `one`...
        pool.submit(flag, two, second).result(timeout=10)
        # ...and this for `two`: a deadlock
        waiting = pool.submit(flag, one, second)
        two.commit()
        waiting.result(timeout=10)
        one.commit()
