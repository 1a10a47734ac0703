"""Catalog operations on packages, as functions over a session.

Callers own the transaction (``with database.session() as session``); these
functions only flush. Missing packages raise
:class:`~laguna.packages.errors.PackageNotFoundError`.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
import typing as t
import uuid

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from laguna.packages.errors import PackageLoadError, PackageNotFoundError
from laguna.packages.package import Package, load_archive
from laguna.packages.versions import Version, parse_version
from laguna.store.categories import require_categories
from laguna.store.errors import DuplicatePackageError
from laguna.store.models import (
    PackageCategory,
    PackageClass,
    PackageRecord,
    PackageTag,
    utcnow,
)
from laguna.store.paging import SortKey, after, order_clauses


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
                   categories: t.Iterable[str] = (), archive: bytes | None = None,
                   tags: t.Iterable[str] = (),
                   package_id: uuid.UUID | None = None) -> PackageRecord:
    """Add a package to the catalog; refuse a name and version already there.

    ``archive`` is stored as is when given; otherwise one is built from the
    package's files. ``tags`` are added to the manifest's. ``package_id``: the
    id to keep (a package taken over from Murano); a new one otherwise.
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
        id=package_id or uuid.uuid4(),
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
    record.tag_rows = [PackageTag(tag=tag) for tag in sorted({*manifest.tags, *tags})]
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


def import_descriptor_package(session: Session, *, kind: str, name: str, version: str,
                              description: str, archive: bytes,
                              manifest: t.Mapping[str, t.Any], enabled: bool = True,
                              is_public: bool = False, owner_id: str | None = None,
                              categories: t.Iterable[str] = ()) -> PackageRecord:
    """Add an assembly or resource descriptor package (docs/DESCRIPTORS.md) beside the
    MuranoPL ones: type ``Assembly``/``Resource``, format ``Descriptor/1.0``; its
    dot-separated numeric version fills major, minor and patch."""
    parts = [int(p) for p in version.split(".")] + [0, 0, 0]
    if version.count(".") < 3:
        # stored as the catalog's other versions are (1.10 -> 1.10.0); the manifest
        # keeps the descriptor's own name
        version = ".".join(str(p) for p in parts[:3])
    exists = session.scalar(sa.select(PackageRecord).where(
        PackageRecord.fully_qualified_name == name, PackageRecord.version == version))
    if exists is not None:
        raise DuplicatePackageError(name, version)
    record = PackageRecord(
        fully_qualified_name=name, name=name.split("::", 1)[-1], version=version,
        version_major=parts[0], version_minor=parts[1], version_patch=parts[2],
        version_prerelease="", type=kind.capitalize(), format=str(manifest["Format"]),
        description=description or None, author=None, enabled=enabled, is_public=is_public,
        owner_id=owner_id, archive=archive, manifest=dict(manifest), logo=None,
        ui_definition=None)
    return _added(session, record, categories)


def _added(session: Session, record: PackageRecord, categories: t.Iterable[str]
           ) -> PackageRecord:
    """``record`` (a package with no tags and no classes) written; a name and version
    someone imported since we looked is refused."""
    record.tag_rows = []
    record.category_rows = [PackageCategory(category=c) for c in sorted(set(categories))]
    record.class_rows = []
    session.add(record)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        raise DuplicatePackageError(record.fully_qualified_name, record.version) from None
    return record


#: the format ``laguna package import`` gives descriptor packages
DESCRIPTOR_FORMAT = "Descriptor/1.0"


#: the format ``laguna package import`` gives CSAR packages (docs/TOSCA.md)
TOSCA_FORMAT = "TOSCA/1.3"


