"""Evaluating YAML data with expressions (defaults, meta values) compiles
each structure once: the same structure gives the same closure, another
structure, flavour or function table its own."""

from __future__ import annotations

from laguna.lang.functions import language_functions
from laguna.lang.macros import compiled_data
from laguna.lang.scope import Scope


def test_one_structure_is_compiled_once() -> None:
    functions = language_functions()
    value = ["small", {"a": 1}]
    first = compiled_data(value, False, functions)
    assert compiled_data(value, False, functions) is first
    assert first(Scope()) == ("small", {"a": 1})


def test_an_equal_structure_or_another_flavour_is_compiled_again() -> None:
    functions = language_functions()
    value = ["small"]
    first = compiled_data(value, False, functions)
    assert compiled_data(["small"], False, functions) is not first
    assert compiled_data(value, True, functions) is not first
