"""A private schema of the PostgreSQL database named by ``LAGUNA_TEST_PG_URL``
for one test: its URL (the schema on ``search_path``), migrated, dropped after."""

from __future__ import annotations

import contextlib
import os
import typing as t
import uuid

import pytest
import sqlalchemy as sa

from laguna.store.db import make_engine, upgrade

PG_URL = os.environ.get("LAGUNA_TEST_PG_URL")


def with_schema(url: str, schema: str) -> str:
    parsed = sa.make_url(url)
    return parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


@contextlib.contextmanager
def private_schema() -> t.Iterator[str]:
    if not PG_URL:
        if os.environ.get("CI"):
            raise RuntimeError("LAGUNA_TEST_PG_URL is not set; .ci/run sets it")
        pytest.skip("LAGUNA_TEST_PG_URL is not set")
    schema = f"laguna_test_{uuid.uuid4().hex[:12]}"
    admin = make_engine(PG_URL)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = with_schema(PG_URL, schema)
    try:
        upgrade(url)
        yield url
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
