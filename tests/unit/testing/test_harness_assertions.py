"""The assertions of io.murano.test.TestFixture pass and fail exactly when they
should, with the message they give: every other MuranoPL test relies on them.

Each row is one MuranoPL test method calling one assertion; the whole table
runs as one package through the runner `laguna test` uses.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest
import yaql

from laguna.testing.runner import TestResult as Result
from laguna.testing.runner import TestRunner as PackageRunner

PASS = None

# (MuranoPL call, None when it must pass, else the message the test fails with)
ROWS: list[tuple[str, str | None]] = [
    # assertEqual
    ("$.assertEqual(1, 1)", PASS),
    ("$.assertEqual('a', 'a')", PASS),
    ("$.assertEqual([1, [2]], [1, [2]])", PASS),
    ("$.assertEqual({a => [1]}, {a => [1]})", PASS),
    ("$.assertEqual(null, null)", PASS),
    ("$.assertEqual(1, 2)", "AssertionError: 1 != 2"),
    ("$.assertEqual(1, 2, 'numbers differ')", "AssertionError: numbers differ: 1 != 2"),
    ("$.assertEqual('a', 'b')", "AssertionError: 'a' != 'b'"),
    ("$.assertEqual([1, 2], [2, 1])", "AssertionError: [1, 2] != [2, 1]"),
    ("$.assertEqual({a => 1}, {a => 2})", "AssertionError: {'a': 1} != {'a': 2}"),
    ("$.assertEqual(null, 0)", "AssertionError: None != 0"),
    ("$.assertEqual('1', 1)", "AssertionError: '1' != 1"),
    ("$.assertEqual([1], 1)", "AssertionError: [1] != 1"),
    ("$.assertEqual(expected => 3, observed => 4, message => m)", "AssertionError: m: 3 != 4"),
    # assertTrue
    ("$.assertTrue(true)", PASS),
    ("$.assertTrue(1)", PASS),
    ("$.assertTrue('a')", PASS),
    ("$.assertTrue([0])", PASS),
    ("$.assertTrue({a => null})", PASS),
    ("$.assertTrue(1 < 2)", PASS),
    ("$.assertTrue(false)", "AssertionError: False is not true"),
    ("$.assertTrue(1 > 2)", "AssertionError: False is not true"),
    ("$.assertTrue(0)", "AssertionError: 0 is not true"),
    ("$.assertTrue(null)", "AssertionError: None is not true"),
    ("$.assertTrue('')", "AssertionError: '' is not true"),
    ("$.assertTrue([])", "AssertionError: [] is not true"),
    ("$.assertTrue({})", "AssertionError: {} is not true"),
    ("$.assertTrue(false, 'must hold')", "AssertionError: must hold: False is not true"),
    # assertFalse
    ("$.assertFalse(false)", PASS),
    ("$.assertFalse(0)", PASS),
    ("$.assertFalse(null)", PASS),
    ("$.assertFalse('')", PASS),
    ("$.assertFalse([])", PASS),
    ("$.assertFalse(1 > 2)", PASS),
    ("$.assertFalse(true)", "AssertionError: True is not false"),
    ("$.assertFalse(2)", "AssertionError: 2 is not false"),
    ("$.assertFalse('x')", "AssertionError: 'x' is not false"),
    ("$.assertFalse([null])", "AssertionError: [None] is not false"),
    ("$.assertFalse(true, 'must not hold')", "AssertionError: must not hold: True is not false"),
    # assertIn
    ("$.assertIn(1, [1, 2])", PASS),
    ("$.assertIn([1], [[1], 2])", PASS),
    ("$.assertIn(a, {a => 1})", PASS),
    ("$.assertIn('b', 'abc')", PASS),
    ("$.assertIn(3, [1, 2])", "AssertionError: 3 not found in [1, 2]"),
    ("$.assertIn(3, [])", "AssertionError: 3 not found in []"),
    ("$.assertIn(b, {a => 1})", "AssertionError: 'b' not found in {'a': 1}"),
    ("$.assertIn(1, {a => 1})", "AssertionError: 1 not found in {'a': 1}"),
    ("$.assertIn('x', 'abc')", "AssertionError: 'x' not found in 'abc'"),
    ("$.assertIn(3, [1], 'where is it')", "AssertionError: where is it: 3 not found in [1]"),
    # assertNotIn
    ("$.assertNotIn(3, [1, 2])", PASS),
    ("$.assertNotIn(3, [])", PASS),
    ("$.assertNotIn(b, {a => 1})", PASS),
    ("$.assertNotIn('x', 'abc')", PASS),
    ("$.assertNotIn(1, [1, 2])", "AssertionError: 1 unexpectedly found in [1, 2]"),
    ("$.assertNotIn(a, {a => 1})", "AssertionError: 'a' unexpectedly found in {'a': 1}"),
    ("$.assertNotIn('b', 'abc')", "AssertionError: 'b' unexpectedly found in 'abc'"),
    ("$.assertNotIn(1, [1], 'gone?')", "AssertionError: gone?: 1 unexpectedly found in [1]"),
]

# assertEqual compares as YAQL's `=` does, like the original engine's fixture:
# these pairs are equal there (so a conformance test about a type must check
# the type too) and those after them are not.
YAQL_EQUAL = [("1", "true"), ("1", "1.0"), ("0", "false"), ("[1]", "[true]"),
              ("{a => 1}", "{a => 1.0}")]
YAQL_UNEQUAL = [("'1'", "1"), ("null", "false"), ("null", "0"), ("[1, 2]", "[2, 1]"),
                ("'a'", "'A'")]

EQUALITY_ROWS = [(f"$.assertEqual({a}, {b})", PASS if equal else f"AssertionError: ")
                 for pairs, equal in ((YAQL_EQUAL, True), (YAQL_UNEQUAL, False))
                 for a, b in pairs]


def _package(root: pathlib.Path, calls: list[str]) -> pathlib.Path:
    (root / "Classes").mkdir()
    (root / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.asserts\n"
        "Classes:\n  t.asserts.Cases: Cases.yaml\n")
    methods = "".join(f"  test{i:03}:\n    Body:\n      - {call}\n"
                      for i, call in enumerate(calls))
    (root / "Classes" / "Cases.yaml").write_text(textwrap.dedent("""\
        Namespaces:
          =: t.asserts
          std: io.murano
        Name: Cases
        Extends: std:test.TestFixture
        Methods:
        """) + methods)
    return root


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    calls = [call for call, _ in ROWS + EQUALITY_ROWS]
    runner = PackageRunner(_package(tmp_path_factory.mktemp("asserts"), calls))
    cases = runner.select(())
    assert len(cases) == len(calls)
    by_call = {}
    for cls, method in cases:
        by_call[calls[int(method[len("test"):])]] = runner.run_one(cls, method)
    return by_call


@pytest.mark.parametrize(("call", "message"), ROWS, ids=[call for call, _ in ROWS])
def test_assertion(results: dict[str, Result], call: str, message: str | None) -> None:
    result = results[call]
    if message is PASS:
        assert result.passed, result.message
    else:
        assert not result.passed
        assert result.message == message
        # the trace points at the assertion's line of the test method
        assert result.trace.startswith("  Traceback (most recent call last):\n")
        assert f"        {call}" in result.trace.splitlines()


@pytest.mark.parametrize(("call", "message"), EQUALITY_ROWS,
                         ids=[call for call, _ in EQUALITY_ROWS])
def test_assert_equal_is_yaql_equality(results: dict[str, Result], call: str,
                                       message: str | None) -> None:
    args = call[len("$.assertEqual("):-1]
    yaql_equal = yaql.factory.YaqlFactory().create()(
        f"[{args}][0] = [{args}][1]").evaluate(context=yaql.create_context())
    assert yaql_equal is (message is PASS)
    assert results[call].passed is yaql_equal, results[call].message
    if not yaql_equal:
        assert results[call].message.startswith(message)
