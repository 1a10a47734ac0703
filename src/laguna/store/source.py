"""The catalog as a :class:`~laguna.packages.source.PackageSource`."""

from __future__ import annotations

from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import Package
from laguna.packages.versions import Version
from laguna.store import packages as repo
from laguna.store.db import Database


class StoreSource:
    """Packages from the catalog database.

    Loaded packages are cached by name and version (an imported version never
    changes; it can only be deleted and imported again, which a long-lived
    source will not notice until :meth:`clear`). Disabled packages are
    hidden unless ``include_disabled`` is set.
    """

    def __init__(self, database: Database, include_disabled: bool = False) -> None:
        self.database = database
        self.include_disabled = include_disabled
        self._cache: dict[tuple[str, Version], Package] = {}

    @property
    def _enabled(self) -> bool | None:
        return None if self.include_disabled else True

    def names(self) -> list[str]:
        with self.database.session() as session:
            return repo.package_names(session, self._enabled)

    def versions(self, name: str) -> list[Version]:
        with self.database.session() as session:
            return repo.package_versions(session, name, self._enabled)

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        with self.database.session() as session:
            return repo.packages_with_class(session, class_name, self._enabled)

    def get(self, name: str, version: Version) -> Package:
        key = (name, version)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        with self.database.session() as session:
            record = repo.get_package(session, name, version)
            if not record.enabled and not self.include_disabled:
                raise PackageNotFoundError(name, str(version))
            package = repo.load_record(record)
        self._cache[key] = package
        return package

    def clear(self) -> None:
        """Forget the loaded packages."""
        self._cache.clear()

