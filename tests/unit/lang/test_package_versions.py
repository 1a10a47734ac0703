"""How the engine resolves classes through package versions.

Packages are built in memory; each class returns its package version from a
method, so a test sees which version the engine picked.
"""

from __future__ import annotations

import textwrap
import typing as t

import pytest

from laguna.lang import errors
from laguna.lang.classes import ClassRegistry
from laguna.lang.executor import Executor
from laguna.lang.resolution import (
    ClassNotVisibleError,
    NoPackageForClassFound,
    NoPackageFound,
    VersionConflictError,
)
from laguna.lang.types import MuranoClass
from laguna.packages.package import MemoryTree, Package, package_from_tree
from laguna.packages.source import MemorySource
from laguna.testing.packages import core_registry


def package(name: str, version: str | None, classes: dict[str, str],
            require: dict[str, str | None] | None = None) -> Package:
    """A package whose classes are given as ``full name -> class document``."""
    lines = ["Format: 1.4", "Type: Library", f"FullName: {name}"]
    if version is not None:
        lines.append(f"Version: {version}")
    lines.append("Classes:")
    files = {}
    for class_name, body in classes.items():
        file = class_name.rsplit(".", 1)[1] + ".yaml"
        lines.append(f"  {class_name}: {file}")
        files[f"Classes/{file}"] = textwrap.dedent(body).encode()
    if require:
        lines.append("Require:")
        lines += [f"  {k}: {'' if v is None else repr(v)}" for k, v in require.items()]
    files["manifest.yaml"] = "\n".join(lines).encode() + b"\n"
    return package_from_tree(MemoryTree(files), f"memory:{name}/{version}")


def versioned(name: str, version: str, class_name: str | None = None,
              require: dict[str, str | None] | None = None, extends: str | None = None) -> Package:
    """A package with one class whose ``version()`` returns ``version``."""
    class_name = class_name or f"{name}.Thing"
    body = f"Name: {class_name}\n"
    if extends:
        body += f"Extends: {extends}\n"
    body += f"Methods:\n  version:\n    Body: [Return: '{version}']\n"
    return package(name, version, {class_name: body}, require)


def registry(*packages: Package) -> ClassRegistry:
    return core_registry(MemorySource(packages))


def user(require: dict[str, str | None], body: str = "", name: str = "t.user") -> Package:
    """The package whose code asks for classes."""
    return package(name, "1.0.0", {f"{name}.User": body or f"Name: {name}.User\n"}, require)


def call(reg: ClassRegistry, cls: MuranoClass, method: str, *args: t.Any) -> t.Any:
    executor = Executor(reg)
    return executor.call(executor.new_object(cls, None, {}), method, *args)


def version_seen_by(reg: ClassRegistry, requester: Package, class_name: str) -> str:
    holder = reg.package_version(requester.name, requester.version)
    return str(reg.find(class_name, holder.package).version)


LIBS = [versioned("lib", v) for v in ["0.9.0", "1.0.0", "1.2.0", "1.2.5-rc.1", "1.3.0",
                                      "2.0.0-beta.1", "2.0.0"]]


# -- which version a requirement gets ------------------------------------------------------

@pytest.mark.parametrize(("requirement", "expected"), [
    ("1.2", "1.2.5-rc.1"),        # a partial version: >=1.2.0 <1.3.0, pre-releases included
    ("1.2.0", "1.2.0"),           # a full version is exact
    ("1", "1.3.0"),               # the highest 1.x
    ("", "0.9.0"),                # empty means 0: the highest 0.x (issue 23)
    ("0", "0.9.0"),               # 0 is the partial version 0, as ==0
    ("==0", "0.9.0"),
    (">=1.0,<1.3", "1.2.5-rc.1"),
    ("<2", "1.3.0"),
    (">=2.0.0-0", "2.0.0"),
    ("2.0.0-beta.1", "2.0.0-beta.1"),
])
def test_a_requirement_picks_the_highest_matching_version(requirement: str,
                                                          expected: str) -> None:
    app = user({"lib": requirement or None})
    reg = registry(*LIBS, app)
    assert version_seen_by(reg, app, "lib.Thing") == expected


def test_partial_range_of_the_seed_excludes_the_next_minor() -> None:
    # "a dependency version 1.2 will mean a (1.2.0 >= version < 1.3) range"
    app = user({"lib": "1.2"})
    reg = registry(*[v for v in LIBS if v.version.prerelease == ()], app)
    assert version_seen_by(reg, app, "lib.Thing") == "1.2.0"


