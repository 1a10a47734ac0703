"""The Murano databases the takeover's tests read are Murano's: build.py's tables,
made on SQLite, PostgreSQL and MariaDB at heads 016 and 010, are described
exactly as the databases Murano's own migrations made (recorded in
tests/fixtures/murano/murano-schema.json: column types as each database
writes them, nullability, keys, foreign keys with ON DELETE, indexes, MySQL's
engine and charset)."""

from __future__ import annotations

import contextlib
import typing as t
from pathlib import Path

import pytest

from tests.fixtures.murano import build as murano
from tests.fixtures.murano.schema import describe, recorded
from tests.mariadb import empty_database
from tests.pgschema import empty_schema


@contextlib.contextmanager
def empty(dialect: str, tmp_path: Path) -> t.Iterator[str]:
    if dialect == "sqlite":
        yield f"sqlite:///{tmp_path / 'murano.sqlite'}"
    elif dialect == "postgresql":
        with empty_schema("murano_test") as url:
            yield url
    else:
        with empty_database() as url:
            yield url


@pytest.mark.parametrize("head", [16, 10])
@pytest.mark.parametrize("dialect", ["sqlite", "postgresql", "mariadb"])
def test_the_fixture_has_murano_s_schema(dialect: str, head: int, tmp_path: Path) -> None:
    with empty(dialect, tmp_path) as url:
        murano.build(url, head)
        built = describe(url)
    expected = recorded(dialect, head)
    # table by table, so that a difference names its table
    assert sorted(built) == sorted(expected)
    for table in expected:
        assert (table, built[table]) == (table, expected[table])
