"""Catalog categories, as functions over a session.

Packages name their categories in ``package_categories`` (by name); the
``categories`` table is the list of names a package may be given. Callers own
the transaction; these functions only flush.
"""

from __future__ import annotations

import typing as t

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.store.errors import (
    CategoryInUseError,
    CategoryNotFoundError,
    DuplicateCategoryError,
    UnknownCategoryError,
)
from laguna.store.models import CategoryRecord, PackageCategory, utcnow
from laguna.store.paging import SortKey, after, order_clauses

#: the keys categories can be listed by
SORT_KEYS = ("name", "created", "updated", "package_count", "id")


def _count_of(name: t.Any) -> sa.ScalarSelect[int]:
    return (sa.select(sa.func.count()).select_from(PackageCategory)
            .where(PackageCategory.category == name).scalar_subquery())


def package_count(session: Session, name: str) -> int:
    """How many packages (of every project) have the category ``name``."""
    return int(session.scalar(sa.select(_count_of(name))) or 0)


def get_category(session: Session, category_id: str) -> CategoryRecord:
    """The category of that id, or :class:`CategoryNotFoundError`."""
    record = session.get(CategoryRecord, category_id)
    if record is None:
        raise CategoryNotFoundError(category_id)
    return record


def list_categories(session: Session, sort_keys: t.Sequence[str] = ("name",),
                    descending: bool = False, limit: int | None = None,
                    marker: str | None = None) -> list[tuple[CategoryRecord, int]]:
    """Categories with their package counts, in the order of ``sort_keys`` (then
    the id), starting after the category ``marker`` and at most ``limit`` of them."""
    count = _count_of(CategoryRecord.name)
    columns: dict[str, t.Any] = {
        "name": CategoryRecord.name, "created": CategoryRecord.created,
        "updated": CategoryRecord.updated, "package_count": count, "id": CategoryRecord.id}
    keys = [SortKey(columns[name], descending) for name in sort_keys]
    if "id" not in sort_keys:
        keys.append(SortKey(CategoryRecord.id, descending))
    statement = sa.select(CategoryRecord, count).order_by(*order_clauses(keys))
    if marker is not None:
        get_category(session, marker)
        values = session.execute(sa.select(*(key.expression for key in keys))
                                 .where(CategoryRecord.id == marker)).one()
        statement = statement.where(after(keys, tuple(values)))
    if limit is not None:
        statement = statement.limit(limit)
    return [(record, int(number)) for record, number in session.execute(statement)]


def add_category(session: Session, name: str) -> CategoryRecord:
    """A new category; :class:`DuplicateCategoryError` when the name is taken."""
    exists = session.scalar(sa.select(CategoryRecord.id).where(CategoryRecord.name == name))
    if exists is not None:
        raise DuplicateCategoryError(name)
    now = utcnow()
    record = CategoryRecord(name=name, created=now, updated=now)
    session.add(record)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        # added by someone else since we looked
        raise DuplicateCategoryError(name) from None
    return record


def delete_category(session: Session, category_id: str) -> None:
    """Delete a category no package has; :class:`CategoryInUseError` otherwise."""
    record = get_category(session, category_id)
    count = package_count(session, record.name)
    if count:
        raise CategoryInUseError(record.name, count)
    session.delete(record)
    session.flush()


def require_categories(session: Session, names: t.Iterable[str]) -> None:
    """Refuse (:class:`UnknownCategoryError`, the first in ``names`` order) a
    category the catalog does not define."""
    wanted = list(names)
    known = set(session.scalars(sa.select(CategoryRecord.name)
                                .where(CategoryRecord.name.in_(wanted))))
    for name in wanted:
        if name not in known:
            raise UnknownCategoryError(name)
