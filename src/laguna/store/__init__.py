"""The package catalog: SQLAlchemy models, Alembic migrations, repository functions.

The names below are imported when first used (PEP 562), so that a light
module of the package (:mod:`laguna.store.names`) loads without SQLAlchemy.
"""

from __future__ import annotations

import typing as t

from laguna import lazy

if t.TYPE_CHECKING:
    from laguna.store.db import Database, make_engine, open_database, upgrade
    from laguna.store.errors import DuplicatePackageError, StoreError
    from laguna.store.source import StoreSource

#: each public name and the module that defines it
_HOMES = {
    "Database": "laguna.store.db",
    "DuplicatePackageError": "laguna.store.errors",
    "StoreError": "laguna.store.errors",
    "StoreSource": "laguna.store.source",
    "make_engine": "laguna.store.db",
    "open_database": "laguna.store.db",
    "upgrade": "laguna.store.db",
}

__all__ = [
    "Database",
    "DuplicatePackageError",
    "StoreError",
    "StoreSource",
    "make_engine",
    "open_database",
    "upgrade",
]


def __getattr__(name: str) -> t.Any:
    return lazy.attribute(globals(), _HOMES, name)
