"""A private PostgreSQL schema per test, and a private RabbitMQ node per module."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.store.db import Database
from tests.pgschema import private_schema
from tests.rabbitmq import RabbitMQ, rabbitmq


@pytest.fixture()
def pg_url() -> t.Iterator[str]:
    with private_schema() as url:
        yield url


@pytest.fixture()
def pg(pg_url: str) -> t.Iterator[Database]:
    database = Database(pg_url)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture(scope="module")
def broker_node(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[RabbitMQ]:
    with rabbitmq(Path(tmp_path_factory.mktemp("rabbitmq"))) as node:
        yield node
