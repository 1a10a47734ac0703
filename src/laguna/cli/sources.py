"""Where CLI commands find packages: ``-l`` folders, then the catalog store."""

from __future__ import annotations

import contextlib
import os
import typing as t
from pathlib import Path

import click

from laguna.cli.errors import CatalogError
from laguna.cli.shared import WORKDIR_KEY, HiddenAliases
from laguna.config import DATABASE_URL_VAR, Config, resolve_workdir, sqlite_url, workdir_store
from laguna.packages.source import DirectorySource, PackageSource
from laguna.packages.versions import Version

if t.TYPE_CHECKING:
    import sqlalchemy as sa

    from laguna.packages.package import Package
    from laguna.store.db import Database
    from laguna.store.source import StoreSource

# SQLAlchemy and the store (with Alembic) are imported where a catalog URL is
# read or a catalog opened, not with this module: `laguna test` of a package
# that needs nothing from the catalog never pays their ~1.2 s of imports.

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def lib_option(function: F) -> F:
    """``-l/--lib``: a folder of packages, a package folder or a package zip."""
    return click.option(
        "-l", "--lib", "libs", multiple=True, type=click.Path(exists=True, path_type=Path),
        help="A folder of packages, or a package (folder or zip), to take required "
             "packages from before the catalog; repeatable.")(function)


def db_url_option(function: F) -> F:
    """``--db-url URL``: the catalog; a path is taken as an SQLite file."""
    return click.option(
        "--db-url", "--db", "db_url", metavar="URL", callback=_db_url_value,
        cls=HiddenAliases, hidden_aliases=("--db",),
        help="Catalog database URL, or the path of an SQLite file (default: "
             "$LAGUNA_DATABASE_URL, else the working directory's store, which "
             "`laguna serve` and the deployments use)."
    )(function)


def _db_url_value(_ctx: click.Context, _param: click.Parameter,
                  value: str | None) -> str | None:
    return None if value is None else catalog_url(value, "--db-url")


def catalog_url(value: str, origin: str) -> str:
    """``value`` as a catalog URL, or :class:`CatalogError` saying why it is none.

    A value without ``://`` is the path of an SQLite file. The folder of an
    SQLite file must exist: a mistyped path is not silently made into a new,
    empty catalog.
    """
    import sqlalchemy as sa
    from sqlalchemy import exc as sa_exc

    if "://" not in value:
        value = sqlite_url(Path(value).expanduser())
    try:
        parsed = sa.make_url(value)
        parsed.get_dialect()
    except sa_exc.NoSuchModuleError:   # an ArgumentError: first
        raise CatalogError(f"{origin} {_shown(parsed)!r}: unknown database kind "
                           f"{parsed.drivername!r}; expected sqlite or postgresql") from None
    except (sa_exc.ArgumentError, ValueError):
        raise CatalogError(f"{origin} is not a database URL; expected sqlite:///PATH, "
                           "postgresql://HOST/NAME or an SQLite file's path") from None
    database = parsed.database
    if parsed.get_backend_name() == "sqlite" and database not in (None, "", ":memory:"):
        folder = Path(str(database)).parent
        if not folder.is_dir():
            raise CatalogError(f"{origin} {_shown(parsed)!r}: folder {str(folder)!r} does "
                               "not exist")
    return value


def _shown(url: sa.URL) -> str:
    """A URL fit for a message: its password hidden."""
    return url.render_as_string(hide_password=True)


def configured_url(db_url: str | None) -> str:
    """The catalog URL: the option, else the configuration of this invocation
    (checked as the option is), else the working directory's store."""
    url, origin = _unchecked_url(db_url)
    return url if origin is None else catalog_url(url, origin)


def _unchecked_url(db_url: str | None) -> tuple[str, str | None]:
    """The catalog URL, and where it comes from if it still needs checking.

    One working directory, one store, one catalog: without ``--db-url`` or
    ``$LAGUNA_DATABASE_URL`` the catalog is the working directory's store,
    where `laguna serve` imports packages and deployments keep theirs. A read
    of a store that does not exist finds nothing and creates nothing
    (:class:`DeferredCatalog`); a write creates it.
    """
    if db_url is not None:
        return db_url, None   # checked as the option was read
    context = click.get_current_context(silent=True)
    config = context.find_object(Config) if context is not None else None
    url = (config or Config.from_environ(os.environ)).database_url
    if url is None:
        option = context.meta.get(WORKDIR_KEY) if context is not None else None
        workdir = resolve_workdir(option, os.environ, Path.cwd())
        return sqlite_url(workdir_store(workdir)), None
    return url, f"${DATABASE_URL_VAR}"