def test_empty_requirement_takes_the_latest_zero_pre_release() -> None:
    # issue 23: "we assume the version '0' - i.e. the last available
    # pre-release version": 0.x, never the 1.0.0 next to it
    app = user({"lib": None})
    reg = registry(versioned("lib", "0.4.0"), versioned("lib", "0.5.0-alpha.2"),
                   versioned("lib", "1.0.0"), versioned("lib", "1.1.0-alpha.2"), app)
    assert version_seen_by(reg, app, "lib.Thing") == "0.5.0-alpha.2"


def test_empty_requirement_without_a_zero_version_is_not_met() -> None:
    app = user({"lib": None}, "Name: t.user.User\nMethods:\n  m:\n    Body:\n"
                              "      - Return: new(lib.Thing)\n")
    reg = registry(versioned("lib", "1.0.0"), app)
    with pytest.raises(ClassNotVisibleError) as info:
        reg.find("lib.Thing", reg.package_version("t.user", app.version).package)
    assert str(info.value) == (
        'Class "lib.Thing" is not found in t.user/1.0.0, io.murano/0.2.0; required '
        "packages not found: lib '' (>=0.0.0,<1.0.0-0)")


def test_zero_with_an_operator_takes_the_latest_zero_pre_release() -> None:
    app = user({"lib": "==0"})
    reg = registry(versioned("lib", "0.4.0"), versioned("lib", "0.5.0-alpha.2"),
                   versioned("lib", "1.0.0"), app)
    assert version_seen_by(reg, app, "lib.Thing") == "0.5.0-alpha.2"


def test_no_version_in_the_manifest_means_0_0_0() -> None:
    reg = registry(package("lib", None, {"lib.Thing": "Name: lib.Thing\n"}))
    assert str(reg.find("lib.Thing").version) == "0.0.0"


def test_core_library_is_an_implicit_requirement() -> None:
    app = package("t.user", "1.0.0", {"t.user.User": "Name: t.user.User\nExtends: "
                                                     "io.murano.Object\n"})
    reg = registry(app)
    cls = reg.find("t.user.User", reg.package_version("t.user", app.version).package)
    assert [str(c) for c in cls.mro] == ["<class t.user.User/1.0.0>",
                                         "<class io.murano.Object/0.2.0>"]
    assert list(cls.package.requirements) == ["io.murano"]
    # implicitly 0, the latest 0.x: the core library is 0.2.0 (issue 23)
    assert str(cls.package.requirements["io.murano"]) == ">=0.0.0,<1.0.0-0"


def test_an_explicit_core_library_requirement_must_be_met() -> None:
    app = user({"io.murano": "1"}, "Name: t.user.User\nMethods:\n  m:\n    Body:\n"
                                   "      - Return: new(io.murano.Exception)\n")
    reg = registry(app)
    with pytest.raises(ClassNotVisibleError) as info:
        reg.find("io.murano.Exception", reg.package_version("t.user", app.version).package)
    assert str(info.value) == (
        'Class "io.murano.Exception" is not found in t.user/1.0.0; required packages not '
        "found: io.murano '1' (>=1.0.0,<2.0.0-0)")
    assert info.value.code == "LAG-E0704"


# -- where a name is looked up ---------------------------------------------------------------

def test_a_class_of_an_unrequired_package_is_not_visible() -> None:
    app = user({"lib": "1"})
    other = versioned("other", "1.0.0")
    reg = registry(*LIBS, other, app)
    holder = reg.package_version("t.user", app.version)
    with pytest.raises(errors.NoClassFound) as info:
        reg.find("other.Thing", holder.package)
    assert str(info.value) == ('Class "other.Thing" is not found in t.user/1.0.0, '
                               "io.murano/0.2.0, lib/1.3.0")
    assert info.value.murano_name == "murano.dsl.exceptions.NoClassFound"


def test_extends_accepts_only_required_packages() -> None:
    app = package("t.user", "1.0.0", {"t.user.User": "Name: t.user.User\nExtends: other.Thing\n"})
    reg = registry(versioned("other", "1.0.0"), app)
    with pytest.raises(errors.ClassLoadError) as info:
        reg.find("t.user.User")
    assert info.value.code == "LAG-E0242"
    assert info.value.message == ("class t.user.User: Extends names class other.Thing, which "
                                  "is not found")


