"""A new store's schema comes from the models, stamped; older stores migrate.

:func:`laguna.store.db.bring_up_to_date` makes the schema of a database with no
tables with ``create_all`` instead of replaying the migrations: these tests
prove the two give the same schema (SQLite, and PostgreSQL when
``LAGUNA_TEST_PG_URL`` is set), and that each kind of database takes its path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import typing as t
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from laguna.config import sqlite_url
from laguna.store import db
from laguna.store.db import HEAD_REVISION, alembic_config, bring_up_to_date, make_engine, upgrade
from laguna.store.models import Base

from tests.pgschema import with_schema
from tests.unit.store.conftest import PG_URL
from tests.unit.store.test_store_migrations import TABLES

SRC = Path(db.__file__).parents[2]


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest,
                   tmp_path: Path) -> t.Iterator[t.Callable[[], str]]:
    """Makes empty databases of one kind (each a new SQLite file, or a new
    PostgreSQL schema dropped at the end); gives their URLs."""
    if request.param == "sqlite":
        names = iter(range(1000))
        yield lambda: sqlite_url(tmp_path / f"store{next(names)}.sqlite")
        return
    if not PG_URL:
        pytest.skip("LAGUNA_TEST_PG_URL is not set")
    admin = make_engine(PG_URL)
    schemas: list[str] = []

    def make() -> str:
        schema = f"laguna_test_{uuid.uuid4().hex[:12]}"
        with admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        schemas.append(schema)
        return with_schema(t.cast(str, PG_URL), schema)

    try:
        yield make
    finally:
        with admin.begin() as connection:
            for schema in schemas:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def schema_of(url: str) -> dict[str, t.Any]:
    """Every table of the database as SQLAlchemy's inspection sees it: columns
    (name, type as the database's DDL spells it, nullability, default), primary
    key, indexes, unique constraints, foreign keys, check constraints."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            return {table: {
                "columns": [(c["name"], c["type"].compile(dialect=engine.dialect),
                             c["nullable"], c.get("default"))
                            for c in inspector.get_columns(table)],
                "primary_key": inspector.get_pk_constraint(table),
                "indexes": sorted(inspector.get_indexes(table), key=repr),
                "unique": sorted(inspector.get_unique_constraints(table), key=repr),
                "foreign_keys": sorted(inspector.get_foreign_keys(table), key=repr),
                "checks": sorted(inspector.get_check_constraints(table), key=repr),
            } for table in sorted(inspector.get_table_names())}
    finally:
        engine.dispose()


def revision_of(url: str) -> list[str]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(
                sa.text("SELECT version_num FROM alembic_version")).scalars())
    finally:
        engine.dispose()


