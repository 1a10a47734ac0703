"""Times as the original API wrote them."""

from __future__ import annotations

import datetime


def timestamp(moment: datetime.datetime | None) -> str | None:
    """``2014-05-14T13:02:54``: UTC, whole seconds, no zone (naive times are UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment.replace(microsecond=0).isoformat()
