"""Python errors raised inside native methods, as MuranoPL sees them.

The native method here is bound by the test (the shipped core library has no
method that exists to fail); the conformance package `exceptions` covers a
real one (Logger.info with a bad format field).
"""

from __future__ import annotations

import textwrap
import typing as t

import pytest

from laguna.corelib.declare import native
from laguna.lang import errors
from laguna.lang.classes import PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import MuranoClass, RuntimePackage
from laguna.testing.packages import core_registry

SOURCE = "Classes/A.yaml"


class Boom(Exception):
    """A non-built-in Python error: MuranoPL names it module.Class."""


def _explode(executor: t.Any, this: t.Any, frame: t.Any, kind: str) -> None:
    if kind == "key":
        raise KeyError("missing")
    if kind == "zero":
        raise ZeroDivisionError("division by zero")
    raise Boom("custom failure")


def _bind(cls: MuranoClass) -> None:
    native(cls, "explode", _explode, [("kind", "key")])


CLASS = """\
    Namespaces:
      =: t
      py: ''
    Name: A
    Methods:
      outer:
        Arguments:
          - kind:
              Contract: $.string()
        Body:
          - $.inner($kind)
      inner:
        Arguments:
          - kind:
              Contract: $.string()
        Body:
          - $.explode($kind)
      catchKey:
        Body:
          - Try:
              - $.outer(key)
            Catch:
              With: py:KeyError
              As: e
              Do:
                - Return: [$e.name, $e.message, $e.stackTrace.frames.select($.methodName),
                           $e.stackTrace.frames.select($.location)]
    """


def executor() -> Executor:
    registry = core_registry()
    body = textwrap.dedent(CLASS)
    registry.bind_native("t.A", _bind)
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [(SOURCE, lambda: body)]))
    return Executor(registry)


def new_a(ex: Executor) -> t.Any:
    return ex.new_object(ex.find_class("t.A"), None, {})


def test_python_error_is_caught_by_its_name_with_murano_frames() -> None:
    ex = executor()
    assert ex.call(new_a(ex), "catchKey") == (
        "KeyError", "'missing'", ("catchKey", "outer", "inner"),
        (f"{SOURCE}:21:13", f"{SOURCE}:11:9", f"{SOURCE}:17:9"))


@pytest.mark.parametrize(("kind", "names", "message"), [
    ("key", ["KeyError"], "'missing'"),
    ("zero", ["ZeroDivisionError"], "division by zero"),
    ("boom", [f"{__name__}.Boom"], "custom failure"),
])
def test_uncaught_python_error(kind: str, names: list[str], message: str) -> None:
    ex = executor()
    with pytest.raises(errors.MuranoPlError) as info:
        ex.call(new_a(ex), "outer", kind)
    error = info.value
    assert error.names == names
    assert error.message == message
    # the MuranoPL frames up to the call; the native frame has no location
    assert [(f.class_name, f.method_name, f.span.line if f.span else None)
            for f in error.frames] == [("t.A", "outer", 11), ("t.A", "inner", 17)]
    assert error.frames[-1].instruction == "$.explode($kind)"
    assert isinstance(error.original, (KeyError, ZeroDivisionError, Boom))
    assert error.__cause__ is error.original


def test_native_called_from_host_code_has_no_murano_frames() -> None:
    ex = executor()
    with pytest.raises(errors.MuranoPlError) as info:
        ex.call(new_a(ex), "explode", "zero")
    assert info.value.names == ["ZeroDivisionError"]
    assert info.value.frames == []
