"""The package catalog: SQLAlchemy models, Alembic migrations, repository functions."""

from laguna.store.db import Database, make_engine, open_database, upgrade
from laguna.store.errors import DuplicatePackageError, StoreError
from laguna.store.source import StoreSource

__all__ = [
    "Database",
    "DuplicatePackageError",
    "StoreError",
    "StoreSource",
    "make_engine",
    "open_database",
    "upgrade",
]
