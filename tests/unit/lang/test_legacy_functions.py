"""Format 1.0/1.1 packages call yaql's string methods as functions too, and the
forms under the sandbox's limits (join, replace) keep both spellings."""

from __future__ import annotations

import pytest

from laguna.lang.compiler import Compiler
from laguna.lang.functions import LANGUAGE_MODULES, build_table, engine_context
from laguna.lang.scope import Scope
from laguna.yaql import engine

CASES = [
    ("join(', ', list(a, b))", "a, b"),
    ("join(list(a, b), ', ')", "a, b"),
    ("list(a, b).join(', ')", "a, b"),
    ("replace('abc', dict(a => x))", "xbc"),
    ("'abc'.replace(dict(a => x))", "xbc"),
    ("replace('abc', a, x)", "xbc"),
    ("'abc'.replace(a, x)", "xbc"),
    ("toLower('AB')", "ab"),
    ("split('a,b', ',')", ("a", "b")),
    ("substr('teststr', 2, 3)", "sts"),
]


@pytest.fixture(scope="module")
def legacy_context() -> object:
    return engine_context(build_table(LANGUAGE_MODULES), True)


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_legacy_function_forms(legacy_context: object, text: str, expected: object) -> None:
    compiled = Compiler(True).statement(engine.parse(text, True))
    assert compiled(Scope(legacy_context)) == expected