def test_a_missing_required_package_is_named() -> None:
    app = user({"gone": "1.2"})
    reg = registry(app)
    with pytest.raises(ClassNotVisibleError) as info:
        reg.find("gone.Thing", reg.package_version("t.user", app.version).package)
    assert str(info.value) == ('Class "gone.Thing" is not found in t.user/1.0.0, '
                               "io.murano/0.2.0; required packages not found: "
                               "gone '1.2' (>=1.2.0,<1.3.0-0)")


def test_load_package_names_what_is_available() -> None:
    reg = registry(*LIBS)
    with pytest.raises(NoPackageFound) as info:
        reg.load_package("lib", "3")
    assert str(info.value) == (
        "Package \"lib\" is not found in a version matching '3' (>=3.0.0,<4.0.0-0); "
        "available: 0.9.0, 1.0.0, 1.2.0, 1.2.5-rc.1, 1.3.0, 2.0.0-beta.1, 2.0.0")
    assert info.value.code == "LAG-E0702"
    assert info.value.murano_name == "murano.dsl.exceptions.NoPackageFound"


def test_global_lookup_of_an_unknown_class() -> None:
    reg = registry(*LIBS)
    with pytest.raises(NoPackageForClassFound) as info:
        reg.find("nowhere.Thing")
    assert str(info.value) == 'Package for class "nowhere.Thing" is not found'
    assert info.value.code == "LAG-E0703"
    assert isinstance(info.value, errors.NoClassFound)


def test_global_lookup_takes_the_highest_version() -> None:
    reg = registry(*LIBS)
    assert str(reg.find("lib.Thing").version) == "2.0.0"


def test_only_touched_packages_are_loaded() -> None:
    app = user({"lib": "1.2.0", "unused": "1"})
    reg = registry(*LIBS, versioned("unused", "1.0.0"), versioned("other", "1.0.0"), app)
    assert [p.package.name for p in reg.packages] == ["io.murano"]
    reg.package_version("t.user", app.version)
    version_seen_by(reg, app, "lib.Thing")
    assert [f"{p.package.name}/{p.version}" for p in reg.packages] == [
        "io.murano/0.2.0", "t.user/1.0.0", "lib/1.2.0"]


def test_class_files_are_parsed_only_when_built() -> None:
    reads: list[str] = []

    class CountingTree(MemoryTree):
        def read(self, path: str) -> bytes:
            reads.append(path)
            return super().read(path)

    files = {"manifest.yaml": b"Format: 1.4\nType: Library\nFullName: lazy\nClasses:\n"
                              b"  lazy.A: A.yaml\n  lazy.B: B.yaml\n",
             "Classes/A.yaml": b"Name: lazy.A\n", "Classes/B.yaml": b"Name: lazy.B\n"}
    reg = registry(package_from_tree(CountingTree(files), "memory"))
    reads.clear()
    reg.find("lazy.A")
    assert reads == ["Classes/A.yaml"]


# -- several versions side by side; reuse -----------------------------------------------------

def test_two_versions_of_a_package_live_side_by_side() -> None:
    old = user({"lib": "1.0.0"}, name="t.old")
    new = user({"lib": "1.2"}, name="t.new")
    reg = registry(*LIBS, old, new)
    assert version_seen_by(reg, old, "lib.Thing") == "1.0.0"
    assert version_seen_by(reg, new, "lib.Thing") == "1.2.5-rc.1"
    things = [reg.find("lib.Thing", reg.package_version(p.name, p.version).package)
              for p in (old, new)]
    assert [call(reg, c, "version") for c in things] == ["1.0.0", "1.2.5-rc.1"]
    assert things[0] != things[1]
    assert reg.fixations()["lib"] == ["1.0.0", "1.2.5-rc.1"]


def test_an_already_loaded_version_is_reused() -> None:
    # the seed's example, with ranges that hold under the normalisation (its
    # literal "< 0.3" and "> 0" exclude 0.3 and every 0.x): one package requires
    # < 0.3 and gets 0.2.9; another requires >= 0.2 and gets 0.2.9 too, though
    # 0.4.0 is in the catalog
    versions = [versioned("lib", v) for v in ["0.2.0", "0.2.9", "0.4.0"]]
    first = user({"lib": "<0.3"}, name="t.first")
    second = user({"lib": ">=0.2"}, name="t.second")
    reg = registry(*versions, first, second)
    assert version_seen_by(reg, first, "lib.Thing") == "0.2.9"
    assert version_seen_by(reg, second, "lib.Thing") == "0.2.9"
    assert reg.fixations()["lib"] == ["0.2.9"]


