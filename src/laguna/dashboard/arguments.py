"""An action's argument form, generated from each argument's contract (a
MuranoPL contract such as ``$.int().notNull()``, or a TOSCA type), and the
values a submitted form gives back, checked before the API is asked.

The widget follows what the contract says the value is: an integer (a
number field), a boolean (a checkbox), a string (a text field); any other
contract (a list, a dict, a class) takes JSON in a text area. ``required``
is the API's: leaving the argument out fails its contract.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing as t

from laguna.errors import LagunaError

TEXT, INTEGER, BOOLEAN, JSON = "text", "integer", "boolean", "json"
#: a submitted value is bounded before it is read (the API bounds the body again)
MAX_VALUE = 64 * 1024

_INT = re.compile(r"^\$\.int\(\)|^integer$")
_BOOL = re.compile(r"^\$\.bool\(\)|^boolean$")
_STRING = re.compile(r"^\$\.string\(\)|^string$|^$")


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    required: bool
    contract: str
    kind: str


class ArgumentError(LagunaError, ValueError):
    """A submitted value its field cannot take; the message names the argument."""

    code = "LAG-E1722"


def kind_of(contract: str) -> str:
    text = contract.strip()
    if _INT.match(text):
        return INTEGER
    if _BOOL.match(text):
        return BOOLEAN
    if _STRING.match(text):
        return TEXT
    return JSON


def fields_of(arguments: t.Iterable[t.Mapping[str, t.Any]]) -> tuple[Field, ...]:
    return tuple(Field(str(a["name"]), bool(a.get("required")), str(a.get("type") or ""),
                       kind_of(str(a.get("type") or ""))) for a in arguments)


def values_of(fields: t.Sequence[Field],
              form: t.Callable[[str], str | None]) -> dict[str, t.Any]:
    """The action's arguments from a submitted form (``form``: a field's
    text, None when not sent); an empty optional field is left out."""
    values: dict[str, t.Any] = {}
    for field in fields:
        raw = form(f"arg.{field.name}")
        if field.kind == BOOLEAN:
            values[field.name] = raw is not None
            continue
        text = (raw or "").strip() if field.kind != TEXT else (raw or "")
        if len(text) > MAX_VALUE:
            raise ArgumentError(f"{field.name}: the value is longer than {MAX_VALUE} characters")
        if not text:
            if field.required:
                raise ArgumentError(f"{field.name} is required")
            continue
        if field.kind == INTEGER:
            try:
                values[field.name] = int(text)
            except ValueError:
                raise ArgumentError(f"{field.name} must be an integer, not {text!r}") from None
        elif field.kind == JSON:
            try:
                values[field.name] = json.loads(text)
            except ValueError as error:
                raise ArgumentError(f"{field.name} must be JSON (its contract is "
                                    f"{field.contract}): {error}") from None
        else:
            values[field.name] = text
    return values
