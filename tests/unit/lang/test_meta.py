"""Meta: load-time shape checks with codes and places, lazy building, the
errors' codes and MuranoPL names, and per-executor caching.

The MuranoPL-visible behaviour (values, inheritance, Applies, Cardinality)
is covered by the conformance package tests/conformance/muranopl/packages/meta.
"""

from __future__ import annotations

import textwrap
import weakref

import pytest

from laguna.lang import errors, meta
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry

SOURCE = "Classes/A.yaml"

META_CLASSES = """\
Namespaces:
  =: t
--- # one per entity
Name: One
Usage: Meta
Properties:
  n:
    Contract: $.int()
    Default: 0
--- # many, inherited
Name: Many
Usage: Meta
Cardinality: Many
Inherited: true
Properties:
  n:
    Contract: $.int()
    Default: 0
--- # for packages only
Name: PackageOnly
Usage: Meta
Applies: Package
"""


def registry_with(text: str, package_meta: object = None,
                  expression: str = "null") -> ClassRegistry:
    """A package t.pkg with ``text``, the meta classes above and a class t.Probe
    whose method run() returns ``expression``."""
    registry = core_registry()
    body = textwrap.dedent(text)
    probe = textwrap.dedent(f"""\
        Namespaces:
          =: t
        Name: Probe
        Methods:
          run:
            Body:
              - Return: {expression}
        """)
    package = RuntimePackage("t.pkg", "2.0.0", meta=package_meta)
    registry.add(PackageClasses(package, [(SOURCE, lambda: body),
                                          ("Classes/Meta.yaml", lambda: META_CLASSES),
                                          ("Classes/Probe.yaml", lambda: probe)]))
    return registry


def run(registry: ClassRegistry, executor: Executor | None = None) -> object:
    executor = executor or Executor(registry)
    return executor.call(registry.find("t.Probe"), "run")


def load_error(text: str) -> errors.ClassLoadError:
    with pytest.raises(errors.ClassLoadError) as info:
        registry_with(text).find("t.A")
    return info.value


# -- shape checks when the class loads -----------------------------------------------------
def test_meta_mapping_with_two_keys_is_a_load_error() -> None:
    error = load_error("""\
        Name: t.A
        Meta:
          t.One: {n: 1}
          t.Many: {n: 2}
        """)
    assert error.code == "LAG-E0801"
    assert error.message == ("invalid Meta of class t.A: a Meta entry must be a class name or a "
                             "mapping with exactly one key (the meta class name), got 2 keys")
    assert (error.span.source, error.span.line, error.span.col) == (SOURCE, 3, 3)


def test_meta_properties_must_be_a_mapping() -> None:
    error = load_error("""\
        Name: t.A
        Properties:
          p:
            Contract: $
            Meta:
              - t.One: [1, 2]
        """)
    assert error.code == "LAG-E0801"
    assert error.message == ("invalid Meta of property t.A.p: the properties of meta t.One must "
                             "be a mapping of property names to values")
    assert (error.span.line, error.span.col) == (6, 16)


def test_meta_entry_that_is_a_number_is_a_load_error() -> None:
    error = load_error("""\
        Name: t.A
        Methods:
          m:
            Arguments:
              - x:
                  Contract: $
                  Meta: [t.One, 42]
        """)
    assert error.code == "LAG-E0801"
    assert error.message == ("invalid Meta of argument x of method t.A::m: a Meta entry must be "
                             "a class name or a mapping, got 42")
    assert error.span.line == 7


def test_inherited_must_be_a_boolean() -> None:
    error = load_error("""\
        Name: t.A
        Usage: Meta
        Inherited: sometimes
        """)
    assert error.code == "LAG-E0206"
    assert error.message == "invalid Inherited 'sometimes'; expected true or false"
    assert (error.span.line, error.span.col) == (3, 1)


# -- what the meta classes allow, checked when the class loads (issue 23) ----------------
def meta_load_error(text: str) -> meta.InvalidClassMeta:
    with pytest.raises(meta.InvalidClassMeta) as info:
        registry_with(text).find("t.A")
    return info.value


def test_cardinality_one_attached_twice_stops_the_class_from_loading() -> None:
    error = meta_load_error("""\
        Namespaces: {=: t}
        Name: A
        Meta: [One, One]
        """)
    assert error.code == "LAG-E0804"
    assert error.murano_name == "ValueError"   # what the original engine raised at load
    assert str(error) == ("Classes/A.yaml:3:13: error[LAG-E0804]: meta class t.One has "
                          "Cardinality One but is attached more than once to class t.A")
    assert isinstance(error.problem, meta.MetaCardinalityError)


def test_meta_that_does_not_apply_stops_the_class_from_loading() -> None:
    error = meta_load_error("""\
        Namespaces: {=: t}
        Name: A
        Methods:
          m:
            Meta: PackageOnly
            Body:
        """)
    assert error.code == "LAG-E0803"
    assert str(error) == ("Classes/A.yaml:5:11: error[LAG-E0803]: meta class t.PackageOnly "
                          "cannot be attached to method t.A::m: it applies to Package")


def test_every_meta_problem_of_the_class_is_listed() -> None:
    error = meta_load_error("""\
        Namespaces: {=: t}
        Name: A
        Meta: Probe
        Properties:
          p:
            Contract: $
            Meta: [One, PackageOnly]
        """)
    assert [str(e) for e in error.every()] == [
        "Classes/A.yaml:3:7: error[LAG-E0802]: class t.Probe cannot be attached to class t.A "
        "as meta: it is not declared with Usage: Meta",
        "Classes/A.yaml:7:17: error[LAG-E0803]: meta class t.PackageOnly cannot be attached "
        "to property t.A.p: it applies to Package"]


