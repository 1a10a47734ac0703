"""The catalog as a :class:`~laguna.packages.source.PackageSource`."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import Package
from laguna.packages.versions import Version, parse_version
from laguna.store import packages as repo
from laguna.store.db import Database
from laguna.store.models import PackageRecord


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

    # -- descriptor packages (assembly and resource descriptors) ------------------------
    def descriptors(self) -> list[tuple[str, str]]:
        """``(descriptor name, package id)`` of every descriptor package here."""
        with self.database.session() as session:
            return repo.descriptor_packages(session, self._enabled, self._visible_clause())

    def descriptor_archive(self, package_id: str) -> bytes:
        """The archive of a descriptor package listed by :meth:`descriptors`."""
        with self.database.session() as session:
            return repo.descriptor_archive(session, package_id)

    # -- CSAR packages (TOSCA) -----------------------------------------------------------
    def tosca_packages(self, name: str) -> list[tuple[str, str]]:
        """``(version, package id)`` of every CSAR package called ``name`` here."""
        with self.database.session() as session:
            return repo.tosca_packages(session, name, self._enabled, self._visible_clause())

    def tosca_archive(self, package_id: str) -> bytes:
        """The archive of a CSAR package listed by :meth:`tosca_packages`."""
        with self.database.session() as session:
            return repo.tosca_archive(session, package_id)

    def _visible_clause(self) -> sa.ColumnElement[bool] | None:
        return None



class ProjectSource(StoreSource):
    """The catalog as one project sees it: public packages and its own private
    ones; another project's private packages do not exist here."""

    def __init__(self, database: Database, project_id: str,
                 include_disabled: bool = False) -> None:
        super().__init__(database, include_disabled)
        self.project_id = project_id

    def _visible(self) -> sa.ColumnElement[bool]:
        return sa.or_(PackageRecord.is_public.is_(True),
                      PackageRecord.owner_id == self.project_id)

    def _visible_clause(self) -> sa.ColumnElement[bool] | None:
        return self._visible()

    def _versions(self, session: Session, name: str) -> set[Version]:
        query = sa.select(PackageRecord.version).where(
            PackageRecord.fully_qualified_name == name, self._visible())
        return {parse_version(version) for version in session.scalars(query)}

    def names(self) -> list[str]:
        with self.database.session() as session:
            visible = set(session.scalars(sa.select(PackageRecord.fully_qualified_name)
                                          .where(self._visible())))
        return [name for name in super().names() if name in visible]

    def versions(self, name: str) -> list[Version]:
        with self.database.session() as session:
            visible = self._versions(session, name)
        return [version for version in super().versions(name) if version in visible]

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        found = super().packages_with_class(class_name)
        with self.database.session() as session:
            visible = {name: self._versions(session, name) for name in {n for n, _ in found}}
        return [(name, version) for name, version in found if version in visible[name]]

    def get(self, name: str, version: Version) -> Package:
        with self.database.session() as session:
            if version not in self._versions(session, name):
                raise PackageNotFoundError(name, str(version))
        return super().get(name, version)
