"""Explicit registration of the functions MuranoPL code calls: nothing is
registered by importing a module; whoever builds the engine builds a
FunctionTable from a list of modules, each with its own register()."""

from __future__ import annotations

import textwrap
import types

import pytest
from yaql.language import specs

from laguna import corelib
from laguna.corelib import logger
from laguna.lang import builtins, dispatch
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.functions import (
    LANGUAGE_MODULES, FunctionTable, build_table, dicts, language_functions, queries, strings,
    values,
)
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry, read_package_dir

CLASS = """\
    Name: t.Calls
    Methods:
      twice:
        Body:
          - Return: twice(21)
      log:
        Body:
          - Return: logger('t.Calls') != null
    """


def _package() -> PackageClasses:
    body = textwrap.dedent(CLASS)
    return PackageClasses(RuntimePackage("t.calls", "1.0.0"),
                          [("Classes/Calls.yaml", lambda: body)])


@specs.parameter("value", int)
def twice(value: int) -> int:
    return value * 2


def _twice_module() -> types.SimpleNamespace:
    # a function module as a new one would be written: it ends with register()
    def register(table: FunctionTable) -> None:
        table.register_function(twice)
    return types.SimpleNamespace(register=register)


def test_a_new_table_is_empty():
    table = FunctionTable()
    assert (table.functions, table.methods, table.fast_functions, table.fast_methods,
            table.compiled_functions) == ({}, {}, {}, {}, {})


def test_language_modules_are_the_dispatcher_the_builtins_the_queries_strings_dicts_values():
    assert LANGUAGE_MODULES == (dispatch, builtins, queries, strings, dicts, values)
    assert corelib.FUNCTION_MODULES == (dispatch, builtins, queries, strings, dicts, values,
                                        logger)


def test_builtins_register_their_functions_and_method_forms():
    table = build_table([builtins])
    assert sorted(table.functions) == [
        "cast", "dump", "find", "format", "id", "isObject", "metadata", "name", "new",
        "psuper", "require", "sleep", "super", "type", "typeinfo"]
    assert sorted(table.methods) == ["cast", "find", "id", "psuper", "require", "super"]
    assert table.functions["super"].lazy == frozenset({1})
    assert sorted(table.fast_methods) == ["format"]
    assert table.fast_functions == {}


def test_logger_is_a_core_library_function_not_a_language_one():
    assert "logger" not in language_functions().functions
    assert corelib.functions().functions["logger"].fn is logger.logger


def test_tables_are_built_once_per_list():
    assert corelib.functions() is corelib.functions()
    assert language_functions() is language_functions()


def test_registry_without_a_table_gets_the_language_functions():
    assert ClassRegistry().functions is language_functions()
    assert core_registry().functions is corelib.functions()


def test_yaql_function_of_a_new_module_reaches_code_of_the_engine_built_with_it():
    table = build_table((*corelib.FUNCTION_MODULES, _twice_module()))
    registry = ClassRegistry(functions=table)
    corelib.bind_natives(registry)
    registry.add(read_package_dir(corelib.CORE_PACKAGE_DIR))
    registry.add(_package())
    executor = Executor(registry)
    obj = executor.new_object(registry.find("t.Calls"), None, {})
    assert executor.call(obj, "twice") == 42
    assert executor.call(obj, "log") is True


def test_engine_without_the_module_does_not_know_the_function():
    registry = core_registry()
    registry.add(_package())
    executor = Executor(registry)
    obj = executor.new_object(registry.find("t.Calls"), None, {})
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "twice")
    assert info.value.names == ["yaql.language.exceptions.NoFunctionRegisteredException"]
