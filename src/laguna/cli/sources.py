"""Where CLI commands find packages: ``-l`` folders, then the catalog store."""

from __future__ import annotations

import contextlib
import os
import typing as t
from pathlib import Path

import click
import sqlalchemy as sa

from laguna.config import Config
from laguna.packages.source import DirectorySource, PackageSource
from laguna.store.db import open_database
from laguna.store.source import StoreSource

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def lib_option(function: F) -> F:
    """``-l/--lib``: a folder of packages, a package folder or a package zip."""
    return click.option(
        "-l", "--lib", "libs", multiple=True, type=click.Path(exists=True, path_type=Path),
        help="A folder of packages, or a package (folder or zip), to take required "
             "packages from before the catalog; repeatable.")(function)


def db_url_option(function: F) -> F:
    return click.option(
        "--db-url", metavar="URL",
        help="Catalog database URL (default: $LAGUNA_DATABASE_URL, else an SQLite "
             "file in the user's data folder).")(function)


def configured_url(db_url: str | None) -> str:
    """The catalog URL: the option, else the configuration of this invocation."""
    if db_url is not None:
        return db_url
    context = click.get_current_context(silent=True)
    config = context.find_object(Config) if context is not None else None
    return (config or Config.from_environ(os.environ)).database_url


def _missing_sqlite_file(url: str) -> bool:
    parsed = sa.make_url(url)
    return (parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
            and not Path(str(parsed.database)).exists())


def warn_skipped(libraries: DirectorySource) -> None:
    """Tell the user about ``-l`` entries that are not usable packages."""
    for skipped in libraries.skipped:
        reason = getattr(skipped.error, "message", None) or str(skipped.error)
        click.echo(f"warning: {skipped.path} is not a usable package: {reason}", err=True)


@contextlib.contextmanager
def catalog_sources(db_url: str | None) -> t.Iterator[list[PackageSource]]:
    """The catalog store as a package source, when there is a catalog (a catalog
    file that does not exist yet is not created just to be read)."""
    url = configured_url(db_url)
    if _missing_sqlite_file(url):
        yield []
        return
    database = open_database(url)
    try:
        yield [StoreSource(database)]
    finally:
        database.dispose()


@contextlib.contextmanager
def package_sources(libs: t.Sequence[Path], db_url: str | None) -> t.Iterator[list[PackageSource]]:
    """The ``-l`` entries as one source, then the catalog."""
    libraries = DirectorySource(libs)
    warn_skipped(libraries)
    with catalog_sources(db_url) as catalog:
        yield [libraries, *catalog]