def import_tosca_package(session: Session, *, name: str, version: str, description: str,
                         archive: bytes, manifest: t.Mapping[str, t.Any],
                         enabled: bool = True, is_public: bool = False,
                         owner_id: str | None = None,
                         categories: t.Iterable[str] = ()) -> PackageRecord:
    """Add a CSAR (checked by the TOSCA front end) beside the other packages: type
    ``Tosca``, format ``TOSCA/1.3``, its SemVer version like a MuranoPL package's."""
    parsed = parse_version(version)
    if _find(session, name, parsed) is not None:
        raise DuplicatePackageError(name, str(parsed))
    record = PackageRecord(
        fully_qualified_name=name, name=name, version=str(parsed),
        version_major=parsed.major, version_minor=parsed.minor, version_patch=parsed.patch,
        version_prerelease=".".join(parsed.prerelease), type="Tosca",
        format=TOSCA_FORMAT, description=description or None, author=None,
        enabled=enabled, is_public=is_public, owner_id=owner_id, archive=archive,
        manifest=dict(manifest), logo=None, ui_definition=None)
    return _added(session, record, categories)


def tosca_packages(session: Session, name: str, enabled: bool | None = True,
                   visible: sa.ColumnElement[bool] | None = None) -> list[tuple[str, str]]:
    """``(version, package id)`` of every CSAR package called ``name``."""
    statement = sa.select(PackageRecord.version, PackageRecord.id).where(
        PackageRecord.format == TOSCA_FORMAT, PackageRecord.fully_qualified_name == name)
    if enabled is not None:
        statement = statement.where(PackageRecord.enabled == enabled)
    if visible is not None:
        statement = statement.where(visible)
    return sorted((version, key.hex) for version, key in session.execute(statement))


def tosca_archive(session: Session, package_id: str) -> bytes:
    """The archive of CSAR package ``package_id``."""
    record = find_package(session, package_id)
    if record is None or record.format != TOSCA_FORMAT:
        raise PackageNotFoundError(package_id)
    return record.archive


def descriptor_packages(session: Session, enabled: bool | None = True,
                        visible: sa.ColumnElement[bool] | None = None) -> list[tuple[str, str]]:
    """``(descriptor name, package id)`` of every descriptor package, sorted.

    The descriptor's own name comes from the manifest (a version ``1.10`` is
    stored as ``1.10.0``, and the front end must see ``1.10`` again); archives
    are not read here.
    """
    statement = sa.select(PackageRecord.id, PackageRecord.manifest).where(
        PackageRecord.format == DESCRIPTOR_FORMAT)
    if enabled is not None:
        statement = statement.where(PackageRecord.enabled == enabled)
    if visible is not None:
        statement = statement.where(visible)
    return sorted((str(manifest["Descriptor"]), key.hex)
                  for key, manifest in session.execute(statement))


def descriptor_archive(session: Session, package_id: str) -> bytes:
    """The archive of descriptor package ``package_id``."""
    record = find_package(session, package_id)
    if record is None or record.format != DESCRIPTOR_FORMAT:
        raise PackageNotFoundError(package_id)
    return record.archive


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


# -- the API's view of the catalog: by id, visibility, search and paging -----------------


def find_package(session: Session, package_id: str) -> PackageRecord | None:
    """The package of that id (with or without dashes), None when there is none."""
    try:
        key = uuid.UUID(package_id)
    except ValueError:
        return None
    return session.get(PackageRecord, key)


def visible_to(project_id: str) -> sa.ColumnElement[bool]:
    """The packages a project may use: its own and the public ones."""
    return sa.or_(PackageRecord.owner_id == project_id, PackageRecord.is_public)


#: what ``PackageQuery.order_by`` may name, and the column each sorts by
ORDER_KEYS: dict[str, t.Any] = {
    "fqn": PackageRecord.fully_qualified_name,
    "name": PackageRecord.name,
    "created": PackageRecord.created_at,
}


@dataclasses.dataclass(frozen=True)
class PackageQuery:
    """A search of the catalog as the API asks it; None or empty means "any"."""

    project_id: str
    is_admin: bool = False
    #: only the packages the caller may deploy (its own and public ones), even
    #: for an admin; otherwise the packages it may edit (an admin: all)
    catalog: bool = False
    include_disabled: bool = False
    #: only the caller project's own packages
    owned: bool = False
    ids: t.Sequence[str] | None = None
    categories: t.Sequence[str] | None = None
    tags: t.Sequence[str] | None = None
    class_name: str | None = None
    fully_qualified_name: str | None = None
    name: str | None = None
    type: str | None = None
    #: words (separated by ``,`` or ``;``) looked for in names, descriptions,
    #: categories, tags, class names and authors; the best field found sorts first
    search: str | None = None
    order_by: t.Sequence[str] = ("name",)
    descending: bool = False
    marker: str | None = None
    limit: int | None = None


