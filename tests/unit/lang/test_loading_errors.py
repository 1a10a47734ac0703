"""Errors in class definitions: each has its type, code, message and place.

These are awkward to write as MuranoPL tests because the class in error
never loads; they build a package in memory and ask the registry for it.
"""

from __future__ import annotations

import textwrap

import pytest

from laguna.lang import errors
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry
from laguna.yamlio import YamlError

SOURCE = "Classes/A.yaml"


def registry_with(text: str) -> ClassRegistry:
    registry = core_registry()
    body = textwrap.dedent(text)
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [(SOURCE, lambda: body)]))
    return registry


def load(text: str) -> object:
    return registry_with(text).find("t.A")


def test_broken_yaml_names_file_and_line() -> None:
    with pytest.raises(YamlError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Body: [$x: 1
            """)
    error = info.value
    assert error.code == "LAG-E0101"
    assert error.message == "invalid YAML: expected ',' or ']', but got '<stream end>'"
    assert (error.span.source, error.span.line) == (SOURCE, 5)


def test_duplicate_key_is_an_error() -> None:
    with pytest.raises(YamlError) as info:
        load("""\
            Name: t.A
            Properties:
              p: {Contract: $}
              p: {Contract: $.int()}
            """)
    assert info.value.code == "LAG-E0101"
    assert info.value.message == "duplicate key 'p'"
    assert (info.value.span.line, info.value.span.col) == (4, 3)


def test_unknown_class_key() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Propertes: {}
            """)
    error = info.value
    assert error.code == "LAG-E0203"
    assert error.message == (
        "unknown key 'Propertes' in class t.A; expected one of Applies, Cardinality, "
        "Extends, Import, Inherited, Meta, Methods, Name, Namespaces, Properties, Usage, "
        "Workflow")
    assert str(error.span) == f"{SOURCE}:2:1"


def test_unknown_property_key() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Properties:
              p:
                Contract: $.int()
                Defualt: 1
            """)
    assert info.value.code == "LAG-E0203"
    assert info.value.message == (
        "unknown key 'Defualt' in property p; expected one of Contract, Default, Meta, Usage")
    assert str(info.value.span) == f"{SOURCE}:5:5"


def test_property_without_contract() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Properties:
              p:
                Usage: InOut
            """)
    assert info.value.code == "LAG-E0208"
    assert info.value.message == "property p has no Contract"
    assert str(info.value.span) == f"{SOURCE}:3:3"


def test_invalid_property_usage() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Properties:
              p:
                Contract: $
                Usage: Input
            """)
    assert info.value.code == "LAG-E0209"
    assert info.value.message == ("invalid Usage 'Input' of property p; expected one of In, "
                                  "Out, InOut, Const, Runtime, Static, Config")
    assert str(info.value.span) == f"{SOURCE}:5:5"


def test_unknown_parent_class() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Namespaces: {=: t}
            Name: A
            Extends: Missing
            """)
    assert info.value.code == "LAG-E0242"
    assert info.value.message == "class t.A: Extends names class t.Missing, which is not found"
    assert (info.value.span.source, info.value.span.line) == (SOURCE, 3)


def test_unknown_imported_class() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Namespaces: {=: t, x: other.ns}
            Name: A
            Import: [x:Tools]
            """)
    assert info.value.code == "LAG-E0242"
    assert info.value.message == "class t.A: Import names class other.ns.Tools, which is not found"
    assert (info.value.span.source, info.value.span.line) == (SOURCE, 3)


def test_unknown_instruction() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Body:
                  - Loop: 3
            """)
    assert info.value.code == "LAG-E0221"
    assert info.value.message.startswith("unknown instruction with keys 'Loop'; expected an "
                                         "expression, an assignment or one of Return, Break")
    assert str(info.value.span) == f"{SOURCE}:5:9"


