"""Regressions for the findings of long fuzzing runs (benchmarks/fuzz.py,
issue 21): each test is the root cause of one or more findings, reduced."""

from __future__ import annotations

import pytest

from laguna.lang import compiler
from laguna.yaql import engine

# -- compiling: each node once ------------------------------------------------------------
# The fast paths and the fallback of a call each compiled its arguments anew,
# and an argument is itself a call: `sequence().take(sequence().take(...))`
# nested ten deep compiled some 400,000 nodes and loading its class took 8 s,
# outside any time limit (findings `ran 8.3 s: 3`, `ran 5.9 s: ...regex`).
# calls nested in an argument: each level is one call to compile
NESTED = ["sequence().take({})", "len({})", "str({})", "range({})", "'a'.replace({}, 1)",
          "'a'.replace(1, {})", "'x'.join({})", "'a'.format({})", "$l.where({} != null)",
          "$l.select([$, {}])", "$l.take({})", "$l.indexOf({})", "$l.orderBy({})",
          "$l.aggregate($1 + $2, {})", "$d.set({}, 1)", "$s.matches({})"]


def _calls_compiled(monkeypatch, text: str, legacy: bool) -> int:
    """How many calls (functions, methods) compiling ``text`` compiles."""
    calls = []
    for method in ("_function", "_method_call"):
        def counting(self, *args, original=getattr(compiler.Compiler, method)):
            calls.append(args)
            return original(self, *args)
        monkeypatch.setattr(compiler.Compiler, method, counting)
    compiler.Compiler(legacy).statement(engine.parse(text, legacy))
    monkeypatch.undo()
    return len(calls)


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("form", NESTED)
def test_nested_calls_compile_each_call_once(monkeypatch, form, legacy):
    text = "$x"
    for _ in range(8):
        text = form.format(text)
    assert _calls_compiled(monkeypatch, text, legacy) == 8 * _calls_compiled(
        monkeypatch, form.format("$x"), legacy)
