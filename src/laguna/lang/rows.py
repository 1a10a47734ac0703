"""The rows `dict(key => value, ...)` builds: yaql's FrozenDict, within the
memory quota as yaql's `dict` of mapping rules applies it (the rules first,
then the row as a function result)."""

from __future__ import annotations

import sys
import typing as t

from yaql.language import exceptions as yaql_exceptions
from yaql.language import utils

# what yaql's quota counts of one mapping rule
RULE_SIZE = sys.getsizeof(utils.MappingRule(None, None), 0)


def dict_row(engine: t.Any, items: list[tuple[t.Any, t.Any]]) -> t.Any:
    """The row of ``items`` (key, value pairs, one per mapping rule)."""
    quota = utils.get_memory_quota(engine)
    if 0 < quota < len(items) * RULE_SIZE:
        raise yaql_exceptions.MemoryQuotaExceededException()
    row = utils.FrozenDict(items)
    if quota > 0:   # what yaql's runner checks of the result, quota read once
        utils.limit_memory_usage(quota, (1, row))
    return row
