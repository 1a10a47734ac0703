"""The Alembic migrations build exactly the schema the ORM describes."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from laguna.config import Config, sqlite_url
from laguna.store.db import downgrade, make_engine, upgrade
from laguna.store.models import Base

TABLES = ["alembic_version", "api_stats", "catalog_changes", "categories", "configuration_sessions", "deployments",
          "environment_packages", "environment_templates", "environments", "instance_stats",
          "memberships", "package_categories", "package_classes", "package_tags", "packages",
          "periodic_runs",
          "projects", "status_reports", "tasks", "tokens", "users"]


def test_migrations_match_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection)
            assert compare_metadata(context, Base.metadata) == []
            assert sorted(sa.inspect(connection).get_table_names()) == TABLES
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_downgrade_empties(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "deep" / "folder" / "c.sqlite")
    upgrade(url)
    upgrade(url)
    engine = make_engine(url)
    try:
        assert sorted(sa.inspect(engine).get_table_names()) == TABLES
        downgrade(url, "base")
        assert sa.inspect(engine).get_table_names() == ["alembic_version"]
    finally:
        engine.dispose()


def test_models_create_all_equals_migrations(tmp_path: Path) -> None:
    # The one place create_all is allowed: comparing it with the migrations.
    migrated = make_engine(sqlite_url(tmp_path / "m.sqlite"))
    created = make_engine(sqlite_url(tmp_path / "c.sqlite"))
    upgrade(str(migrated.url))
    Base.metadata.create_all(created)
    try:
        for table in TABLES[1:]:
            left = sa.inspect(migrated)
            right = sa.inspect(created)
            assert [c["name"] for c in left.get_columns(table)] == [
                c["name"] for c in right.get_columns(table)]
            assert left.get_unique_constraints(table) == right.get_unique_constraints(table)
    finally:
        migrated.dispose()
        created.dispose()


def test_config_default_url_and_override(tmp_path: Path) -> None:
    # no URL: the working directory's store (tests/unit/cli/test_one_catalog.py)
    assert Config.from_environ({"HOME": "/home/u"}).database_url is None
    assert Config.from_environ({"LAGUNA_DATABASE_URL": ""}).database_url is None
    assert Config.from_environ({"LAGUNA_DATABASE_URL": "postgresql+psycopg://h/db",
                                "HOME": "/home/u"}).database_url == "postgresql+psycopg://h/db"
