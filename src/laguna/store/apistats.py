"""The original's API statistics, taken over (``laguna takeover murano``):
Murano kept a row per API host in ``apistats``; laguna keeps them as history
in ``api_stats``, which ``GET /v1/stats`` shows before its own servers' counts
(those are kept in memory, :mod:`laguna.api.stats`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.store.models import ApiStatRecord


def taken_over_stats(session: Session) -> list[ApiStatRecord]:
    """Every taken-over row, by id."""
    return list(session.scalars(sa.select(ApiStatRecord).order_by(ApiStatRecord.id)))
