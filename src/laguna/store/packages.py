"""Catalog operations on packages, as functions over a session.

Callers own the transaction (``with database.session() as session``); these
functions only flush. Missing packages raise
:class:`~laguna.packages.errors.PackageNotFoundError`.
"""

from __future__ import annotations

import dataclasses
import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.packages.errors import PackageLoadError, PackageNotFoundError
from laguna.packages.package import Package, load_archive
from laguna.packages.versions import Version, parse_version
from laguna.store.errors import DuplicatePackageError
from laguna.store.models import PackageCategory, PackageClass, PackageRecord, PackageTag


@dataclasses.dataclass(frozen=True)
class PackageFilter:
    """What :func:`list_packages` keeps; None means "any"."""

    fully_qualified_name: str | None = None
    type: str | None = None
    tag: str | None = None
    category: str | None = None
    enabled: bool | None = None
    is_public: bool | None = None
    owner_id: str | None = None
    #: case-insensitive text looked for in the name, FQN and description
    search: str | None = None


def import_package(session: Session, package: Package, *, enabled: bool = True,
                   is_public: bool = False, owner_id: str | None = None,
                   categories: t.Iterable[str] = (), archive: bytes | None = None) -> PackageRecord:
    """Add a package to the catalog; refuse a name and version already there.

    ``archive`` is stored as is when given; otherwise one is built from the
    package's files.
    """
    version = str(package.version)
    if _find(session, package.name, package.version) is not None:
        raise DuplicatePackageError(package.name, version)
    manifest = package.manifest
    try:
        logo = package.logo()
    except PackageLoadError:
        logo = None
    record = PackageRecord(
        fully_qualified_name=package.name,
        name=manifest.name,
        version=version,
        version_major=package.version.major,
        version_minor=package.version.minor,
        version_patch=package.version.patch,
        version_prerelease=".".join(package.version.prerelease),
        type=manifest.type.value,
        format=manifest.format.name,
        description=manifest.description,
        author=manifest.author,
        enabled=enabled,
        is_public=is_public,
        owner_id=owner_id,
        archive=archive if archive is not None else package.to_archive(),
        manifest=manifest.to_data(),
        logo=logo,
        ui_definition=package.ui_definition() if manifest.ui is not None or
        package.ui_path in package.files() else None,
    )
    record.tag_rows = [PackageTag(tag=tag) for tag in sorted(set(manifest.tags))]
    record.category_rows = [PackageCategory(category=c) for c in sorted(set(categories))]
    record.class_rows = [PackageClass(class_name=name) for name in package.class_names()]
    session.add(record)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        # Someone else imported the same name and version since we looked.
        raise DuplicatePackageError(package.name, version) from None
    return record


def _find(session: Session, name: str, version: Version) -> PackageRecord | None:
    statement = sa.select(PackageRecord).where(
        PackageRecord.fully_qualified_name == name, PackageRecord.version == str(version))
    return session.scalars(statement).one_or_none()


def list_packages(session: Session, where: PackageFilter = PackageFilter()) -> list[PackageRecord]:
    """Packages matching ``where``, by name and then ascending version."""
    statement = sa.select(PackageRecord)
    if where.fully_qualified_name is not None:
        statement = statement.where(PackageRecord.fully_qualified_name == where.fully_qualified_name)
    if where.type is not None:
        statement = statement.where(PackageRecord.type == where.type)
    if where.enabled is not None:
        statement = statement.where(PackageRecord.enabled == where.enabled)
    if where.is_public is not None:
        statement = statement.where(PackageRecord.is_public == where.is_public)
    if where.owner_id is not None:
        statement = statement.where(PackageRecord.owner_id == where.owner_id)
    if where.tag is not None:
        statement = statement.where(PackageRecord.tag_rows.any(PackageTag.tag == where.tag))
    if where.category is not None:
        statement = statement.where(
            PackageRecord.category_rows.any(PackageCategory.category == where.category))
    if where.search:
        pattern = f"%{where.search.lower()}%"
        statement = statement.where(sa.or_(
            sa.func.lower(PackageRecord.fully_qualified_name).like(pattern),
            sa.func.lower(PackageRecord.name).like(pattern),
            sa.func.lower(sa.func.coalesce(PackageRecord.description, "")).like(pattern)))
    records = list(session.scalars(statement))
    return sorted(records, key=lambda r: (r.fully_qualified_name, parse_version(r.version)))


def package_names(session: Session, enabled: bool | None = None) -> list[str]:
    """Every fully qualified name in the catalog (only enabled/disabled ones if asked), sorted."""
    statement = sa.select(PackageRecord.fully_qualified_name).distinct()
    if enabled is not None:
        statement = statement.where(PackageRecord.enabled == enabled)
    return sorted(session.scalars(statement))


def package_versions(session: Session, name: str, enabled: bool | None = None) -> list[Version]:
    """The versions of ``name`` in the catalog, ascending (SemVer order)."""
    statement = sa.select(PackageRecord.version).where(
        PackageRecord.fully_qualified_name == name)
    if enabled is not None:
        statement = statement.where(PackageRecord.enabled == enabled)
    return sorted(parse_version(v) for v in session.scalars(statement))


def packages_with_class(session: Session, class_name: str,
                        enabled: bool | None = None) -> list[tuple[str, Version]]:
    """``(name, version)`` of every package defining ``class_name``, sorted."""
    statement = (sa.select(PackageRecord.fully_qualified_name, PackageRecord.version)
                 .join(PackageClass, PackageClass.package_id == PackageRecord.id)
                 .where(PackageClass.class_name == class_name))
    if enabled is not None:
        statement = statement.where(PackageRecord.enabled == enabled)
    return sorted((name, parse_version(version)) for name, version in session.execute(statement))


def get_package(session: Session, name: str, version: Version | str | None = None) -> PackageRecord:
    """One package: that version, or the highest one when ``version`` is None."""
    if version is None:
        versions = package_versions(session, name)
        if not versions:
            raise PackageNotFoundError(name)
        version = versions[-1]
    wanted = parse_version(version) if isinstance(version, str) else version
    record = _find(session, name, wanted)
    if record is None:
        raise PackageNotFoundError(name, str(wanted))
    return record


def delete_package(session: Session, name: str, version: Version | str | None = None) -> list[str]:
    """Delete one version, or every version when ``version`` is None; return the versions deleted."""
    if version is None:
        records = list_packages(session, PackageFilter(fully_qualified_name=name))
        if not records:
            raise PackageNotFoundError(name)
    else:
        records = [get_package(session, name, version)]
    for record in records:
        session.delete(record)
    session.flush()
    return [record.version for record in records]


def set_flags(session: Session, name: str, version: Version | str, *, enabled: bool | None = None,
              is_public: bool | None = None) -> PackageRecord:
    """Enable/disable a package or change whether it is public."""
    record = get_package(session, name, version)
    if enabled is not None:
        record.enabled = enabled
    if is_public is not None:
        record.is_public = is_public
    session.flush()
    return record


def load_record(record: PackageRecord) -> Package:
    """The package stored in a record, read from its archive."""
    return load_archive(record.archive, origin=f"catalog:{record.fully_qualified_name}=="
                                              f"{record.version}")
