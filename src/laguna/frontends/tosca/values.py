"""TOSCA's primitive values: scalar units, versions, timestamps, ranges, and the
constraint operators, as pure functions.

A check returns a list of ``(kind, message)`` pairs (empty when the value is
fine), so callers add them to their :class:`~.problems.Problems` with a place.
"""

from __future__ import annotations

import datetime
import math
import re
import typing as t

import jsonschema  # type: ignore[import-untyped]

from laguna.frontends.tosca.problems import CONSTRAINT_VIOLATION, INVALID_TEMPLATE, TYPE_MISMATCH

Finding = tuple[str, str]

#: scalar-unit kinds and their units, as multiples of the kind's base unit
SCALAR_UNITS: dict[str, dict[str, float]] = {
    "scalar-unit.size": {"b": 1, "kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 1024 ** 2,
                         "gb": 1e9, "gib": 1024 ** 3, "tb": 1e12, "tib": 1024 ** 4},
    "scalar-unit.time": {"d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6,
                         "ns": 1e-9},
    "scalar-unit.frequency": {"hz": 1, "khz": 1e3, "mhz": 1e6, "ghz": 1e9},
    "scalar-unit.bitrate": {"bps": 1, "kbps": 1e3, "kibps": 1024, "mbps": 1e6,
                            "mibps": 1024 ** 2, "gbps": 1e9, "gibps": 1024 ** 3,
                            "tbps": 1e12, "tibps": 1024 ** 4},
}
PRIMITIVES = frozenset({"string", "integer", "float", "boolean", "timestamp", "null",
                        "version", "range", "list", "map", *SCALAR_UNITS})
_SCALAR = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]+)\s*$")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+)(?:\.([A-Za-z0-9_]+)(?:-(\d+))?)?)?$")
_TIMESTAMP = re.compile(
    r"^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|\s+)\d{1,2}:\d{2}:\d{2}(?:\.\d*)?"
    r"(?:\s*(?:Z|[-+]\d{1,2}(?::\d{2})?))?)?$")


def scalar(kind: str, value: object) -> float | None:
    """``value`` (``"2 GiB"``) in the kind's base unit; None when it is not one."""
    if not isinstance(value, str):
        return None
    match = _SCALAR.match(value)
    if not match:
        return None
    factor = SCALAR_UNITS[kind].get(match.group(2).lower())
    if factor is None:
        return None
    return float(match.group(1)) * factor


def version(value: object) -> tuple[int, int, int, str, int] | None:
    """A TOSCA version ``major.minor[.fix[.qualifier[-build]]]`` as a sortable tuple."""
    if isinstance(value, float):
        value = repr(value)
    if isinstance(value, int) and not isinstance(value, bool):
        value = f"{value}.0"
    if not isinstance(value, str):
        return None
    match = _VERSION.match(value.strip())
    if not match:
        return None
    major, minor, fix, qualifier, build = match.groups()
    return (int(major), int(minor), int(fix or 0), qualifier or "", int(build or 0))


