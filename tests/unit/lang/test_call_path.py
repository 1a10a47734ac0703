"""The short path of a call (every argument by position, all of them standard:
``Executor.invoke`` writing them straight into the method's scope) answers
exactly as the general binding (``bind_arguments``, which keyword calls
take): the same value, the same contract violation with its target."""

from __future__ import annotations

import typing as t

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laguna.errors import LagunaError
from laguna.lang import errors
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir

CLASS = """\
Namespaces:
  =: t.calls
Name: Calls
Methods:
  pair:
    Arguments:
      - a:
          Contract: $.int().check($ >= 0)
      - b:
          Contract: $.string().notNull()
    Body:
      - Return: [$a, $b, $this = $]
  byPosition:
    Arguments: [{x: {Contract: $}}, {y: {Contract: $}}]
    Body:
      - Return: $.pair($x, $y)
  byName:
    Arguments: [{x: {Contract: $}}, {y: {Contract: $}}]
    Body:
      - Return: $.pair(b => $y, a => $x)
  none:
    Body:
      - Return: $this
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Executor, t.Any]:
    package = tmp_path_factory.mktemp("calls") / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.calls\nClasses:\n  t.calls.Calls: Calls.yaml\n")
    (package / "Classes" / "Calls.yaml").write_text(CLASS)
    registry = core_registry()
    registry.add(read_package_dir(package))
    executor = Executor(registry)
    cls = registry.find("t.calls.Calls")
    return executor, executor.new_object(cls, None, {})


def outcome(executor: Executor, obj: t.Any, method: str, *args: t.Any,
            **kwargs: t.Any) -> t.Any:
    try:
        return ("ok", executor.call(obj, method, *args, **kwargs))
    except errors.MuranoPlError as exc:
        return ("error", exc.message, [(f.method_name, str(f.span)) for f in exc.frames])
    except LagunaError as exc:   # a violation at the outermost call: no MuranoPL frames
        return ("error", type(exc).__name__, str(exc))


def test_a_call_by_position_binds_its_arguments(calls: tuple[Executor, t.Any]) -> None:
    executor, obj = calls
    assert executor.call(obj, "pair", "3", 4) == (3, "4", True)
    assert executor.call(obj, "byPosition", 3, "x") == (3, "x", True)
    assert executor.call(obj, "none") is obj
    assert outcome(executor, obj, "pair", "x", "y") == (
        "error", "ContractViolationException", "argument a of method t.calls.Calls::pair: "
        "Value 'x' violates int() contract (contract: $.int().check($ >= 0))")
    assert outcome(executor, obj, "byPosition", -1, "x") == (
        "error", "argument a of method t.calls.Calls::pair: Value -1 doesn't match predicate "
                 "(contract: $.int().check($ >= 0))",
        [("byPosition", "Classes/Calls.yaml:16:9")])


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3),
                 st.floats(allow_nan=False, width=16)),
       st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3)))
def test_by_position_answers_as_by_name(calls: tuple[Executor, t.Any], a: t.Any,
                                        b: t.Any) -> None:
    executor, obj = calls
    assert outcome(executor, obj, "pair", a, b) == outcome(executor, obj, "pair", a=a, b=b)
    by_position = outcome(executor, obj, "byPosition", a, b)
    by_name = outcome(executor, obj, "byName", a, b)
    assert by_position[:2] == by_name[:2]
