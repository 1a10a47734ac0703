"""Property values: conversion to declared types and ``${}`` resolution.

A value made of one ``${...}`` keeps the type of what it names; a string with
several references (or text around one) is interpolated. Paths walk maps by
key and lists by index: ``${a.b[1].c}``.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import datetime
import json
import re
import typing as t

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.descriptor import DataType, PropertyDef
from laguna.source import Span

_WHOLE = re.compile(r"^\s*\$\{([^}]*)\}\s*$")
_ANY = re.compile(r"\$\{([^}]*)\}")
_STEP = re.compile(r"\.\s*([A-Za-z0-9_-]+)|\[\s*(-?\d+)\s*\]|\[\s*'([^']*)'\s*\]")
_HEAD = re.compile(r"^\s*([A-Za-z0-9_-]+)")


class Unresolved(LagunaError):
    """``${path}`` names nothing."""

    code = "LAG-E1641"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


Lookup = t.Callable[[str], t.Any]
#: what a lookup returns when the name is unknown
MISSING = object()


def walk(path: str, lookup: Lookup) -> t.Any:
    """The value ``path`` (``a.b[1].c``) names; raises Unresolved."""
    head = _HEAD.match(path)
    if head is None:
        raise Unresolved(path)
    value = lookup(head.group(1))
    if value is MISSING:
        raise Unresolved(path)
    rest = path[head.end():].strip()
    position = 0
    while position < len(rest):
        step = _STEP.match(rest, position)
        if step is None:
            raise Unresolved(path)
        key, index, quoted = step.groups()
        if index is not None:
            if not isinstance(value, list) or not -len(value) <= int(index) < len(value):
                raise Unresolved(path)
            value = value[int(index)]
        else:
            name = key if key is not None else quoted
            if not isinstance(value, dict) or name not in value:
                raise Unresolved(path)
            value = value[name]
        position = step.end()
    return value


def text_of(value: t.Any) -> str:
    """A value as text: raw strings, ``true``/``false``, compact JSON for lists and maps."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def resolve(value: t.Any, lookup: Lookup) -> t.Any:
    """``value`` with every ``${}`` replaced (walks lists and maps)."""
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        if whole is not None:
            return walk(whole.group(1).strip(), lookup)
        if "${" not in value:
            return str(value)
        return _ANY.sub(lambda m: text_of(walk(m.group(1).strip(), lookup)), value)
    if isinstance(value, dict):
        return {str(k): resolve(v, lookup) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, lookup) for v in value]
    return value


def is_mapped(value: t.Any) -> bool:
    return isinstance(value, str) and "${" in value


class BadValue(LagunaError):
    """A value that is not of its property's type."""

    code = "LAG-E1642"


def convert(value: t.Any, prop: PropertyDef, types: t.Mapping[str, DataType],
            check_required: bool = False) -> t.Any:
    """``value`` as ``prop``'s declared type; raises BadValue (or a DescriptorError
    for a missing required data-type field when ``check_required``)."""
    if value is None:
        return None
    kind = prop.type
    if kind in ("string", "key", "certificate", "timestamp"):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (datetime.date, datetime.datetime)):
            return value.isoformat()
        if isinstance(value, (str, int, float)):
            return str(value)
        raise BadValue(f"{_show(value)} is not a {kind}")
    if kind == "integer":
        if isinstance(value, bool):
            raise BadValue(f"{_show(value)} is not an integer")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            return int(value)
        raise BadValue(f"{_show(value)} is not an integer")
    if kind == "float":
        if isinstance(value, bool):
            raise BadValue(f"{_show(value)} is not a float")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise BadValue(f"{_show(value)} is not a float")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise BadValue(f"{_show(value)} is not a boolean")
    if kind == "list":
        if isinstance(value, str):
            value = _json(value, list)
        if not isinstance(value, list):
            raise BadValue(f"{_show(value)} is not a list")
        schema = prop.entry_schema
        return [convert(v, schema, types, check_required) if schema else v for v in value]
    if kind == "map":
        if isinstance(value, str):
            value = _json(value, dict)
        if not isinstance(value, dict):
            raise BadValue(f"{_show(value)} is not a map")
        schema = prop.entry_schema
        return {str(k): convert(v, schema, types, check_required) if schema else v
                for k, v in value.items()}
    return _data_type(value, prop, types, check_required)


def fields(name: str, types: t.Mapping[str, DataType]) -> dict[str, PropertyDef]:
    """A data type's fields, inherited ones first."""
    chain: list[DataType] = []
    current: str | None = name
    while current is not None and current in types and types[current] not in chain:
        chain.append(types[current])
        current = types[current].derived_from
    result: dict[str, PropertyDef] = {}
    for data_type in reversed(chain):
        result.update(data_type.properties)
    return result


def _data_type(value: t.Any, prop: PropertyDef, types: t.Mapping[str, DataType],
               check_required: bool) -> t.Any:
    if isinstance(value, str):
        value = _json(value, dict)
    if not isinstance(value, dict):
        raise BadValue(f"{_show(value)} is not a {prop.type}")
    result = {str(k): v for k, v in value.items()}
    for name, field in fields(prop.type, types).items():
        if result.get(name) is None and field.has_default:
            result[name] = field.default
        if result.get(name) is None:
            if check_required and field.required:
                raise e.fail(e.MISSING_REQUIRED_PROPERTY,
                             f"required field {name!r} of {prop.type} value of "
                             f"{prop.name!r} has no value", prop.span)
            continue
        try:
            result[name] = convert(result[name], field, types, check_required)
        except BadValue as bad:
            raise BadValue(f"field {name!r}: {bad}") from None
    return result


def _json(text: str, kind: type) -> t.Any:
    try:
        value = json.loads(text)
    except ValueError:
        raise BadValue(f"{_show(text)} is not a {'list' if kind is list else 'map'}") from None
    return value


def _show(value: t.Any) -> str:
    return json.dumps(value) if isinstance(value, (str, bool, int, float, list, dict)) \
        or value is None else repr(value)


def bad_value(prop: PropertyDef, error: BadValue, span: Span | None = None) -> e.DescriptorError:
    return e.fail(e.INVALID_PROPERTY_VALUE,
                  f"property {prop.name!r} ({prop.type}): {error}", span or prop.span)
