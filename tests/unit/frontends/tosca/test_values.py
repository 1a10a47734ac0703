"""Scalar units, versions, timestamps and the constraint operators."""

from __future__ import annotations

import datetime

import pytest

from laguna.frontends.tosca import values


@pytest.mark.parametrize(("kind", "text", "base"), [
    ("scalar-unit.size", "2 GiB", 2 * 1024 ** 3),
    ("scalar-unit.size", "1.5 kB", 1500.0),
    ("scalar-unit.size", "10 b", 10.0),
    ("scalar-unit.time", "90 s", 90.0),
    ("scalar-unit.time", "2 m", 120.0),
    ("scalar-unit.time", "1 d", 86400.0),
    ("scalar-unit.time", "500 ms", 0.5),
    ("scalar-unit.frequency", "2.4 GHz", 2.4e9),
    ("scalar-unit.bitrate", "1 Kibps", 1024.0),
])
def test_scalar_in_base_units(kind: str, text: str, base: float) -> None:
    assert values.scalar(kind, text) == pytest.approx(base)


@pytest.mark.parametrize("text", ["2", "GB", "2 parsecs", "2GB extra", ""])
def test_scalar_refuses_what_is_not_one(text: str) -> None:
    assert values.scalar("scalar-unit.size", text) is None


def test_versions_order_by_number_not_text() -> None:
    assert values.version("1.10.0") > values.version("1.2.0")  # type: ignore[operator]
    assert values.version("1.2") == (1, 2, 0, "", 0)
    assert values.version("2.0.1.beta-3") == (2, 0, 1, "beta", 3)
    assert values.version(3) == (3, 0, 0, "", 0)
    assert values.version("one") is None


def test_timestamps_from_text_and_from_yaml() -> None:
    utc = datetime.timezone.utc
    assert values.timestamp("2001-12-14t21:59:43.10-05:00") == datetime.datetime(
        2001, 12, 15, 2, 59, 43, 100000, tzinfo=utc)
    assert values.timestamp("2001-12-14") == datetime.datetime(2001, 12, 14, tzinfo=utc)
    assert values.timestamp(datetime.date(2020, 1, 1)) == datetime.datetime(2020, 1, 1,
                                                                             tzinfo=utc)
    assert values.timestamp("yesterday") is None


@pytest.mark.parametrize(("type_name", "value", "why"), [
    ("integer", True, "True is not an integer"),
    ("integer", 1.5, "1.5 is not an integer"),
    ("float", "1", "'1' is not a float"),
    ("boolean", "true", "'true' is not a boolean"),
    ("range", [3, 1], "[3, 1] is not a range"),
    ("range", [1, "UNBOUNDED"], None),
    ("null", None, None),
    ("map", [], "[] is not a map"),
    ("version", "1.x", "'1.x' is not a version"),
])
def test_primitive_checks(type_name: str, value: object, why: str | None) -> None:
    assert values.check_primitive(type_name, value) == why


@pytest.mark.parametrize(("clause", "type_name", "value", "why"), [
    ({"equal": 2}, "integer", 2, None),
    ({"equal": 2}, "integer", 3, "3 is not equal to 2"),
    ({"greater_than": "1 GB"}, "scalar-unit.size", "1 GiB", None),
    ({"greater_than": "1 GiB"}, "scalar-unit.size", "1 GB",
     "'1 GB' is not greater than '1 GiB'"),
    ({"greater_or_equal": "1 m"}, "scalar-unit.time", "60 s", None),
    ({"less_than": "1.10"}, "version", "1.9", None),
    ({"less_or_equal": 5}, "float", 5.5, "5.5 is not less than or equal to 5"),
    ({"in_range": [1, "UNBOUNDED"]}, "integer", 10 ** 9, None),
    ({"in_range": [1, 3]}, "integer", 0, "0 is not in range [1, 3]"),
    ({"valid_values": ["a", "b"]}, "string", "c", "'c' is not one of 'a', 'b'"),
    ({"length": 2}, "list", [1], "the length of [1] is 1, not 2"),
    ({"min_length": 1}, "map", {}, "the length of {} is 0, not at least 1"),
    ({"max_length": 3}, "string", "abcd", "the length of 'abcd' is 4, not at most 3"),
    ({"pattern": "[0-9]+"}, "string", "12a", "'12a' does not match the pattern '[0-9]+'"),
    ({"pattern": "[0-9]+"}, "string", "12", None),
    ({"schema": {"type": "array"}}, "list", [1], None),
    ({"schema": {"type": "array"}}, "map", {"a": 1},
     "{\"a\": 1} does not follow the schema: {'a': 1} is not of type 'array'"),
])
def test_constraint_operators(clause: dict[str, object], type_name: str, value: object,
                              why: str | None) -> None:
    assert values.check_constraint(clause, type_name, value) == why


@pytest.mark.parametrize(("clause", "why"), [
    ({"bigger": 1}, "unknown constraint operator 'bigger' (expected one of equal, "
                    "greater_than, greater_or_equal, less_than, less_or_equal, in_range, "
                    "valid_values, length, min_length, max_length, pattern, schema)"),
    ({"in_range": [1]}, "in_range takes a list of two values"),
    ({"length": "2"}, "length takes an integer"),
    ({"pattern": "("}, "pattern '(' is not a regular expression: missing ), unterminated "
                       "subpattern at position 0"),
    ({"equal": 1, "less_than": 2}, "a constraint clause is a map of one operator, got "
                                   "{\"equal\": 1, \"less_than\": 2}"),
])
def test_malformed_constraint_clauses(clause: object, why: str) -> None:
    assert values.check_constraint_clause(clause, "integer") == ("invalid_template", why)