def test_without_a_loaded_version_the_highest_is_loaded() -> None:
    versions = [versioned("lib", v) for v in ["0.2.0", "0.2.9", "0.4.0"]]
    second = user({"lib": ">=0.2"}, name="t.second")
    reg = registry(*versions, second)
    assert version_seen_by(reg, second, "lib.Thing") == "0.4.0"


def test_a_package_keeps_the_version_it_got() -> None:
    versions = [versioned("lib", v) for v in ["1.0.0", "1.1.0"]]
    app = user({"lib": "1"})
    reg = registry(*versions, app)
    reg.load_package("lib", "1.0.0")
    assert version_seen_by(reg, app, "lib.Thing") == "1.0.0"
    reg.load_package("lib", "1.1.0")   # a higher fitting version is now loaded too
    assert version_seen_by(reg, app, "lib.Thing") == "1.0.0"


def test_fixed_versions_are_preferred_over_newer_ones() -> None:
    versions = [versioned("lib", v) for v in ["1.0.0", "1.1.0"]]
    app = user({"lib": "1"})
    reg = registry(*versions, app)
    reg.fix({"lib": ["1.0.0"]})
    assert version_seen_by(reg, app, "lib.Thing") == "1.0.0"


# -- the diamond of the versioning spec ---------------------------------------------------

def diamond(y_requirement: str, *more: Package) -> ClassRegistry:
    """classA inherits classB (packageX -> Z 1.2.0) and classC (packageY -> Z as given);
    both inherit classD of packageZ."""
    return registry(
        versioned("z", "1.2.0", "z.D"), versioned("z", "1.3.0", "z.D"), *more,
        package("x", "1.0.0", {"x.B": "Name: x.B\nExtends: z.D\n"}, {"z": "1.2.0"}),
        package("y", "1.0.0", {"y.C": "Name: y.C\nExtends: z.D\n"}, {"z": y_requirement}),
        package("a", "1.0.0", {"a.A": "Name: a.A\nExtends: [x.B, y.C]\n"},
                {"x": "1", "y": "1"}))


def test_diamond_with_compatible_ranges_uses_one_version() -> None:
    reg = diamond("1")
    cls = reg.find("a.A")
    assert [str(c) for c in cls.mro] == [
        "<class a.A/1.0.0>", "<class x.B/1.0.0>", "<class y.C/1.0.0>", "<class z.D/1.2.0>",
        "<class io.murano.Object/0.2.0>"]
    assert call(reg, cls, "version") == "1.2.0"


def test_diamond_resolves_when_the_wider_side_loaded_a_newer_version_first() -> None:
    reg = diamond("1")
    alone = reg.find("y.C")       # built on its own first: 1 -> the highest, 1.3.0
    assert [str(c.version) for c in alone.mro] == ["1.0.0", "1.3.0", "0.2.0"]
    cls = reg.find("a.A")
    assert [str(c.version) for c in cls.mro] == ["1.0.0", "1.0.0", "1.0.0", "1.2.0", "0.2.0"]
    assert call(reg, cls, "version") == "1.2.0"
    # inside A, y.C is rebuilt on z.D 1.2.0; it is still the same class y.C/1.0.0
    inner = cls.mro[2]
    assert inner is not alone and inner == alone and hash(inner) == hash(alone)
    assert [str(c.version) for c in inner.mro] == ["1.0.0", "1.2.0", "0.2.0"]
    executor = Executor(reg)
    obj = executor.new_object(cls, None, {})
    assert alone in obj.type.ancestry
    assert obj.cast(alone).type is inner


def test_a_class_rebuilt_on_other_parents_is_built_once_per_class_and_parents() -> None:
    reg = diamond("1")
    alone = reg.find("y.C")
    d13 = alone.parents[0]
    d12 = reg.find("x.B").parents[0]
    assert (str(d12.version), str(d13.version)) == ("1.2.0", "1.3.0")
    on12 = reg.variant(alone, [d12])
    assert [str(c.version) for c in on12.mro] == ["1.0.0", "1.2.0", "0.2.0"]
    assert reg.variant(alone, [d12]) is on12
    on13 = reg.variant(alone, [d13])
    assert on13 is not on12 and on13 is not alone
    assert [str(c.version) for c in on13.mro] == ["1.0.0", "1.3.0", "0.2.0"]
    other = reg.variant(reg.find("x.B"), [d12])
    assert (other.name, [str(c.version) for c in other.mro]) == ("x.B", ["1.0.0", "1.2.0",
                                                                        "0.2.0"])


