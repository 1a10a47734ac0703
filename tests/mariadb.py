"""A private database of the MariaDB (or MySQL) server named by
``LAGUNA_TEST_MYSQL_URL`` (.ci/mariadb.sh) for one test: its URL, dropped
with everything in it after."""

from __future__ import annotations

import contextlib
import typing as t
import uuid

import sqlalchemy as sa

from tests.testdb import required_url


def require_mariadb() -> str:
    """``LAGUNA_TEST_MYSQL_URL``; without it the test skips here and fails in CI."""
    return required_url("LAGUNA_TEST_MYSQL_URL")


@contextlib.contextmanager
def empty_database(prefix: str = "murano_test") -> t.Iterator[str]:
    """A new empty database's URL (utf8, as Murano's were made), dropped at the end;
    .ci/mariadb.sh lets its user make only ``murano_test_*`` ones."""
    admin_url = sa.make_url(require_mariadb())
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url)
    with admin.begin() as connection:
        connection.execute(sa.text(f"CREATE DATABASE `{name}` CHARACTER SET utf8"))
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f"DROP DATABASE `{name}`"))
        admin.dispose()
