"""Keyset paging: the rows after a marker row in a multi-key order.

The original API paged with a marker (the id of the last row of the previous
page) and a limit. A page is the rows that sort strictly after the marker in
the same order; the order always ends with a unique key (the id), so no row
is skipped or repeated between pages.
"""

from __future__ import annotations

import dataclasses
import typing as t

import sqlalchemy as sa
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.sql.elements import ColumnElement


@dataclasses.dataclass(frozen=True)
class SortKey:
    """One key of an order: an SQL expression and its direction."""

    expression: ColumnElement[t.Any] | QueryableAttribute[t.Any]
    descending: bool = False

    def clause(self) -> ColumnElement[t.Any]:
        return self.expression.desc() if self.descending else self.expression.asc()


def order_clauses(keys: t.Sequence[SortKey]) -> list[ColumnElement[t.Any]]:
    """The ORDER BY clauses of ``keys``."""
    return [key.clause() for key in keys]


def after(keys: t.Sequence[SortKey], marker: t.Sequence[t.Any]) -> ColumnElement[bool]:
    """The condition "sorts after the row whose key values are ``marker``".

    For keys k1..kn: (k1 beyond v1) or (k1 = v1 and k2 beyond v2) or ...,
    where "beyond" is ``>`` for an ascending key and ``<`` for a descending one.
    """
    alternatives: list[ColumnElement[bool]] = []
    for index, key in enumerate(keys):
        equal = [keys[i].expression == marker[i] for i in range(index)]
        beyond = key.expression < marker[index] if key.descending \
            else key.expression > marker[index]
        alternatives.append(sa.and_(*equal, beyond))
    return sa.or_(*alternatives)