def test_diamond_finds_a_version_nobody_loaded_yet() -> None:
    # x needs >=1.2,<1.4; y needs >=1.3; each alone takes its highest (1.3.9 / 1.5.0),
    # both accept 1.3.9
    reg = registry(
        *[versioned("z", v, "z.D") for v in ["1.2.0", "1.3.9", "1.5.0"]],
        package("x", "1.0.0", {"x.B": "Name: x.B\nExtends: z.D\n"}, {"z": ">=1.2,<1.4"}),
        package("y", "1.0.0", {"y.C": "Name: y.C\nExtends: z.D\n"}, {"z": ">=1.3"}),
        package("a", "1.0.0", {"a.A": "Name: a.A\nExtends: [y.C, x.B]\n"},
                {"x": "1", "y": "1"}))
    reg.load_package("z", "1.5.0")
    assert str(reg.find("y.C").mro[1].version) == "1.5.0"
    assert call(reg, reg.find("a.A"), "version") == "1.3.9"


def test_diamond_with_incompatible_ranges_fails_naming_packages_and_ranges() -> None:
    reg = diamond("1.3.0")
    with pytest.raises(VersionConflictError) as info:
        reg.find("a.A")
    assert info.value.code == "LAG-E0701"
    assert info.value.murano_name == "murano.dsl.exceptions.AmbiguousClassName"
    assert info.value.message == (
        "class a.A inherits z.D from versions 1.2.0 and 1.3.0 of package z, and no version "
        "of z satisfies every requirement: x 1.0.0 requires '1.2.0' (==1.2.0); y 1.0.0 "
        "requires '1.3.0' (==1.3.0)")
    assert str(info.value.span) == "Classes/A.yaml:2:1"


def test_conflict_inside_muranopl_is_catchable_by_name() -> None:
    body = """\
        Namespaces: {a: a}
        Name: t.user.User
        Methods:
          tryIt:
            Body:
              - Try:
                  - new(a:A)
                Catch:
                  - With: murano.dsl.exceptions.AmbiguousClassName
                    As: e
                    Do:
                      - Return: caught
        """
    app = package("t.user", "1.0.0", {"t.user.User": body}, {"a": "1"})
    reg = diamond("1.3.0", app)
    assert call(reg, reg.find("t.user.User"), "tryIt") == "caught"


def test_different_classes_of_two_versions_are_not_a_conflict() -> None:
    z = [package("z", v, {"z.D": "Name: z.D\n", "z.E": "Name: z.E\n"}) for v in
         ["1.2.0", "1.3.0"]]
    reg = registry(
        *z,
        package("x", "1.0.0", {"x.B": "Name: x.B\nExtends: z.D\n"}, {"z": "1.2.0"}),
        package("y", "1.0.0", {"y.C": "Name: y.C\nExtends: z.E\n"}, {"z": "1.3.0"}),
        package("a", "1.0.0", {"a.A": "Name: a.A\nExtends: [x.B, y.C]\n"},
                {"x": "1", "y": "1"}))
    assert [str(c) for c in reg.find("a.A").mro] == [
        "<class a.A/1.0.0>", "<class x.B/1.0.0>", "<class y.C/1.0.0>", "<class z.D/1.2.0>",
        "<class z.E/1.3.0>", "<class io.murano.Object/0.2.0>"]


# -- class() contracts -------------------------------------------------------------------

HOLDER = """\
    Namespaces: {l: lib, u: t.user}
    Name: t.user.User
    Methods:
      take:
        Arguments:
          - thing:
              Contract: $.class(l:Thing)
        Body:
          - Return: $thing.version()
      takeSpec:
        Arguments:
          - thing:
              Contract: $.class(l:Thing, versionSpec => '>=1.2.0')
        Body:
          - Return: $thing.version()
      takeOwn:
        Arguments:
          - thing:
              Contract: $.class(u:Part)
        Body:
          - Return: $thing.where()
      template:
        Arguments:
          - thing:
              Contract: $.template(l:Thing)
        Body:
          - Return: $thing['?']
      templateSpec:
        Arguments:
          - thing:
              Contract: $.template(l:Thing, versionSpec => '>=1.2.0')
        Body:
          - Return: $thing['?'].version
    """


