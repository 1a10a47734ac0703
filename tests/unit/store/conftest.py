"""Catalog databases for the store tests.

Every test session builds a fresh schema with the Alembic migrations (never
``create_all``): one SQLite file always, and a private schema in the
PostgreSQL database named by ``LAGUNA_TEST_PG_URL`` when that is set. Each
test gets an empty database.
"""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

import pytest

from laguna.config import sqlite_url
from laguna.store.db import Database, upgrade
from laguna.store.models import Base
from tests.pgschema import private_schema

PG_URL = os.environ.get("LAGUNA_TEST_PG_URL")


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[str]:
    if request.param == "sqlite":
        url = sqlite_url(tmp_path_factory.mktemp("store") / "catalog.sqlite")
        upgrade(url)
        yield url
        return
    if not PG_URL:
        pytest.skip("LAGUNA_TEST_PG_URL is not set")
    with private_schema() as url:
        yield url


@pytest.fixture()
def database(database_url: str) -> t.Iterator[Database]:
    db = Database(database_url)
    try:
        yield db
    finally:
        emptied(db)
        db.dispose()


def emptied(database: Database) -> None:
    """Every table's rows deleted but the catalog's commit counter, which the
    store keeps from its creation on (laguna.store.catalogchanges)."""
    with database.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            if table.name != "catalog_changes":
                connection.execute(table.delete())


FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"