def open_catalog(url: str) -> Database:
    """The catalog at ``url``, migrated; a database that cannot be reached or
    is not a catalog is a :class:`CatalogError`."""
    import sqlalchemy as sa
    from sqlalchemy import exc as sa_exc

    from laguna.store.db import open_database

    try:
        return open_database(url)
    except sa_exc.SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise CatalogError(f"cannot open the catalog {_shown(sa.make_url(url))}: "
                           f"{reason}") from None


def missing_sqlite_file(url: str) -> bool:
    """Whether ``url`` is an SQLite file that does not exist (a read finds nothing in it)."""
    import sqlalchemy as sa

    parsed = sa.make_url(url)
    return (parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
            and not Path(str(parsed.database)).exists())


def warn_skipped(libraries: DirectorySource) -> None:
    """Tell the user about ``-l`` entries that are not usable packages."""
    for skipped in libraries.skipped:
        reason = getattr(skipped.error, "message", None) or str(skipped.error)
        click.echo(f"warning: {skipped.path} is not a usable package: {reason}", err=True)


class DeferredCatalog:
    """The catalog store as a package source, opened (and SQLAlchemy imported)
    at the first question asked of it: a run that finds every package in the
    ``-l`` entries or the core library never opens it. A catalog that cannot
    be opened then is a :class:`CatalogError` where the package was needed,
    and a catalog file that does not exist is no package at all (it is not
    created just to be read)."""

    def __init__(self, url: str, origin: str | None = None) -> None:
        self.url = url
        self._origin = origin   # where an unchecked URL came from, for its error
        self._source: StoreSource | None = None
        self._database: Database | None = None
        self._absent = False

    def _store(self) -> StoreSource | None:
        if self._source is None and not self._absent:
            if self._origin is not None:
                self.url = catalog_url(self.url, self._origin)
                self._origin = None
            if missing_sqlite_file(self.url):
                self._absent = True
                return None
            from laguna.store.source import StoreSource

            self._database = open_catalog(self.url)
            self._source = StoreSource(self._database)
        return self._source

    def names(self) -> list[str]:
        store = self._store()
        return [] if store is None else store.names()

    def versions(self, name: str) -> list[Version]:
        store = self._store()
        return [] if store is None else store.versions(name)

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        store = self._store()
        return [] if store is None else store.packages_with_class(class_name)

    def get(self, name: str, version: Version) -> Package:
        store = self._store()
        if store is None:
            from laguna.packages.errors import PackageNotFoundError

            raise PackageNotFoundError(name, str(version))
        return store.get(name, version)

    def descriptors(self) -> list[tuple[str, str]]:
        """The store's descriptor packages (assembly and resource descriptors)."""
        store = self._store()
        return [] if store is None else store.descriptors()

    def descriptor_archive(self, package_id: str) -> bytes:
        store = self._store()
        if store is None:
            from laguna.packages.errors import PackageNotFoundError

            raise PackageNotFoundError(package_id)
        return store.descriptor_archive(package_id)

    def tosca_packages(self, name: str) -> list[tuple[str, str]]:
        """``(version, package id)`` of the store's CSAR packages called ``name``."""
        store = self._store()
        return [] if store is None else store.tosca_packages(name)

    def tosca_archive(self, package_id: str) -> bytes:
        store = self._store()
        if store is None:
            from laguna.packages.errors import PackageNotFoundError

            raise PackageNotFoundError(package_id)
        return store.tosca_archive(package_id)

    @property
    def opened(self) -> bool:
        """Whether the catalog was needed (and so opened)."""
        return self._database is not None

    def close(self) -> None:
        if self._database is not None:
            self._database.dispose()
            self._database = None
            self._source = None


@contextlib.contextmanager
def catalog_sources(db_url: str | None) -> t.Iterator[list[PackageSource]]:
    """The catalog store as a package source, opened when first asked
    (:class:`DeferredCatalog`)."""
    catalog = DeferredCatalog(*_unchecked_url(db_url))
    try:
        yield [catalog]
    finally:
        catalog.close()


@contextlib.contextmanager
def package_sources(libs: t.Sequence[Path], db_url: str | None) -> t.Iterator[list[PackageSource]]:
    """The ``-l`` entries as one source, then the catalog."""
    libraries = DirectorySource(libs)
    warn_skipped(libraries)
    with catalog_sources(db_url) as catalog:
        yield [libraries, *catalog]