def contract_registry() -> tuple[ClassRegistry, MuranoClass]:
    part = "Name: t.user.Part\nMethods:\n  where:\n    Body: [Return: '{0}']\n"
    app = package("t.user", "1.4.0", {"t.user.User": HOLDER,
                                      "t.user.Part": part.format("1.4.0")}, {"lib": "1.2"})
    same_major = package("t.user", "1.9.0", {"t.user.Part": part.format("1.9.0")})
    next_major = package("t.user", "2.0.0", {"t.user.Part": part.format("2.0.0")})
    reg = registry(*LIBS, app, same_major, next_major)
    return reg, reg.find("t.user.User", reg.package_version("t.user", app.version).package)


def test_class_contract_accepts_versions_its_package_requires() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    thing = executor.new_object(reg.class_of(reg.package_version(
        "lib", LIBS[2].version), "lib.Thing"), None, {})
    assert executor.call(holder, "take", thing) == "1.2.0"


def test_class_contract_refuses_a_version_outside_the_requirement() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    thing = executor.new_object(reg.class_of(reg.load_package("lib", "1.3.0"), "lib.Thing"),
                                None, {})
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(holder, "take", thing)
    assert str(info.value) == (
        "argument thing of method t.user.User::take: Object of type lib.Thing is not "
        "compatible with requested type lib.Thing: lib 1.3.0 does not satisfy '1.2' "
        "(>=1.2.0,<1.3.0-0) of t.user 1.4.0 (contract: $.class(l:Thing))")


def test_class_contract_version_spec_wins_over_the_requirement() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    newer = executor.new_object(reg.class_of(reg.load_package("lib", "1.3.0"), "lib.Thing"),
                                None, {})
    older = executor.new_object(reg.class_of(reg.load_package("lib", "1.0.0"), "lib.Thing"),
                                None, {})
    assert executor.call(holder, "takeSpec", newer) == "1.3.0"
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(holder, "takeSpec", older)
    assert info.value.message == (
        "Object of type lib.Thing is not compatible with requested type lib.Thing: lib 1.0.0 "
        "does not satisfy '>=1.2.0' (>=1.2.0) of the contract")


def test_class_contract_accepts_the_same_major_of_its_own_package() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    same = executor.new_object(reg.class_of(reg.load_package("t.user", "1.9.0"),
                                            "t.user.Part"), None, {})
    assert executor.call(holder, "takeOwn", same) == "1.9.0"
    other = executor.new_object(reg.class_of(reg.load_package("t.user", "2.0.0"),
                                             "t.user.Part"), None, {})
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(holder, "takeOwn", other)
    assert info.value.message == (
        "Object of type t.user.Part is not compatible with requested type t.user.Part: "
        "t.user 2.0.0 does not satisfy '==1' (>=1.0.0,<2.0.0-0) of t.user 1.4.0")


def test_class_contract_makes_a_model_of_the_version_its_package_requires() -> None:
    """The model's type name resolves as the contract's class sees it: its
    namespaces and its package's requirement (lib 1.2)."""
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    assert executor.call(holder, "take", {"?": {"type": "l:Thing"}}) == "1.2.5-rc.1"


def test_template_contract_refuses_a_version_outside_the_requirement() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    required = executor.new_object(reg.class_of(reg.load_package("lib", "1.2.0"), "lib.Thing"),
                                   None, {})
    newer = executor.new_object(reg.class_of(reg.load_package("lib", "1.3.0"), "lib.Thing"),
                                None, {})
    assert executor.call(holder, "template", required) == {
        "type": "lib.Thing", "id": required.id, "package": "lib", "version": "1.2.0"}
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(holder, "template", newer)
    assert info.value.message == (
        "Object of type lib.Thing is not compatible with requested type lib.Thing")
    # a model's type resolves in the contract's class: l:Thing is lib.Thing
    assert executor.call(holder, "template", {"?": {"type": "l:Thing"}}) == {"type": "l:Thing"}


def test_template_contract_version_spec_wins_over_the_requirement() -> None:
    reg, cls = contract_registry()
    executor = Executor(reg)
    holder = executor.new_object(cls, None, {})
    newer = executor.new_object(reg.class_of(reg.load_package("lib", "1.3.0"), "lib.Thing"),
                                None, {})
    older = executor.new_object(reg.class_of(reg.load_package("lib", "1.0.0"), "lib.Thing"),
                                None, {})
    assert executor.call(holder, "templateSpec", newer) == "1.3.0"
    with pytest.raises(errors.ContractViolationException) as info:
        executor.call(holder, "templateSpec", older)
    assert info.value.message == (
        "Object of type lib.Thing is not compatible with requested type lib.Thing")


