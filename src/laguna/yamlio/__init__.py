"""YAML with source positions.

PyYAML puts marks on every node, so every value the loader returns knows the
file and line it came from: maps are :class:`YMap`, sequences :class:`YSeq`,
strings :class:`YStr`; plain scalars that the caller recognises as
expressions are built by the caller's ``expression`` hook.
"""

from laguna.yamlio.loader import (
    ExpressionHook,
    YMap,
    YSeq,
    YStr,
    YamlError,
    load_all,
    load_data,
    load_json,
    plain,
    span_of,
)

__all__ = ["ExpressionHook", "YMap", "YSeq", "YStr", "YamlError", "load_all", "load_data",
           "load_json", "plain", "span_of"]