def timestamp(value: object) -> datetime.datetime | None:
    """A YAML timestamp (already loaded, or written as a string) as an aware datetime."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day,
                                 tzinfo=datetime.timezone.utc)
    if isinstance(value, str) and _TIMESTAMP.match(value.strip()):
        text = value.strip().replace("t", "T").replace("z", "Z")
        text = re.sub(r"\s+(?=[-+Z])", "", text).replace(" ", "T").replace("Z", "+00:00")
        text = re.sub(r"([-+]\d{1,2})$", lambda m: f"{m.group(1)}:00", text)
        try:
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)
    return None


def is_range(value: object) -> bool:
    if not isinstance(value, list) or len(value) != 2:
        return False
    low, high = value
    if not _is_int(low):
        return False
    if high == "UNBOUNDED":
        return True
    return _is_int(high) and t.cast(int, low) <= t.cast(int, high)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_primitive(type_name: str, value: object) -> str | None:
    """Why ``value`` is not a ``type_name`` (a primitive); None when it is."""
    ok: bool
    if type_name == "string":
        ok = isinstance(value, str)
    elif type_name == "integer":
        ok = _is_int(value)
    elif type_name == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif type_name == "boolean":
        ok = isinstance(value, bool)
    elif type_name == "null":
        ok = value is None
    elif type_name == "timestamp":
        ok = timestamp(value) is not None
    elif type_name == "version":
        ok = version(value) is not None
    elif type_name == "range":
        ok = is_range(value)
    elif type_name == "list":
        ok = isinstance(value, list)
    elif type_name == "map":
        ok = isinstance(value, dict)
    elif type_name in SCALAR_UNITS:
        ok = scalar(type_name, value) is not None
    else:  # pragma: no cover - callers pass primitives only
        raise ValueError(type_name)
    return None if ok else f"{_show(value)} is not {article(type_name)}"


def comparable(type_name: str, value: object) -> object:
    """``value`` in a form that orders as TOSCA says for ``type_name``."""
    if type_name in SCALAR_UNITS:
        number = scalar(type_name, value)
        return value if number is None else number
    if type_name == "version":
        return version(value) or value
    if type_name == "timestamp":
        return timestamp(value) or value
    return value


#: every constraint operator and the shape of its argument
OPERATORS = ("equal", "greater_than", "greater_or_equal", "less_than", "less_or_equal",
             "in_range", "valid_values", "length", "min_length", "max_length", "pattern",
             "schema")


def check_constraint_clause(clause: object, type_name: str) -> Finding | None:
    """Whether a constraint clause is well formed for a value of ``type_name``."""
    if not isinstance(clause, dict) or len(clause) != 1:
        return (INVALID_TEMPLATE, f"a constraint clause is a map of one operator, "
                                  f"got {_show(clause)}")
    ((operator, argument),) = clause.items()
    if operator not in OPERATORS:
        return (INVALID_TEMPLATE, f"unknown constraint operator {operator!r} "
                                  f"(expected one of {', '.join(OPERATORS)})")
    if operator in ("in_range",) and (not isinstance(argument, list) or len(argument) != 2):
        return (INVALID_TEMPLATE, "in_range takes a list of two values")
    if operator == "valid_values" and not isinstance(argument, list):
        return (INVALID_TEMPLATE, "valid_values takes a list")
    if operator in ("length", "min_length", "max_length") and not _is_int(argument):
        return (INVALID_TEMPLATE, f"{operator} takes an integer")
    if operator == "pattern":
        if not isinstance(argument, str):
            return (INVALID_TEMPLATE, "pattern takes a string")
        try:
            re.compile(argument)
        except re.error as exc:
            return (INVALID_TEMPLATE, f"pattern {argument!r} is not a regular expression: {exc}")
    if operator == "schema" and not isinstance(argument, (dict, str)):
        return (INVALID_TEMPLATE, "schema takes a JSON schema (a map, or its text)")
    return None


def check_constraint(clause: t.Mapping[str, t.Any], type_name: str,
                     value: object) -> str | None:
    """Why ``value`` breaks ``clause``; None when it satisfies it (or the clause is bad)."""
    ((operator, argument),) = clause.items()
    mine = comparable(type_name, value)

    def cmp(arg: object) -> object:
        return comparable(type_name, arg)

    shown = _show(value)
    try:
        if operator == "equal":
            ok = mine == cmp(argument)
            why = f"{shown} is not equal to {_show(argument)}"
        elif operator == "greater_than":
            ok = mine > cmp(argument)  # type: ignore[operator]
            why = f"{shown} is not greater than {_show(argument)}"
        elif operator == "greater_or_equal":
            ok = mine >= cmp(argument)  # type: ignore[operator]
            why = f"{shown} is not greater than or equal to {_show(argument)}"
        elif operator == "less_than":
            ok = mine < cmp(argument)  # type: ignore[operator]
            why = f"{shown} is not less than {_show(argument)}"
        elif operator == "less_or_equal":
            ok = mine <= cmp(argument)  # type: ignore[operator]
            why = f"{shown} is not less than or equal to {_show(argument)}"
        elif operator == "in_range":
            low, high = argument
            ok = cmp(low) <= mine and (high == "UNBOUNDED" or mine <= cmp(high))  # type: ignore[operator]
            why = f"{shown} is not in range [{_show(low)}, {_show(high)}]"
        elif operator == "valid_values":
            ok = mine in [cmp(v) for v in argument]
            why = f"{shown} is not one of {', '.join(_show(v) for v in argument)}"
        elif operator in ("length", "min_length", "max_length"):
            size = len(value)  # type: ignore[arg-type]
            ok = {"length": size == argument, "min_length": size >= argument,
                  "max_length": size <= argument}[operator]
            why = f"the length of {shown} is {size}, not " + {
                "length": "", "min_length": "at least ", "max_length": "at most "}[operator] \
                + str(argument)
        elif operator == "pattern":
            ok = isinstance(value, str) and re.fullmatch(argument, value) is not None
            why = f"{shown} does not match the pattern {argument!r}"
        elif operator == "schema":
            schema = argument
            if isinstance(schema, str):
                import json
                schema = json.loads(schema)
            target = value
            if isinstance(value, str) and type_name in ("string", "tosca.datatypes.json"):
                import json
                try:
                    target = json.loads(value)
                except ValueError:
                    target = value
            errors = list(jsonschema.Draft7Validator(schema).iter_errors(target))
            ok = not errors
            why = f"{shown} does not follow the schema: {errors[0].message}" if errors else ""
        else:  # pragma: no cover - clauses are checked first
            return None
    except (TypeError, ValueError):
        return f"{shown} cannot be compared with the {operator} constraint's argument"
    return None if ok else why


def article(noun: str) -> str:
    """``noun`` with "a" or "an" before it."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _show(value: object) -> str:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return repr(value)
    if isinstance(value, (dict, list)):
        import json
        text = json.dumps(value, default=str)
        return text if len(text) <= 40 else ("a map" if isinstance(value, dict) else "a list")
    return repr(value)


__all__ = ["CONSTRAINT_VIOLATION", "OPERATORS", "PRIMITIVES", "SCALAR_UNITS", "TYPE_MISMATCH",
           "check_constraint", "check_constraint_clause", "check_primitive", "comparable",
           "is_range", "scalar", "timestamp", "version"]