def test_class_contract_accepts_subclasses_from_packages_it_does_not_require() -> None:
    other = versioned("other", "1.0.0", "other.Thing")
    body = """\
        Namespaces: {std: io.murano}
        Name: t.user.User
        Methods:
          take:
            Arguments:
              - thing:
                  Contract: $.class(std:Object)
            Body:
              - Return: ok
        """
    reg = registry(other, package("t.user", "1.0.0", {"t.user.User": body}))
    executor = Executor(reg)
    holder = executor.new_object(reg.find("t.user.User"), None, {})
    # io.murano.Object is required (implicitly); other.Thing extends it: accepted
    assert executor.call(holder, "take", executor.new_object(reg.find("other.Thing"), None,
                                                             {})) == "ok"


# -- the object model's pins ---------------------------------------------------------------

def model_registry(*extra: Package) -> ClassRegistry:
    return registry(*[versioned("lib", v) for v in ["1.0.0", "1.1.0"]], *extra)


def test_model_without_pins_gets_the_latest_zero_version() -> None:
    # issue 23: a type without classVersion asks for "0", as the original
    # engine's parse_version_spec(None) did: the 1.x next to it is not taken
    reg = registry(*[versioned("lib", v) for v in ["0.3.0", "0.4.0", "1.1.0"]])
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t"}}})
    assert root is not None and str(root.type.version) == "0.4.0"


def test_model_without_pins_and_no_zero_version_gets_the_most_recent() -> None:
    # no 0.x defines the class: the most recent (seed item 10), where the
    # original engine refused the model
    reg = model_registry()
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t"}}})
    assert root is not None and str(root.type.version) == "1.1.0"


def test_class_version_no_package_offers_names_the_versions_passed_over() -> None:
    reg = model_registry()
    with pytest.raises(NoPackageForClassFound) as info:
        Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t",
                                                    "classVersion": "0"}}})
    assert str(info.value) == (
        "Package for class \"lib.Thing\" is not found in a version matching '0' "
        "(>=0.0.0,<1.0.0-0); defined in lib 1.0.0, 1.1.0")
    assert info.value.code == "LAG-E0703"


def test_model_pinned_to_a_version_stays_on_it() -> None:
    reg = model_registry()
    executor = Executor(reg)
    root = executor.load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t",
                                                  "package": "lib", "version": "1.0.0"}}})
    assert root is not None and executor.call(root, "version") == "1.0.0"


def test_class_version_is_a_requirement() -> None:
    reg = model_registry()
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t",
                                                       "classVersion": "<1.1"}}})
    assert root is not None and str(root.type.version) == "1.0.0"


def test_empty_class_version_means_zero() -> None:
    # issue 23: empty is "0", the latest 0.x, as the original engine read it
    reg = registry(*[versioned("lib", v) for v in ["0.3.0", "1.1.0"]])
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t",
                                                       "classVersion": ""}}})
    assert root is not None and str(root.type.version) == "0.3.0"


def test_type_string_with_version_and_package() -> None:
    reg = model_registry()
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing/1.0.0@lib",
                                                       "id": "t"}}})
    assert root is not None and str(root.type.version) == "1.0.0"


def test_pinned_class_must_be_in_the_pinned_package() -> None:
    reg = model_registry(versioned("other", "1.0.0"))
    with pytest.raises(ClassNotVisibleError) as info:
        Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t",
                                                    "package": "other"}}})
    assert str(info.value) == 'Class "lib.Thing" is not found in other/1.0.0'


def app_with_lib(version: str) -> Package:
    body = """\
        Namespaces: {l: lib}
        Name: t.app.App
        Properties:
          thing:
            Contract: $.class(l:Thing)
            Usage: InOut
        Methods:
          make:
            Body:
              - $.thing: new(l:Thing, $this)
              - Return: $.thing.version()
        """
    return package("t.app", version, {"t.app.App": body}, {"lib": "1"})