def test_unresolvable_meta_stops_the_class_from_loading() -> None:
    error = meta_load_error("""\
        Name: t.A
        Meta: t.Missing
        """)
    assert error.code == "LAG-E0704"
    assert error.murano_name == "murano.dsl.exceptions.NoClassFound"
    assert str(error) == ('Classes/A.yaml:2:7: error[LAG-E0704]: Class "t.Missing" is not '
                          "found in t.pkg/2.0.0, io.murano/0.2.0")


def test_new_of_a_class_with_bad_meta_raises_the_load_error_every_time() -> None:
    registry = registry_with("""\
        Namespaces: {=: t}
        Name: A
        Meta: [One, One]
        """, expression="new(A)")
    executor = Executor(registry)
    for _ in range(2):   # a class that failed is not kept half-loaded
        with pytest.raises(errors.MuranoPlError) as info:
            run(registry, executor)
        assert info.value.names == ["ValueError"]
        assert info.value.message == (
            "Classes/A.yaml:3:13: error[LAG-E0804]: meta class t.One has Cardinality One but "
            "is attached more than once to class t.A")
        assert isinstance(info.value.original, meta.InvalidClassMeta)


# -- errors when meta is read ---------------------------------------------------------------
def meta_error(text: str, expression: str = "typeinfo(:A).meta",
               package_meta: object = None) -> errors.MuranoPlError:
    with pytest.raises(errors.MuranoPlError) as info:
        run(registry_with(text, package_meta, expression))
    return info.value


def test_applies_error_of_package_meta_when_read() -> None:
    # a package's manifest Meta is checked when read, as in the original engine
    error = meta_error("Name: t.A\n", "typeinfo(:A).package.meta",
                       package_meta=["t.One", "t.One"])
    assert error.names == ["ValueError"]
    assert isinstance(error.original, meta.MetaCardinalityError)
    assert error.original.code == "LAG-E0804"
    assert error.message == ("meta class t.One has Cardinality One but is attached more than "
                             "once to package t.pkg")
    assert [f.method_name for f in error.frames] == ["run"]


def test_inherited_many_from_two_parents_accumulates() -> None:
    registry = registry_with("""\
        Namespaces: {=: t}
        Name: A
        Extends: [B, C]
        --- # parent one
        Name: B
        Meta: {Many: {n: 1}}
        --- # parent two
        Name: C
        Meta: {Many: {n: 2}}
        """, expression="typeinfo(:A).meta.n")
    assert run(registry) == (1, 2)


def test_inherited_one_from_two_parents_conflicts() -> None:
    registry = registry_with("""\
        Namespaces: {=: t}
        Name: A
        Extends: [B, C]
        --- # parent one
        Name: B
        Meta: {Sticky: {n: 1}}
        --- # parent two
        Name: C
        Meta: {Sticky: {n: 2}}
        --- # One, inherited
        Name: Sticky
        Usage: Meta
        Inherited: true
        Properties:
          n:
            Contract: $.int()
        """, expression="typeinfo(:A).meta")
    with pytest.raises(errors.MuranoPlError) as info:
        run(registry)
    assert isinstance(info.value.original, meta.InheritedMetaConflict)
    assert info.value.original.code == "LAG-E0805"
    assert info.value.message == ("class t.A inherits meta t.Sticky (Cardinality One) from both "
                                  "t.B and t.C; attach it to class t.A itself to choose")


def test_malformed_package_meta_fails_when_read() -> None:
    error = meta_error("Name: t.A\n", "typeinfo(:Probe).package.meta",
                       package_meta={"t.One": {"n": 1}, "t.Many": {}})
    assert isinstance(error.original, meta.InvalidMetaFormat)
    assert error.original.code == "LAG-E0801"
    assert error.message.startswith("invalid Meta of package t.pkg: a Meta entry must be")


# -- building and caching ---------------------------------------------------------------------
def test_package_meta_names_are_full_names() -> None:
    registry = registry_with("Name: t.A\n", [{"t.PackageOnly": None}, {"t.Many": {"n": 3}}],
                             "typeinfo(:Probe).package.meta.select(typeinfo($).name)")
    assert run(registry) == (
        "t.PackageOnly", "t.Many")


def test_meta_objects_are_cached_per_executor() -> None:
    text = """\
        Namespaces: {=: t}
        Name: A
        Meta: {Many: {n: 7}}
        """
    registry = registry_with(text, expression="typeinfo(:A).meta")
    executor = Executor(registry)
    first = run(registry, executor)
    again = run(registry, executor)
    other = run(registry)
    assert len(first) == 1 and first[0] is again[0]
    assert other[0] is not first[0]
    assert other[0].values["n"] == first[0].values["n"] == 7


def test_meta_values_are_evaluated_in_the_declaring_class() -> None:
    registry = registry_with("""\
        Namespaces: {=: t}
        Name: A
        Meta:
          - Many:
              n: 6 * 7
          - :Many:
              n: len(list(1, 2, 3))
        """, expression="typeinfo(:A).meta.n")
    assert run(registry) == (42, 3)


def test_meta_survives_garbage_collection_and_is_rebuilt_after_finalize() -> None:
    registry = registry_with("""\
        Namespaces: {=: t}
        Name: A
        Meta: {Many: {n: 7}}
        """, expression="typeinfo(:A).meta")
    executor = Executor(registry)
    # only a weak reference here: a local variable would keep the object alive
    first = weakref.ref(run(registry, executor)[0])  # type: ignore[index]
    executor.collect_garbage()
    assert not first().destroyed
    assert run(registry, executor)[0] is first()  # type: ignore[index]
    executor.finalize(None)
    assert first().destroyed
    again = run(registry, executor)[0]  # type: ignore[index]
    assert again is not first() and not again.destroyed