def _search_weight(words: t.Sequence[str]) -> tuple[sa.ColumnElement[bool], t.Any]:
    """The condition "some word is found" and the rank of the first field a word
    is found in (0 the name ... 6 the author), as the original ranked them."""
    def text(column: t.Any, word: str) -> sa.ColumnElement[bool]:
        return sa.func.lower(sa.func.coalesce(column, "")).contains(word.lower(),
                                                                    autoescape=True)

    fields: list[t.Callable[[str], sa.ColumnElement[bool]]] = [
        lambda w: text(PackageRecord.name, w),
        lambda w: text(PackageRecord.fully_qualified_name, w),
        lambda w: text(PackageRecord.description, w),
        lambda w: PackageRecord.category_rows.any(text(PackageCategory.category, w)),
        lambda w: PackageRecord.tag_rows.any(text(PackageTag.tag, w)),
        lambda w: PackageRecord.class_rows.any(text(PackageClass.class_name, w)),
        lambda w: text(PackageRecord.author, w),
    ]
    cases = [(field(word), rank) for rank, field in enumerate(fields) for word in words]
    return sa.or_(*(condition for condition, _ in cases)), sa.case(*cases)


def _search_statement(session: Session, query: PackageQuery) -> sa.Select[t.Any]:
    """The SELECT of :func:`search_packages`: filters, order and limit."""
    statement = sa.select(PackageRecord)
    if query.catalog or not query.is_admin:
        statement = statement.where(visible_to(query.project_id))
    if not query.include_disabled:
        statement = statement.where(PackageRecord.enabled)
    if query.owned:
        statement = statement.where(PackageRecord.owner_id == query.project_id)
    if query.type is not None:
        statement = statement.where(PackageRecord.type == query.type.title())
    if query.ids is not None:
        statement = statement.where(PackageRecord.id.in_(_uuids(query.ids)))
    if query.categories is not None:
        statement = statement.where(PackageRecord.category_rows.any(
            PackageCategory.category.in_(query.categories)))
    if query.tags is not None:
        statement = statement.where(PackageRecord.tag_rows.any(PackageTag.tag.in_(query.tags)))
    if query.class_name is not None:
        statement = statement.where(PackageRecord.class_rows.any(
            PackageClass.class_name == query.class_name))
    if query.fully_qualified_name is not None:
        statement = statement.where(
            PackageRecord.fully_qualified_name == query.fully_qualified_name)
    if query.name is not None:
        statement = statement.where(PackageRecord.name == query.name)
    keys = [SortKey(ORDER_KEYS[key], query.descending) for key in query.order_by]
    keys.append(SortKey(PackageRecord.id, query.descending))
    words = [word for word in re.split("[;,]", query.search or "") if word]
    if words:
        found, weight = _search_weight(words)
        statement = statement.where(found)
        keys.insert(0, SortKey(weight))
    if query.marker is not None:
        marker = find_package(session, query.marker)
        if marker is None:
            raise PackageNotFoundError(query.marker)
        values = session.execute(sa.select(*(key.expression for key in keys))
                                 .where(PackageRecord.id == marker.id)).one()
        statement = statement.where(after(keys, tuple(values)))
    statement = statement.order_by(*order_clauses(keys))
    if query.limit is not None:
        statement = statement.limit(query.limit)
    return statement


def search_packages(session: Session, query: PackageQuery) -> list[PackageRecord]:
    """One page of the packages ``query`` asks for, in its order (then the id).

    An unknown ``marker`` raises :class:`PackageNotFoundError`.
    """
    statement = _search_statement(session, query).options(
        selectinload(PackageRecord.class_rows))
    return list(session.scalars(statement))


