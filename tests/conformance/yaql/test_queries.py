"""yaql's query functions compiled to Python give what yaql gives.

Each case of queries.yaml runs twice: through laguna's compiler (with the
direct paths of laguna.lang.functions.queries) and through the yaql library
alone (its parser, evaluator and standard library), both under the limits
yaql's own tests use. Both must give the case's value or error; a case not
marked `direct: false` must also leave the query function itself to the
direct path (yaql's resolver is not asked for it).
"""

from __future__ import annotations

import functools
import pathlib
import re
import typing as t

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import yaql
from yaql.language import exceptions as yaql_exceptions
from yaql.language import utils

from laguna.lang import compiler
from laguna.lang.compiler import compile_statement
from laguna.lang.dispatch import freeze
from laguna.lang.executor import Executor
from laguna.lang.functions import queries
from laguna.lang.scope import Frame
from laguna.testing.packages import core_registry
from laguna.yaql import engine
from laguna.yaql.engine import Limits

CASES = yaml.safe_load((pathlib.Path(__file__).parent / "queries.yaml").read_text())
# as yaql's tests (yaql/tests/__init__.py) set them
LIMITS = Limits(iterators=100, memory_quota=20000)
OPTIONS = {"yaql.limitIterators": 100, "yaql.memoryQuota": 20000,
           "yaql.convertTuplesToLists": True, "yaql.convertSetsToLists": True}
# the functions each case's query functions are called through (first name of
# a method call in the text is enough to tell the direct path was not left)
QUERY_NAMES = frozenset({"where", "filter", "select", "map", "selectMany", "skip", "take",
                         "limit", "append", "distinct", "first", "last", "single", "sum",
                         "max", "min", "any", "all", "indexOf", "count", "len", "groupBy",
                         "orderBy", "orderByDescending", "thenBy", "thenByDescending",
                         "concat", "join", "range", "dict", "list", "str"})


def _data(case: dict[str, t.Any]) -> t.Any:
    if "data_range" in case:
        return list(range(case["data_range"]))
    return case.get("data")


def _expected(case: dict[str, t.Any]) -> t.Any:
    if "error" in case:
        return ("error", *case["error"])
    return freeze(case["value"])


def _outcome(evaluate: t.Callable[[], t.Any]) -> t.Any:
    try:
        return freeze(evaluate())
    except Exception as error:  # noqa: BLE001 - the kind and message are the result
        if isinstance(error, yaql_exceptions.WrappedException):
            error = error.wrapped   # as yaql's statement unwraps it at the top
        return ("error", type(error).__name__, re.sub(" at 0x[0-9a-f]+>", ">", str(error)))


def _same(actual: t.Any, expected: t.Any) -> bool:
    """Equal and of the same types all the way down (True is not 1 is not 1.0)."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, tuple):
        return len(actual) == len(expected) and all(map(_same, actual, expected))
    if isinstance(expected, utils.FrozenDict):
        return list(actual) == list(expected) and all(_same(actual[k], expected[k])
                                                      for k in expected)
    return bool(actual == expected)


@functools.cache
def _executor() -> Executor:
    return Executor(core_registry(), LIMITS)


def compiled(text: str, data: t.Any) -> t.Any:
    """Evaluated as code of a class (io.murano.Object) run by an executor
    with the test limits."""
    executor = _executor()
    cls = executor.find_class("io.murano.Object")
    scope = executor.new_scope(cls)
    scope.frame = Frame(executor, None, None, cls, None)
    scope.set_local("$1", freeze(data))
    fn = compile_statement(engine.parse(text, False), False, functions=executor.functions)
    return _outcome(lambda: executor.run(lambda: fn(scope)))


def interpreted(text: str, data: t.Any) -> t.Any:
    context = yaql.create_context()
    context["$"] = utils.convert_input_data(data)
    parsed = yaql.factory.YaqlFactory().create(options=OPTIONS)(text)
    return _outcome(lambda: parsed.evaluate(context=context))


class Spy:
    """Stands in for yaql's runner where compiled code calls it, recording names."""

    def __init__(self, real: t.Any) -> None:
        self.real = real
        self.names: list[str] = []

    def call(self, name: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        self.names.append(name)
        return self.real.call(name, *args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['expr']} {_data(c)!r:.40}" for c in CASES])
def test_compiled_gives_the_case(case: dict[str, t.Any], monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(compiler.runner)
    monkeypatch.setattr(compiler, "runner", spy)
    monkeypatch.setattr(queries, "runner", spy)
    actual = compiled(case["expr"], _data(case))
    expected = _expected(case.get("laguna", case))
    assert _same(actual, expected), actual
    asked = [name for name in spy.names if name in QUERY_NAMES]
    if case.get("direct", True):
        assert asked == case.get("asks", [])
    else:
        assert asked != []


@pytest.mark.parametrize("case", CASES, ids=[f"{c['expr']} {_data(c)!r:.40}" for c in CASES])
def test_yaql_gives_the_case(case: dict[str, t.Any]) -> None:
    actual = interpreted(case["expr"], _data(case))
    assert _same(actual, _expected(case)), actual


# -- generated: pipelines over generated data, compiled against yaql ---------------
ITEMS = st.one_of(
    st.integers(-3, 5), st.sampled_from(["a", "b", "", "ab"]), st.sampled_from([None, True, 1.5]),
    st.fixed_dictionaries({"k": st.integers(0, 3), "v": st.sampled_from(["x", "y", "z"])}))
STEPS = ["where($ > 2)", "where($.k > 1)", "where($)", "select($ * 2)", "select($.k)",
         "select(dict(k => $, v => str($)))", "select([$, $])", "orderBy($)", "orderBy($.k)",
         "orderByDescending($)", "orderByDescending($.k).thenBy($.v)",
         "orderBy($.v).thenByDescending($.k)", "groupBy($.k)", "groupBy($.v, $.k, $.sum())",
         "groupBy($.k, $.v, [$[0], $[1].len()])", "distinct()", "distinct($.k)", "skip(1)",
         "take(2)", "append(1, a)", "concat([0])", "selectMany([$, $])"]
ENDS = ["", ".first()", ".first(0)", ".last()", ".single()", ".sum()", ".max()", ".min()",
        ".len()", ".count()", ".any()", ".any($ = 1)", ".all($ > 0)", ".indexOf(1)",
        ".select($).len()", ".take(1).sum(0)"]


@st.composite
def pipelines(draw: st.DrawFn) -> str:
    steps = draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=3))
    return "$." + ".".join(steps) + draw(st.sampled_from(ENDS))


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(pipelines(), st.lists(ITEMS, max_size=7))
def test_compiled_pipelines_match_yaql(text: str, data: list[t.Any]) -> None:
    assert _same(compiled(text, data), interpreted(text, data))