def test_plain_words_are_not_an_instruction() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Body:
                  - do something
            """)
    assert info.value.code == "LAG-E0222"
    assert info.value.message == ("'do something' is not an instruction (a plain value is not "
                                  "an expression: use !yaql or an expression with $)")
    assert str(info.value.span) == f"{SOURCE}:5:9"


def test_unexpected_key_in_block() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Body:
                  - If: $.x
                    Then: []
                    Otherwise: []
            """)
    assert info.value.code == "LAG-E0211"
    assert info.value.message == "unexpected key 'Otherwise' in If block; expected one of Else, If, Then"
    assert str(info.value.span) == f"{SOURCE}:7:9"


def test_while_needs_an_expression() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Body:
                  - While: true
                    Do: []
            """)
    assert info.value.code == "LAG-E0214"
    assert info.value.message == "While needs a YAQL expression"
    assert str(info.value.span) == f"{SOURCE}:5:9"


def test_varargs_after_kwargs() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Methods:
              m:
                Arguments:
                  - kw: {Usage: KwArgs}
                  - rest: {Usage: VarArgs}
            """)
    assert info.value.code == "LAG-E0237"
    assert info.value.message == "Invalid argument order in method m"
    assert str(info.value.span) == f"{SOURCE}:6:9"


def test_malformed_forced_contract_expression() -> None:
    with pytest.raises(errors.ClassLoadError) as info:
        load("""\
            Name: t.A
            Properties:
              p:
                Contract: !yaql "$.int("
            """)
    assert info.value.code == "LAG-E0223"
    assert info.value.message == ("invalid YAQL expression '$.int(': Parse error: unexpected "
                                  "end of statement")
    assert str(info.value.span) == f"{SOURCE}:4:15"


def test_unparsable_plain_contract_is_a_constant() -> None:
    # without !yaql a scalar that does not parse is a string, so this contract
    # only accepts that exact text
    registry = registry_with("""\
        Name: t.A
        Methods:
          m:
            Arguments:
              - v: {Contract: $.int(}
            Body:
              - Return: $v
        """)
    executor = Executor(registry)
    obj = executor.new_object(registry.find("t.A"), None, {})
    assert executor.call(obj, "m", "$.int(") == "$.int("
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(obj, "m", 5)
    assert info.value.message == "Value 5 is not equal to $.int("


class TestRuntimeArgumentErrors:
    CLASS = """\
        Name: t.A
        Methods:
          pair:
            Arguments:
              - first: {Contract: $.int()}
              - second: {Contract: $.string().notNull()}
            Body:
              - Return: [$first, $second]
        """

    def call(self, *args: object, **kwargs: object) -> object:
        registry = registry_with(self.CLASS)
        executor = Executor(registry)
        obj = executor.new_object(registry.find("t.A"), None, {})
        return executor.call(obj, "pair", *args, **kwargs)

    def test_wrong_argument_name(self) -> None:
        with pytest.raises(errors.NoMatchingMethod) as info:
            self.call(1, "a", third=3)
        assert info.value.code == "LAG-E0317"
        assert str(info.value) == "Method pair has no argument named third"

    def test_too_many_arguments(self) -> None:
        with pytest.raises(errors.NoMatchingMethod) as info:
            self.call(1, "a", 3)
        assert str(info.value) == "Method pair takes 2 positional arguments but 3 were given"

    def test_argument_contract_violation_names_the_argument(self) -> None:
        with pytest.raises(errors.ContractViolationException) as info:
            self.call("x", "a")
        assert info.value.code == "LAG-E0301"
        assert str(info.value) == ("argument first of method t.A::pair: Value 'x' violates "
                                   "int() contract (contract: $.int())")

    def test_not_null_argument_missing(self) -> None:
        with pytest.raises(errors.ContractViolationException) as info:
            self.call(1)
        assert str(info.value) == ("argument second of method t.A::pair: null value violates "
                                   "notNull() contract (contract: $.string().notNull())")

    def test_converted_values(self) -> None:
        assert self.call("5", 6) == (5, "6")
