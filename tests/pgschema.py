"""A private schema of the PostgreSQL database named by ``LAGUNA_TEST_PG_URL``
for one test: its URL (the schema on ``search_path``), migrated, dropped after."""

from __future__ import annotations

import contextlib
import typing as t
import uuid

import sqlalchemy as sa

from laguna.store.db import make_engine, upgrade
from tests.testdb import required_url


def with_schema(url: str, schema: str) -> str:
    parsed = sa.make_url(url)
    return parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


def require_postgresql() -> str:
    """``LAGUNA_TEST_PG_URL``; without it the test skips here and fails in CI."""
    return required_url("LAGUNA_TEST_PG_URL")


@contextlib.contextmanager
def empty_schema(prefix: str = "laguna_test") -> t.Iterator[str]:
    """A new empty schema's URL, dropped with everything in it at the end."""
    admin_url = require_postgresql()
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = make_engine(admin_url)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield with_schema(admin_url, schema)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def private_schema() -> t.Iterator[str]:
    with empty_schema() as url:
        upgrade(url)
        yield url
