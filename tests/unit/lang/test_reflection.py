"""Reflection views: exactly the listed members are reachable, one view per
engine object, and yaql's own functions see them through laguna's dispatch.

What the members return is covered by the conformance package
tests/conformance/muranopl/packages/reflection.
"""

from __future__ import annotations

import textwrap

import pytest

from laguna.lang import dispatch, errors, reflection
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry

CLASSES = """\
Namespaces:
  =: t
--- # a class to look at
Name: A
Properties:
  p:
    Contract: $.int()
    Default: 1
  q:
    Contract: $.string()
Methods:
  twice:
    Arguments:
      - x:
          Contract: $.int()
    Body:
      - Return: $x * 2
"""


def registry_with(expression: str, version: str = "1.2.3") -> ClassRegistry:
    registry = core_registry()
    probe = textwrap.dedent(f"""\
        Namespaces:
          =: t
        Name: Probe
        Methods:
          run:
            Body:
              - Return: {expression}
        """)
    registry.add(PackageClasses(RuntimePackage("t.pkg", version),
                                [("Classes/A.yaml", lambda: CLASSES),
                                 ("Classes/Probe.yaml", lambda: probe)]))
    return registry


def run(expression: str, version: str = "1.2.3") -> object:
    registry = registry_with(expression, version)
    return Executor(registry).call(registry.find("t.Probe"), "run")


def test_exposed_members_are_exactly_the_documented_ones() -> None:
    assert set(reflection.TypeInfo.attributes) == {
        "name", "version", "ancestors", "properties", "methods", "package", "type", "usage",
        "meta", "cardinality", "targets", "inherited"}
    assert reflection.TypeInfo.methods == {}
    assert set(reflection.PropertyInfo.attributes) == {
        "name", "hasDefault", "usage", "declaringType", "meta"}
    assert set(reflection.PropertyInfo.methods) == {"getValue", "setValue"}
    assert set(reflection.MethodInfo.attributes) == {"name", "declaringType", "arguments", "meta"}
    assert set(reflection.MethodInfo.methods) == {"invoke"}
    assert set(reflection.ArgumentInfo.attributes) == {
        "name", "hasDefault", "usage", "declaringMethod", "meta"}
    assert set(reflection.PackageInfo.attributes) == {"name", "version", "types", "meta"}
    assert set(reflection.SemVer.attributes) == {"major", "minor", "patch", "prerelease", "build"}


@pytest.mark.parametrize("expression", [
    "typeinfo(:A).cls",
    "typeinfo(:A).attributes",
    "typeinfo(:A).methods.first().method",
    "typeinfo(:A).properties.first().prop",
    "typeinfo(:A).version.value",
])
def test_python_attributes_of_views_are_not_reachable(expression: str) -> None:
    with pytest.raises(errors.MuranoPlError) as info:
        run(expression)
    assert info.value.names == ["yaql.language.exceptions.NoFunctionRegisteredException"]
    assert info.value.message.startswith('Unknown property "')


def test_python_methods_of_views_are_not_callable() -> None:
    with pytest.raises(errors.MuranoPlError) as info:
        run("typeinfo(:A).methods.first()._invoke(null, [], {})")
    assert info.value.names == ["yaql.language.exceptions.NoMethodRegisteredException"]


def test_one_view_per_engine_object() -> None:
    registry = registry_with("null")
    cls = registry.find("t.A")
    assert reflection.type_info(cls) is reflection.type_info(cls)
    assert reflection.property_info(cls.properties["p"]) is reflection.property_info(
        cls.properties["p"])
    method = cls.methods["twice"]
    assert reflection.argument_info(method.arguments[0]) is reflection.argument_info(
        method.arguments[0])
    assert reflection.package_info(cls.package).version is reflection.package_info(
        cls.package).version


def test_typeinfo_returns_views_for_objects_type_objects_and_names() -> None:
    registry = registry_with("list(typeinfo(new(A)), typeinfo(:A), typeinfo('t.A'))")
    result = Executor(registry).call(registry.find("t.Probe"), "run")
    assert isinstance(result, tuple) and len(result) == 3
    assert result[0] is result[1] is result[2] is reflection.type_info(registry.find("t.A"))


def test_lambda_attribute_reads_reach_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    """`$.name` inside a yaql lambda (where, select, orderBy) is compiled code
    that calls dispatch.get_attribute with the view as receiver."""
    seen: list[tuple[str, str]] = []
    original = dispatch.get_attribute

    def spy(scope: object, receiver: object, name: str, slow: object) -> object:
        seen.append((type(receiver).__name__, name))
        return original(scope, receiver, name, slow)  # type: ignore[arg-type]
    monkeypatch.setattr(dispatch, "get_attribute", spy)
    result = run("typeinfo(:A).properties.where($.name != p).orderBy($.name).select($.name)")
    assert result == ("q",)
    assert ("PropertyInfo", "name") in seen


def test_attribute_of_a_list_of_views_maps_over_it() -> None:
    assert run("typeinfo(:A).properties.name") == ("p", "q")
    # a yaql iterator (the result of where) maps the same way
    assert run("typeinfo(:A).properties.where(true).hasDefault") == (True, False)


def test_views_work_with_yaql_collection_functions() -> None:
    assert run("typeinfo(:A).properties.first() in typeinfo(:A).properties") is True
    assert run("typeinfo(:A).properties.toDict($.name, $.hasDefault)") == {"p": True, "q": False}
    assert run("typeinfo(:A).methods.where($.name = twice).single().invoke(new(A), 21)") == 42
    assert run("typeinfo(:A).properties.distinct().len()") == 2


def test_version_with_prerelease_and_build() -> None:
    assert run("str(typeinfo(:A).version)", "1.2.3-beta.1+build.5") == "1.2.3-beta.1+build.5"
    assert run("typeinfo(:A).version.prerelease", "1.2.3-beta.1+build.5") == ("beta", "1")
    assert run("typeinfo(:A).version.build", "1.2.3-beta.1+build.5") == ("build", "5")
    assert run("typeinfo(:A).version = typeinfo(:A).package.version") is True


def test_typeinfo_rejects_values_that_are_not_types() -> None:
    with pytest.raises(errors.MuranoPlError) as info:
        run("typeinfo(list(1))")
    assert info.value.names == ["murano.dsl.exceptions.DslError"]
    assert info.value.message == "typeinfo() expects an object or a type, got (1,)"


def test_wrong_target_error_has_its_code() -> None:
    with pytest.raises(errors.MuranoPlError) as info:
        run("typeinfo(:A).properties.first().getValue(1)")
    assert info.value.names == ["murano.dsl.exceptions.DslInvalidOperationError"]
    assert isinstance(info.value.original, reflection.InvalidReflectionTarget)
    assert info.value.original.code == "LAG-E0810"
    assert info.value.message == ("getValue() of property t.A.p needs an object of class t.A, "
                                  "got 1")