def test_saved_model_keeps_its_versions_after_newer_ones_are_imported() -> None:
    # the first deployment, when only the 1.0.0 versions were in the catalog
    # (the application is 0.x: an unpinned model entry asks for "0", issue 23)
    first = registry(versioned("lib", "1.0.0"), app_with_lib("0.1.0"))
    executor = Executor(first)
    root = executor.load_model({"Objects": {"?": {"type": "t.app.App", "id": "app"}}})
    assert root is not None and executor.call(root, "make") == "1.0.0"
    saved = executor.serialize(root)
    assert saved["Objects"]["?"]["package"] == "t.app"
    assert saved["Objects"]["?"]["version"] == "0.1.0"
    assert saved["Objects"]["thing"]["?"]["version"] == "1.0.0"
    assert saved["Packages"]["lib"] == ["1.0.0"]
    assert saved["Packages"]["t.app"] == ["0.1.0"]
    # newer versions of both packages are imported; the saved model is loaded again
    later = registry(versioned("lib", "1.0.0"), versioned("lib", "1.1.0"),
                     app_with_lib("0.1.0"), app_with_lib("0.2.0"))
    executor = Executor(later)
    root = executor.load_model(saved)
    assert root is not None
    assert str(root.type.version) == "0.1.0"
    assert executor.call(root.values["thing"], "version") == "1.0.0"
    assert executor.call(root, "make") == "1.0.0"   # new() inside it too
    # a fresh model of the same type gets the newest versions
    fresh = Executor(registry(versioned("lib", "1.0.0"), versioned("lib", "1.1.0"),
                              app_with_lib("0.1.0"), app_with_lib("0.2.0")))
    root = fresh.load_model({"Objects": {"?": {"type": "t.app.App", "id": "app"}}})
    assert root is not None and str(root.type.version) == "0.2.0"
    assert fresh.call(root, "make") == "1.1.0"


def test_pinned_versions_serve_global_lookups_too() -> None:
    # 0.x versions: an unpinned model entry asks for "0" (issue 23)
    reg = registry(*[versioned("lib", v) for v in ["0.1.0", "0.2.0"]])
    reg.fix({"lib": ["0.1.0"]})
    root = Executor(reg).load_model({"Objects": {"?": {"type": "lib.Thing", "id": "t"}}})
    assert root is not None and str(root.type.version) == "0.1.0"


# -- among several loaded versions, the highest that fits ------------------------------------

SEVERAL = [versioned("lib", v) for v in ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "2.0.0"]]


def several_loaded(*more: Package) -> ClassRegistry:
    """lib 1.1.0, 1.0.0 and 1.2.0 loaded, in that order; 1.3.0 and 2.0.0 only offered."""
    reg = registry(*SEVERAL, *more)
    for version in ["1.1.0", "1.0.0", "1.2.0"]:
        reg.load_package("lib", version)
    return reg


@pytest.mark.parametrize(("requirement", "expected"), [
    ("1", "1.2.0"),          # not 1.3.0: a loaded version fits
    ("<1.2", "1.1.0"),
    ("1.0", "1.0.0"),
    ("<=1.1.0", "1.1.0"),
    (">=1.0.0", "1.2.0"),    # 2.0.0 fits too, but is not loaded
    ("2", "2.0.0"),          # nothing loaded fits: the highest offered
])
def test_a_requirement_takes_the_highest_loaded_version_that_fits(requirement: str,
                                                                  expected: str) -> None:
    reg = several_loaded()
    assert str(reg.load_package("lib", requirement).version) == expected


def test_a_requiring_package_gets_the_highest_loaded_version() -> None:
    app = user({"lib": "1"})
    reg = several_loaded(app)
    assert version_seen_by(reg, app, "lib.Thing") == "1.2.0"
    cls = reg.find("lib.Thing", reg.package_version(app.name, app.version).package)
    assert call(reg, cls, "version") == "1.2.0"


def test_a_global_lookup_takes_the_highest_loaded_version() -> None:
    reg = several_loaded()
    assert str(reg.find("lib.Thing").version) == "1.2.0"
    assert str(reg.load_class_package("lib.Thing", "<1.2").version) == "1.1.0"
    assert str(reg.load_class_package("lib.Thing", "2").version) == "2.0.0"


def test_the_highest_of_several_pinned_versions_is_taken() -> None:
    app = user({"lib": "1"})
    reg = registry(*SEVERAL, app)
    reg.fix({"lib": ["1.0.0", "1.1.0"]})
    assert version_seen_by(reg, app, "lib.Thing") == "1.1.0"
    assert str(registry(*SEVERAL).load_package("lib", "1").version) == "1.3.0"
