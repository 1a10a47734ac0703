"""On PostgreSQL, a counter of the catalog's commits: the generation the
API's kept catalog pages are checked against (:mod:`laguna.store.freshness`).

Read per request, it must cost one row, where summing the packages' ``xmin``
costs a scan of the catalog (1,000 packages: most of a page's cost on the
database server). Deferred constraint triggers add one to the counter's
single row when a transaction that wrote the packages, their tags,
categories or classes commits. Deferred, the row is locked only in the
writer's commit, after all its statements: two writers wait for each other
there, in turn, and never deadlock on it. A reader that sees the counter
unchanged sees no newer commit of the catalog; one that reads the counter,
then the catalog in a later snapshot, gets an answer newer than its key,
never older.

SQLite needs none of it: one number, ``PRAGMA data_version``, covers the
file (its table stays empty). Migration 0008 makes the table and installs
the row and the triggers, and so does
:func:`laguna.store.db.create_schema` (the models know no triggers): both
call :func:`install`. A later change needs a migration that copies this SQL
as it was before changing it.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["READ", "install", "remove"]

TABLE = "catalog_changes"
#: the statement that reads the generation
READ = f"SELECT commits FROM {TABLE} WHERE id = 1"
_FUNCTION = "laguna_catalog_changed"
_TABLES = ("packages", "package_tags", "package_categories", "package_classes")


def _trigger(table: str) -> str:
    return f"laguna_{table}_committed"


def install(connection: sa.Connection) -> None:
    """Create the counter and its triggers (again: replaced); nothing on SQLite."""
    if connection.dialect.name != "postgresql":
        return
    # the table is the models' (CatalogChanges); its one row is made here, and
    # again by the next commit if it was deleted (until then: no generation)
    connection.exec_driver_sql(
        f"INSERT INTO {TABLE} (id, commits) VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
    connection.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN INSERT INTO {TABLE} (id, commits) VALUES (1, 1) ON CONFLICT (id) "
        f"DO UPDATE SET commits = {TABLE}.commits + 1; RETURN NULL; END $$")
    for table in _TABLES:
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {_trigger(table)} ON {table}")
        connection.exec_driver_sql(
            f"CREATE CONSTRAINT TRIGGER {_trigger(table)} AFTER INSERT OR UPDATE OR DELETE "
            f"ON {table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
            f"EXECUTE FUNCTION {_FUNCTION}()")


def remove(connection: sa.Connection) -> None:
    """Drop the triggers and the function; nothing on SQLite."""
    if connection.dialect.name != "postgresql":
        return
    for table in _TABLES:
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {_trigger(table)} ON {table}")
    connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {_FUNCTION}()")
