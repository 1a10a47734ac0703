"""Package names imported when first used (PEP 562): a package whose
``__init__`` re-exports heavy modules (SQLAlchemy's) lets its light modules load
without them. Standard library only."""

from __future__ import annotations

import importlib
import typing as t


def attribute(namespace: dict[str, t.Any], homes: t.Mapping[str, str], name: str) -> t.Any:
    """Public ``name`` of the package whose globals are ``namespace``, imported from
    its module in ``homes`` and kept there; AttributeError for any other name."""
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    namespace[name] = value
    return value
