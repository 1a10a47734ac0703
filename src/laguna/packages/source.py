"""Where packages come from: the ``PackageSource`` protocol and its built-ins.

The engine asks a source which versions of a name exist, picks one with a
:class:`~laguna.packages.versions.Requirement`, and gets the package. A
source knows nothing about MuranoPL. Built-ins: :class:`DirectorySource`
(folders and zips on disk), :class:`ChainSource` (several sources, first
wins), :class:`MemorySource` (packages already loaded, for tests) and
``laguna.store.StoreSource`` (the catalog database).
"""

from __future__ import annotations

import dataclasses
import os
import typing as t
from pathlib import Path

from laguna.errors import LagunaError
from laguna.packages.archive import DEFAULT_LIMITS, ArchiveLimits
from laguna.packages.errors import PackageNotFoundError
from laguna.packages.manifest import MANIFEST_FILE
from laguna.packages.package import Package, load_archive, load_directory
from laguna.packages.versions import Requirement, Version


@t.runtime_checkable
class PackageSource(t.Protocol):
    """A read-only set of packages, each identified by name and version."""

    def names(self) -> list[str]:
        """Every package name, sorted."""
        ...

    def versions(self, name: str) -> list[Version]:
        """The versions of ``name``, ascending; empty if there is none."""
        ...

    def get(self, name: str, version: Version) -> Package:
        """That exact package; :class:`PackageNotFoundError` if absent."""
        ...


@t.runtime_checkable
class ClassIndexedSource(PackageSource, t.Protocol):
    """A source that can tell which packages define a class without loading them all."""

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        """``(package name, version)`` of every package defining ``class_name``."""
        ...


def packages_with_class(source: PackageSource, class_name: str) -> list[tuple[str, Version]]:
    """Which packages of ``source`` define ``class_name``, sorted.

    Uses the source's own index when it has one; otherwise every package is
    read, which is slow for a large source.
    """
    if isinstance(source, ClassIndexedSource):
        return sorted(source.packages_with_class(class_name))
    return sorted((name, version) for name in source.names() for version in source.versions(name)
                  if class_name in source.get(name, version).class_names())


def resolve(source: PackageSource, name: str, requirement: Requirement) -> Package:
    """The highest version of ``name`` that satisfies ``requirement``."""
    version = requirement.select(source.versions(name))
    if version is None:
        raise PackageNotFoundError(name, str(requirement))
    return source.get(name, version)


class MemorySource:
    """Packages given up front; the in-library fake for engine tests."""

    def __init__(self, packages: t.Iterable[Package] = ()) -> None:
        self._packages: dict[tuple[str, Version], Package] = {}
        self._class_index: dict[str, list[tuple[str, Version]]] | None = None
        for package in packages:
            self.add(package)

    def add(self, package: Package) -> None:
        self._packages[(package.name, package.version)] = package
        self._class_index = None

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        """Packages defining ``class_name``; the index is built on first use
        (it reads the class files' names of every package once)."""
        if self._class_index is None:
            index: dict[str, list[tuple[str, Version]]] = {}
            for key, package in sorted(self._packages.items()):
                try:
                    names = package.class_names()
                except LagunaError:
                    continue  # an unreadable package defines nothing usable
                for name in names:
                    index.setdefault(name, []).append(key)
            self._class_index = index
        return list(self._class_index.get(class_name, []))

    def names(self) -> list[str]:
        return sorted({name for name, _ in self._packages})

    def versions(self, name: str) -> list[Version]:
        return sorted(v for n, v in self._packages if n == name)

    def get(self, name: str, version: Version) -> Package:
        try:
            return self._packages[(name, version)]
        except KeyError:
            raise PackageNotFoundError(name, str(version)) from None


@dataclasses.dataclass(frozen=True)
class SkippedPackage:
    """A folder or archive :class:`DirectorySource` could not use, and why."""

    path: str
    error: LagunaError


class DirectorySource(MemorySource):
    """Packages found on disk.

    Each path is a package folder (it has a ``manifest.yaml``), a package
    zip, or a folder whose subfolders (those with a ``manifest.yaml`` or a
    ``Classes/`` folder) and ``*.zip`` files are packages.
    Manifests are read once, when the source is made; the rest of a package
    is read when it is first asked for. When two entries have the same name
    and version, the first one found wins and the other is listed in
    ``duplicates``; entries that are not valid packages are listed in
    ``skipped``.
    """

    def __init__(self, paths: t.Iterable[str | os.PathLike[str]],
                 limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
        super().__init__()
        self.limits = limits
        self.skipped: list[SkippedPackage] = []
        self.duplicates: list[str] = []
        for path in paths:
            for candidate in self._candidates(Path(path)):
                self._index(candidate)

    @staticmethod
    def _candidates(path: Path) -> list[Path]:
        if path.is_file() or (path / MANIFEST_FILE).is_file():
            return [path]
        if not path.is_dir():
            return [path]  # reported as skipped by _index
        # A subfolder with neither a manifest nor Classes/ is no attempt at a
        # package (a folder of packages may hold other blueprints, as examples/
        # holds TOSCA and assembly ones) and is passed over; one that has either
        # is a package, and is reported when it is not a usable one.
        return sorted(child for child in path.iterdir()
                      if (child.is_dir() and not child.name.startswith(".")
                          and ((child / MANIFEST_FILE).is_file() or (child / "Classes").is_dir()))
                      or (child.is_file() and child.suffix == ".zip"))

    def _index(self, path: Path) -> None:
        try:
            if path.is_dir():
                package = load_directory(path)
            elif path.is_file():
                package = load_archive(path, self.limits)
            else:
                raise PackageNotFoundError(str(path))
        except LagunaError as exc:
            self.skipped.append(SkippedPackage(str(path), exc))
            return
        key = (package.name, package.version)
        if key in self._packages:
            self.duplicates.append(str(path))
        else:
            self.add(package)


class ChainSource:
    """Several sources as one; for a name and version the first source that has it wins."""

    def __init__(self, sources: t.Iterable[PackageSource]) -> None:
        self.sources = list(sources)

    def names(self) -> list[str]:
        return sorted({name for source in self.sources for name in source.names()})

    def versions(self, name: str) -> list[Version]:
        return sorted({v for source in self.sources for v in source.versions(name)})

    def get(self, name: str, version: Version) -> Package:
        for source in self.sources:
            if version in source.versions(name):
                return source.get(name, version)
        raise PackageNotFoundError(name, str(version))

    def packages_with_class(self, class_name: str) -> list[tuple[str, Version]]:
        return sorted({found for source in self.sources
                       for found in packages_with_class(source, class_name)})
