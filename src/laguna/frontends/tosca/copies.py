"""The ``copy`` keyname of node and relationship templates (TOSCA 1.3, 3.8.3
and 3.8.4): the named template's keynames and values are the basis, the
copying template's own keynames replace them one keyname at a time.

The copied template must exist in the same section, must not be the copying
template itself and must not use ``copy`` itself (a copy is always of a
complete template, so there are no chains to follow).
"""

from __future__ import annotations

import typing as t

from laguna.frontends.tosca.problems import INVALID_TEMPLATE
from laguna.yamlio import YMap

#: reports a problem: (kind, message, the map holding the key, the key, the entity)
Report = t.Callable[[str, str, object, object, str], None]


def apply_copies(templates: t.Mapping[str, t.Any], noun: str, report: Report
                 ) -> tuple[dict[str, t.Any], set[str]]:
    """``templates`` with every valid ``copy`` resolved, and the names of those whose
    copy was refused: they keep only their own keynames, so their other problems are
    still found (a missing type is not one of them: the copy was to give it)."""
    result: dict[str, t.Any] = dict(templates)
    refused: set[str] = set()
    for name, body in templates.items():
        if not isinstance(body, dict) or "copy" not in body:
            continue
        entity = f"{noun} {name}"
        source = body["copy"]
        basis = templates.get(source) if isinstance(source, str) else None
        if not isinstance(source, str):
            why = "copy names a template"
        elif source == name:
            why = f"copy names the {noun} template itself"
        elif source not in templates:
            why = f"copy names {source!r}, which is not a {noun} template"
        elif not isinstance(basis, dict):
            why = ""    # the copied template's own shape problem is reported already
        elif "copy" in basis:
            why = f"copy names {source!r}, which itself uses copy (copy a complete template)"
        else:
            result[name] = _merged(basis, body)
            continue
        if why:
            report(INVALID_TEMPLATE, why, body, "copy", entity)
        refused.add(name)
        result[name] = _merged({}, body)
    return result, refused


def _merged(basis: t.Mapping[str, t.Any], own: t.Mapping[str, t.Any]) -> YMap:
    """``basis`` overridden keyname by keyname by ``own`` (without ``copy``), keeping
    the spans of where each value was written."""
    merged = YMap()
    span = getattr(own, "span", None)
    if span is not None:
        merged.span = span
    merged.key_spans = {}
    merged.number_texts = {}
    for layer in (basis, own):
        for key, value in layer.items():
            if key == "copy":
                continue
            merged[key] = value
            spans = getattr(layer, "key_spans", {})
            if key in spans:
                merged.key_spans[key] = spans[key]
            texts = getattr(layer, "number_texts", {})
            if key in texts:
                merged.number_texts[key] = texts[key]
            else:
                merged.number_texts.pop(key, None)
    return merged
