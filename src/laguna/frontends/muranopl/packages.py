"""The packages of a MuranoPL run: from ``-l`` entries on a deploy, from the
environment's stored packages afterwards (so later commands need no ``-l``).

The core library (io.murano) and the bundled application framework
(io.murano.applications) come with laguna and are never stored.
"""

from __future__ import annotations

import io
import typing as t
import zipfile
from pathlib import Path

from laguna.deploy.context import StoredPackage
from laguna.lang.classes import ClassRegistry
from laguna.packages.package import Package, load_archive
from laguna.packages.source import MemorySource, PackageSource
from laguna.testing.packages import core_registry, library_source

BUNDLED = frozenset({"io.murano", "io.murano.applications"})
_EPOCH = (1980, 1, 1, 0, 0, 0)


def registry_for(libs: t.Sequence[Path] = (),
                 stored: t.Sequence[StoredPackage] = (),
                 catalog: PackageSource | None = None) -> ClassRegistry:
    """A registry with the core library, then ``libs``, then the stored packages
    (the newest deploy's ``-l`` wins over what the environment kept), then the
    catalog (the API's store)."""
    sources: list[PackageSource] = []
    if libs:
        sources.append(library_source(libs))
    if stored:
        sources.append(MemorySource(unpack(stored)))
    if catalog is not None:
        sources.append(catalog)
    return core_registry(*sources)


def unpack(stored: t.Sequence[StoredPackage]) -> list[Package]:
    return [load_archive(package.archive, origin=f"stored package {package.name}")
            for package in stored]


def archive_of(package: Package) -> bytes:
    """The package as a reproducible zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in package.files():
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, package.read(name))
    return buffer.getvalue()


def used_packages(registry: ClassRegistry) -> tuple[StoredPackage, ...]:
    """The packages a loaded model used, bundled ones left out, in load order."""
    result = []
    for holder in registry.packages:
        runtime = holder.package
        if runtime.name in BUNDLED:
            continue
        package = getattr(holder, "source", None)
        if not isinstance(package, Package):
            continue
        result.append(StoredPackage(runtime.name, str(runtime.version), archive_of(package)))
    return tuple(result)