def no_migrations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every migration run instead of running it."""
    ran: list[str] = []
    monkeypatch.setattr(db, "upgrade", lambda url, revision="head": ran.append(url))
    return ran


def test_head_revision_is_the_migrations_head() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    assert scripts.get_current_head() == HEAD_REVISION


def test_created_schema_equals_migrated_schema(empty_database: t.Callable[[], str]) -> None:
    migrated, created = empty_database(), empty_database()
    upgrade(migrated)
    bring_up_to_date(created)
    expected = schema_of(migrated)
    assert sorted(expected) == TABLES
    assert schema_of(created) == expected
    assert revision_of(created) == revision_of(migrated) == [HEAD_REVISION]


def test_created_schema_matches_models(empty_database: t.Callable[[], str]) -> None:
    url = empty_database()
    bring_up_to_date(url)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    finally:
        engine.dispose()


def test_empty_database_is_created_without_migrations(
        empty_database: t.Callable[[], str], monkeypatch: pytest.MonkeyPatch) -> None:
    ran = no_migrations(monkeypatch)
    url = empty_database()
    bring_up_to_date(url)
    assert ran == []
    assert sorted(schema_of(url)) == TABLES
    assert revision_of(url) == [HEAD_REVISION]


def test_database_at_head_is_left_alone(empty_database: t.Callable[[], str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    url = empty_database()
    upgrade(url)
    ran = no_migrations(monkeypatch)
    bring_up_to_date(url)
    assert ran == []
    assert revision_of(url) == [HEAD_REVISION]


def test_older_database_is_migrated(empty_database: t.Callable[[], str]) -> None:
    url, reference = empty_database(), empty_database()
    upgrade(url, "0003")
    assert revision_of(url) == ["0003"]
    bring_up_to_date(url)
    upgrade(reference)
    assert revision_of(url) == [HEAD_REVISION]
    assert schema_of(url) == schema_of(reference)


def test_database_with_tables_and_no_stamp_goes_to_the_migrations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = sqlite_url(tmp_path / "other.sqlite")
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE notes (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    ran = no_migrations(monkeypatch)
    bring_up_to_date(url)
    assert ran == [url]


def test_a_new_store_opened_by_two_at_once_is_made_once(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "shared.sqlite")
    start = threading.Barrier(2, timeout=10)
    failures: list[BaseException] = []

    def open_it() -> None:
        try:
            start.wait()
            bring_up_to_date(url)
        except BaseException as exc:  # reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []
    assert revision_of(url) == [HEAD_REVISION]
    assert sorted(schema_of(url)) == TABLES


def test_opening_a_working_directory_store_does_not_import_alembic(tmp_path: Path) -> None:
    program = ("import sys; from pathlib import Path; "
               "from laguna.deploy.workdir import Workdir; "
               f"Workdir(Path({str(tmp_path)!r})).open_store().dispose(); "
               f"Workdir(Path({str(tmp_path)!r})).open_store().dispose(); "
               "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "[]\n")


def triggers_of(url: str) -> list[tuple[str, str, str, str | None]]:
    """The schema's triggers (name, event, table, condition); SQLite's store has none."""
    engine = make_engine(url)
    try:
        if engine.dialect.name != "postgresql":
            with engine.connect() as connection:
                return [tuple(row) for row in connection.execute(sa.text(
                    "SELECT name, '', tbl_name, NULL FROM sqlite_master WHERE type = 'trigger'"))]
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(
                "SELECT trigger_name, event_manipulation, event_object_table, action_condition "
                "FROM information_schema.triggers WHERE trigger_schema = current_schema() "
                "ORDER BY trigger_name, event_manipulation"))]
    finally:
        engine.dispose()


def test_created_and_migrated_stores_publish_alike(empty_database: t.Callable[[], str]) -> None:
    # the models know no triggers: create_schema installs them as migration 0007 does
    migrated, created = empty_database(), empty_database()
    upgrade(migrated)
    bring_up_to_date(created)
    expected = [] if migrated.startswith("sqlite") else [
        ("laguna_deployment_changed", "UPDATE", "deployments",
         "((old.state)::text IS DISTINCT FROM (new.state)::text)"),
        ("laguna_deployment_inserted", "INSERT", "deployments", None),
        ("laguna_environment_changed", "UPDATE", "environments",
         "((old.status)::text IS DISTINCT FROM (new.status)::text)"),
        ("laguna_environment_deleted", "DELETE", "environments", None),
        *[(f"laguna_{table}_committed", event, table, None)
          for table in ("package_categories", "package_classes", "package_tags", "packages")
          for event in ("DELETE", "INSERT", "UPDATE")],
        ("laguna_report_inserted", "INSERT", "status_reports", None),
    ]
    assert triggers_of(migrated) == expected
    assert triggers_of(created) == expected


def test_downgrade_of_0007_removes_the_triggers(empty_database: t.Callable[[], str]) -> None:
    url = empty_database()
    upgrade(url)
    db.downgrade(url, "0006")
    assert triggers_of(url) == []
    upgrade(url)
    assert len(triggers_of(url)) == (0 if url.startswith("sqlite") else 17)


def test_downgrade_of_0008_removes_the_catalog_counter(
        empty_database: t.Callable[[], str]) -> None:
    url = empty_database()
    upgrade(url)
    db.downgrade(url, "0007")
    assert [name for name, *_ in triggers_of(url) if "committed" in name] == []
    engine = make_engine(url)
    try:
        assert "catalog_changes" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
    upgrade(url)
    assert len(triggers_of(url)) == (0 if url.startswith("sqlite") else 17)
