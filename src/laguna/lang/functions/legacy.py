"""What packages of Format 1.0 and 1.1 also get, as the original engine gave them.

``substr`` and ``firstOrDefault``, and yaql's string and collection methods
``toLower``, ``toUpper``, ``trim``, ``join``, ``split``, ``startsWith``,
``endsWith``, ``matches``, ``replace`` and ``flatten`` made extension methods:
callable as functions (``toLower($s)``) as well as methods (``$s.toLower()``),
as yaql 0.2 allowed.
"""

from __future__ import annotations

import typing as t

from yaql.language import specs, utils, yaqltypes

from laguna.lang.functions import guarded
from laguna.yaql.engine import CONVENTION

#: yaql methods that legacy packages may also call as functions
EXTENDED = ("to_lower", "to_upper", "trim", "join", "split", "starts_with",
            "ends_with", "matches", "replace", "flatten")
#: the same, as MuranoPL names them
EXTENDED_NAMES = frozenset(CONVENTION.convert_function_name(name) for name in EXTENDED)


@specs.parameter("string", yaqltypes.String())
@specs.parameter("start", int)
@specs.parameter("length", int)
@specs.extension_method
def substr(string: str, start: int, length: int = -1) -> str:
    """:yaql:substr

    ``length`` characters of ``string`` from index ``start`` (negative:
    counted from the end); a negative ``length`` means up to the end.

    :signature: substr(string, start, length => -1) or string.substr(...)

    .. code::

        yaql> 'teststr'.substr(2, 3)
        "sts"
    """
    if length < 0:
        length = len(string)
    if start < 0:
        start += len(string)
    return string[start:start + length]


@specs.parameter("collection", yaqltypes.Iterable())
@specs.parameter("default", nullable=True)
@specs.extension_method
def first_or_default(collection: t.Iterable[t.Any], default: t.Any = None) -> t.Any:
    """:yaql:firstOrDefault

    The first item of a collection, or ``default`` (null) when it is empty.

    :signature: collection.firstOrDefault(default => null)
    """
    for item in collection:
        return item
    return default


def register(context: t.Any, root: t.Any) -> None:
    """Register into ``context``; ``root`` is the legacy yaql root context whose
    methods become extension methods."""
    context.register_function(substr)
    context.register_function(first_or_default)
    for name in EXTENDED:
        for spec in utils.to_extension_method(name, root):
            # yaql's own, unless guarded.py has one under the limits (below)
            if getattr(spec.payload, "__wrapped__", spec.payload) not in guarded.REPLACED:
                context.register_function(spec)
    for spec in guarded.definitions():
        if spec.name in EXTENDED_NAMES:
            spec.is_function = spec.is_method = True
            context.register_function(spec)
