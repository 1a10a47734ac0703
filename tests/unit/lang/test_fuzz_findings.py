"""Regressions for the findings of long fuzzing runs (benchmarks/fuzz.py,
issue 21): each test is the root cause of one or more findings, reduced."""

from __future__ import annotations

import time
import typing as t

import pytest

from laguna.lang import compiler
from laguna.testing.fuzz import Expr, Fuzzer
from laguna.yaql import engine


@pytest.fixture(scope="module")
def fuzzer() -> Fuzzer:
    """The fuzzer's own runner and limits (laguna.testing.fuzz.FUZZ_LIMITS)."""
    return Fuzzer()


def outcome(fuzzer: Fuzzer, *body: t.Any) -> tuple[str, str]:
    """How ``body`` (after the fuzzer's variables) ends: its kind and detail,
    without the file and line of an error."""
    done = fuzzer.run([{Expr("$x"): 3}, {Expr("$l"): [1, 2, 3]}, *body])
    return done.kind, done.detail.split(" at Classes/")[0]

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


# -- a list repeated: counted before it is built -------------------------------------------
# yaql's `list * int` checks the result's size as a list's header less than
# the repeated list holds, so `[x] * 2**62` passed and Python ran out of
# memory (finding `memory_quota ... exceeded by an allocation the process
# could not make`, from `list(4611686018427387904) * 4611686018427387904`).
@pytest.mark.parametrize("text, message", [
    ("list(4611686018427387904) * 4611686018427387904",
     "iterators limit of 10000 items exceeded by a collection of 4611686018427387904 items"),
    ("4611686018427387904 * $l",
     "iterators limit of 10000 items exceeded by a collection of 13835058055282163712 items"),
    ("$l * 3000", "memory_quota limit of 65536 bytes exceeded by a collection of 9000 items"),
])
def test_a_list_repeated_past_the_limits_is_refused_before_it_is_built(fuzzer, text, message):
    assert outcome(fuzzer, {"Return": Expr(text)}) == ("error", f"['LimitExceededError']: {message}")


@pytest.mark.parametrize("text, result", [("$l * 2", "(1, 2, 3, 1, 2, 3)"),
                                          ("2 * [4]", "(4, 4)"), ("$l * -1", "()")])
def test_a_list_repeated_within_the_limits(fuzzer, text, result):
    assert outcome(fuzzer, {"Return": Expr(text)}) == ("result", result)


# -- a call through yaql counts as steps ---------------------------------------------------
# The clock was looked at every 4096 steps, a step an item: a loop whose every
# item is a call through yaql's overload resolution (tens of microseconds)
# looked at it once in seconds, and `str(range(1000).select(str(x) * 60000)
# .toList())` (issue 11's attack) ran 1.7 s under a 0.2 s limit. Each such
# call now counts limits.CALL_STEPS steps.
@pytest.mark.parametrize("text", ["range(10000).select(str(x) * 6).toList().len()",
                                  "range(10000).select(str(x) * 60000).toList().len()",
                                  "str(range(10000).select(str(x) * 60000).toList())"])
def test_a_loop_of_yaql_calls_ends_at_the_deadline(fuzzer, text):
    started = time.monotonic()
    assert outcome(fuzzer, {"Return": Expr(text)}) == (
        "error", "['LimitExceededError']: execution_seconds limit of 0.2 s exceeded")
    assert time.monotonic() - started < 1.0


# -- what murano-apps on real hosts showed: an empty message --------------------------------
# yaql wraps the bare StopIteration of `first()` on nothing; its message was empty, and
# io.murano.applications reported "Unable to install X due to " with nothing after it


@pytest.mark.parametrize("text", ["list().first()", "list().where($ > 5).first()"])
def test_first_of_nothing_says_why(fuzzer, text):
    assert outcome(fuzzer, {"Return": Expr(text)}) == (
        "error", "['yaql.language.exceptions.WrappedException']: StopIteration: no item in "
                 "an empty sequence (first(), single() or next() of nothing)")
