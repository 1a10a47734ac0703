"""The original's restricted JSON-patch of a package (``PATCH`` with
``application/murano-packages-json-patch``).

A change names one top-level field and always carries a ``value``:

- ``replace`` on ``name``, ``description``, ``enabled``, ``is_public``,
  ``tags`` and ``categories``;
- ``add`` on ``tags`` and ``categories``: the listed items are appended (those
  already there are left alone);
- ``remove`` on ``tags`` and ``categories``: the listed items are taken out;
  one the package does not have answers 404.

:func:`parse` refuses a malformed patch with the original's codes and texts
(400, 403 for a field or operation it does not allow) before the package is
looked up; :func:`apply` turns the changes into RFC 6902 operations on the
package's editable fields and applies them with :mod:`jsonpatch`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing as t

import jsonpatch

from laguna.api.errors import bad_request, forbidden, not_found

MEDIA_TYPE = "application/murano-packages-json-patch"

#: the operations each field allows
ALLOWED: dict[str, tuple[str, ...]] = {
    "categories": ("add", "replace", "remove"),
    "tags": ("add", "replace", "remove"),
    "is_public": ("replace",),
    "enabled": ("replace",),
    "description": ("replace",),
    "name": ("replace",),
}
#: the JSON type each field's value has (lists are of unique strings)
_TYPES = {"categories": "array", "tags": "array", "is_public": "boolean",
          "enabled": "boolean", "description": "string", "name": "string"}
LIST_FIELDS = ("tags", "categories")


@dataclasses.dataclass(frozen=True)
class Change:
    op: str
    field: str
    value: t.Any


def parse(body: bytes) -> list[Change]:
    """The changes of a patch body, each checked as the original checked them."""
    try:
        operations = json.loads(body)
    except ValueError:
        raise bad_request("Malformed request body") from None
    if not isinstance(operations, list):
        raise bad_request("JSON-patch must be a list.")
    changes = []
    for raw in operations:
        if not isinstance(raw, dict):
            raise bad_request("Operations must be JSON objects.")
        for member in ("op", "path"):
            if member not in raw:
                raise bad_request(f"Unable to find '{member}' in JSON Schema change")
        op, path = raw["op"], _pointer(raw["path"])
        if len(path) > 1:
            raise bad_request("Nested paths are not allowed")
        if "value" not in raw:
            raise bad_request(f'Operation "{op}" requires a member named "value".')
        field = "/".join(path)
        allowed = ALLOWED.get(field)
        if allowed is None:
            raise forbidden(f"Attribute '{field}' is invalid")
        if op not in allowed:
            raise forbidden(f"Method '{op}' is not allowed for a path with name '{field}'. "
                            f"Allowed operations are: {', '.join(allowed)}")
        problem = value_problem(field, raw["value"])
        if problem is not None:
            raise bad_request(problem)
        changes.append(Change(op, field, raw["value"]))
    return changes


def _pointer(pointer: t.Any) -> list[str]:
    """The parts of a JSON pointer, in the original's limited form."""
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise bad_request(f'Pointer `{pointer}` does not start with "/".')
    if re.search(r"/\s*?/", pointer[1:]):
        raise bad_request(f'Pointer `{pointer}` contains adjacent "/".')
    if len(pointer) > 1 and pointer.endswith("/"):
        raise bad_request(f'Pointer `{pointer}` ends with "/".')
    if re.search("~[^01]", pointer) or pointer.endswith("~"):
        raise bad_request(f'Pointer `{pointer}` contains "~", which is not part of a '
                          "recognized escape sequence.")
    return [part.replace("~1", "/").replace("~0", "~").strip()
            for part in pointer.lstrip("/").split("/")]


def value_problem(field: str, value: t.Any) -> str | None:
    """What is wrong with ``value`` for ``field``, in jsonschema's words; None if fine."""
    kind = _TYPES[field]
    if kind == "array":
        if not isinstance(value, list):
            return f"{value!r} is not of type 'array'"
        for item in value:
            if not isinstance(item, str):
                return f"{item!r} is not of type 'string'"
        if len(set(value)) != len(value):
            return f"{value!r} has non-unique elements"
        return None
    if kind == "boolean" and not isinstance(value, bool):
        return f"{value!r} is not of type 'boolean'"
    if kind == "string" and not isinstance(value, str):
        return f"{value!r} is not of type 'string'"
    return None


def apply(document: dict[str, t.Any], changes: t.Sequence[Change]) -> dict[str, t.Any]:
    """The package's editable fields (``document``) after ``changes``, in order."""
    for change in changes:
        document = jsonpatch.apply_patch(document, _operations(document, change))
    return document


def _operations(document: t.Mapping[str, t.Any], change: Change) -> list[dict[str, t.Any]]:
    path = f"/{change.field}"
    if change.op == "replace" or change.field not in LIST_FIELDS:
        return [{"op": "replace", "path": path, "value": change.value}]
    if change.op == "add":
        present = set(document[change.field])
        return [{"op": "add", "path": f"{path}/-", "value": item}
                for item in dict.fromkeys(change.value) if item not in present]
    remaining = list(document[change.field])
    operations = []
    for item in change.value:
        if item not in remaining:
            raise not_found(f"Value '{item}' of property '{change.field}' does not exist.")
        operations.append({"op": "remove", "path": f"{path}/{remaining.index(item)}"})
        remaining.remove(item)
    return operations