@dataclasses.dataclass(frozen=True, slots=True)
class PackageSummary:
    """What a listing shows of a package: no archive, logo, UI nor whole manifest."""

    id: uuid.UUID
    created_at: datetime.datetime
    updated_at: datetime.datetime
    fully_qualified_name: str
    name: str
    type: str
    description: str | None
    author: str | None
    #: the manifest's ``Supplier`` (None when it has none)
    supplier: t.Any
    enabled: bool
    is_public: bool
    owner_id: str | None
    tags: list[str]
    categories: list[str]
    class_names: list[str]


def search_summaries(session: Session, query: PackageQuery) -> list[PackageSummary]:
    """:func:`search_packages` as summaries, in four queries whatever the page's
    size: the page's columns (the manifest's ``Supplier`` extracted by the
    database, the big columns never read), then its tags, categories and
    classes, each for the whole page; no ORM object is made."""
    statement = _search_statement(session, query).with_only_columns(
        PackageRecord.id, PackageRecord.created_at, PackageRecord.updated_at,
        PackageRecord.fully_qualified_name, PackageRecord.name, PackageRecord.type,
        PackageRecord.description, PackageRecord.author, PackageRecord.manifest["Supplier"],
        PackageRecord.enabled, PackageRecord.is_public, PackageRecord.owner_id)
    rows = session.connection().execute(statement).all()
    ids = [row[0] for row in rows]
    names: dict[type[t.Any], dict[uuid.UUID, list[str]]] = {}
    for model, column in ((PackageTag, PackageTag.tag),
                          (PackageCategory, PackageCategory.category),
                          (PackageClass, PackageClass.class_name)):
        found: dict[uuid.UUID, list[str]] = {key: [] for key in ids}
        if ids:
            for package_id, value in session.connection().execute(
                    sa.select(model.package_id, column).where(model.package_id.in_(ids))
                    .order_by(model.package_id, column)):
                found[package_id].append(value)
        names[model] = found
    return [PackageSummary(
        id=row[0], created_at=row[1], updated_at=row[2], fully_qualified_name=row[3],
        name=row[4], type=row[5], description=row[6], author=row[7], supplier=row[8],
        enabled=row[9], is_public=row[10], owner_id=row[11], tags=names[PackageTag][row[0]],
        categories=names[PackageCategory][row[0]], class_names=names[PackageClass][row[0]])
        for row in rows]


def _uuids(values: t.Iterable[str]) -> list[uuid.UUID]:
    found = []
    for value in values:
        try:
            found.append(uuid.UUID(value))
        except ValueError:
            continue   # not an id: matches no package
    return found


def packages_in_category(session: Session, category: str, project_id: str,
                         is_admin: bool = False) -> list[PackageRecord]:
    """The packages of ``category`` the project may see (an admin: all), by name."""
    statement = sa.select(PackageRecord).where(
        PackageRecord.category_rows.any(PackageCategory.category == category))
    if not is_admin:
        statement = statement.where(visible_to(project_id))
    return list(session.scalars(statement.order_by(PackageRecord.name, PackageRecord.id)))


@dataclasses.dataclass(frozen=True)
class PackageChanges:
    """New values of what the API may change in a package; None: unchanged."""

    name: str | None = None
    description: str | None = None
    enabled: bool | None = None
    is_public: bool | None = None
    tags: t.Sequence[str] | None = None
    categories: t.Sequence[str] | None = None


def update_package(session: Session, record: PackageRecord,
                   changes: PackageChanges) -> PackageRecord:
    """Apply ``changes``; a category the catalog does not define is refused
    (:class:`~laguna.store.errors.UnknownCategoryError`) and nothing changes."""
    if changes.categories is not None:
        require_categories(session, changes.categories)
        current = {row.category: row for row in record.category_rows}
        record.category_rows = [current.get(name) or PackageCategory(category=name)
                                for name in dict.fromkeys(changes.categories)]
    if changes.tags is not None:
        current_tags = {row.tag: row for row in record.tag_rows}
        record.tag_rows = [current_tags.get(tag) or PackageTag(tag=tag)
                           for tag in dict.fromkeys(changes.tags)]
    for field in ("name", "description", "enabled", "is_public"):
        value = getattr(changes, field)
        if value is not None:
            setattr(record, field, value)
    record.updated_at = utcnow()
    session.flush()
    return record
