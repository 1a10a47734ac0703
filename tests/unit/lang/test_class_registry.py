"""The class registry's own bookkeeping (lang/classes.py): class files and
their documents, errors of a package whose files do not match its manifest,
the packages and versions it holds, and classes built once."""

from __future__ import annotations

import textwrap

import pytest

from laguna.lang import errors
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.resolution import NoPackageForClassFound, NoPackageFound
from laguna.lang.types import RuntimePackage
from laguna.packages.package import MemoryTree, package_from_tree
from laguna.packages.source import MemorySource
from laguna.packages.versions import parse_version
from laguna.testing.packages import core_registry


def memory_package(name: str, version: str, classes: dict[str, str],
                   files: dict[str, bytes]):
    lines = ["Format: 1.4", "Type: Library", f"FullName: {name}", f"Version: {version}",
             "Classes:"] + [f"  {c}: {f}" for c, f in classes.items()]
    tree = {"manifest.yaml": ("\n".join(lines) + "\n").encode()}
    tree.update({f"Classes/{k}": v for k, v in files.items()})
    return package_from_tree(MemoryTree(tree), f"memory:{name}")


def in_memory(files: dict[str, str], declared: dict[str, str] | None = None,
              name: str = "t.pkg") -> PackageClasses:
    readers = [(path, (lambda text=text: textwrap.dedent(text))) for path, text in files.items()]
    return PackageClasses(RuntimePackage(name), readers, declared)


def test_documents_of_a_package_by_class_name():
    classes = in_memory({"A.yaml": "Name: t.A\n", "B.yaml": "Namespaces: {=: t}\nName: B\n"})
    assert sorted(classes.documents()) == ["t.A", "t.B"]
    assert classes.class_names() == ["t.A", "t.B"]
    assert classes.has_class("t.B") and not classes.has_class("t.C")
    assert classes.document("t.A")["Name"] == "t.A"


def test_a_file_is_read_and_parsed_once():
    reads = []

    def read():
        reads.append(1)
        return "Name: t.A\n"
    classes = PackageClasses(RuntimePackage("t.pkg"), [("A.yaml", read)])
    assert classes.documents() is classes.documents()
    assert classes._parse("A.yaml", read) is classes._parse("A.yaml", read)
    assert len(reads) == 1


def test_an_unnamed_document_is_the_one_class_its_file_declares():
    classes = in_memory({"A.yaml": "Methods: {}\n"}, {"t.A": "A.yaml"})
    assert classes.class_names() == ["t.A"]


def test_an_unnamed_document_of_a_file_declaring_two_classes_is_no_class():
    classes = in_memory({"A.yaml": "Methods: {}\n"}, {"t.A": "A.yaml", "t.B": "A.yaml"})
    with pytest.raises(errors.ClassLoadError) as info:
        classes.documents()
    assert info.value.code == "LAG-E0241"
    assert info.value.message == ("class t.A is declared in the manifest but A.yaml does not "
                                  "define it")


def test_the_first_document_of_a_name_wins():
    classes = in_memory({"A.yaml": "Name: t.A\nProperties: {one: {}}\n---\n"
                                   "Name: t.A\nProperties: {two: {}}\n"})
    assert list(classes.document("t.A")["Properties"]) == ["one"]


def test_a_declared_class_whose_file_is_missing():
    classes = in_memory({"A.yaml": "Name: t.A\n"}, {"t.A": "A.yaml", "t.B": "B.yaml"})
    with pytest.raises(errors.ClassLoadError) as info:
        classes.documents()
    assert info.value.code == "LAG-E0240"
    assert info.value.message == ("class t.B is declared in the manifest but file B.yaml does "
                                  "not exist")


def test_package_classes_show_name_and_version():
    classes = in_memory({})
    assert repr(classes) == "<classes of t.pkg/0.0.0>"
    assert classes.version == parse_version("0.0.0")


def test_source_package_reads_only_the_file_of_the_class_built():
    package = memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml", "t.B": "B.yaml"},
                             {"A.yaml": b"Name: t.A\n", "B.yaml": b"Name: [broken\n"})
    classes = PackageClasses.from_package(package)
    assert classes.document("t.A")["Name"] == "t.A"
    assert classes.has_class("t.B") and not classes.has_class("t.C")
    assert classes.class_names() == ["t.A", "t.B"]
    with pytest.raises(KeyError):
        classes.document("t.C")


def test_source_package_class_file_that_is_not_utf8():
    package = memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml"}, {"A.yaml": b"Name: \xff\n"})
    with pytest.raises(errors.ClassLoadError) as info:
        PackageClasses.from_package(package).document("t.A")
    # the code the package check gives such a file; the place of the byte, not its offset
    assert info.value.code == "LAG-E0538"
    assert info.value.message == "the file is not UTF-8 text: byte 0xff cannot be decoded"
    assert str(info.value.span) == "Classes/A.yaml:1:7"


def test_source_package_class_file_missing_or_not_defining_the_class():
    package = memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml", "t.B": "B.yaml"},
                             {"A.yaml": b"Name: t.Other\n"})
    classes = PackageClasses.from_package(package)
    with pytest.raises(errors.ClassLoadError) as info:
        classes.document("t.A")
    assert (info.value.code, info.value.message) == (
        "LAG-E0241", "class t.A is declared in the manifest but Classes/A.yaml does not define it")
    with pytest.raises(errors.ClassLoadError) as info:
        classes.document("t.B")
    assert (info.value.code, info.value.message) == (
        "LAG-E0240", "class t.B is declared in the manifest but file Classes/B.yaml does not "
        "exist")


def test_source_package_unnamed_class_document():
    package = memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml"}, {"A.yaml": b"Methods: {}\n"})
    document = PackageClasses.from_package(package).document("t.A")
    assert document["Methods"] == {} and "Name" not in document


def test_adding_a_package_twice_keeps_one_and_the_first_version_wins():
    registry = ClassRegistry()
    first, second = in_memory({}), in_memory({})
    assert registry.add(first) is first
    assert registry.add(first) is first
    registry.add(second)
    assert registry.packages == [first, second]
    assert registry.package_version("t.pkg", parse_version("0.0.0")) is first
    assert registry.package_of(second.package) is second
    assert registry.package_of(RuntimePackage("t.pkg")) is None
    assert registry.loaded_versions("t.pkg") == [parse_version("0.0.0")]
    assert registry.loaded_versions("t.other") == []


def test_a_source_added_later_is_consulted():
    registry = ClassRegistry(MemorySource([memory_package("t.a", "1.0.0", {}, {})]))
    assert registry.available_versions("t.b") == []
    registry.add_source(MemorySource([memory_package("t.b", "2.0.0", {}, {}),
                                      memory_package("t.b", "1.0.0", {}, {})]))
    assert registry.available_versions("t.b") == [parse_version("1.0.0"),
                                                  parse_version("2.0.0")]
    assert registry.load_package("t.b").version == parse_version("2.0.0")
    assert registry.load_package("t.b", "<2").version == parse_version("1.0.0")


def test_all_class_names_of_the_loaded_packages_once_each():
    registry = ClassRegistry()
    registry.add(in_memory({"A.yaml": "Name: t.A\n", "B.yaml": "Name: t.B\n"}))
    registry.add(in_memory({"A.yaml": "Name: t.A\n", "C.yaml": "Name: t.C\n"}, name="t.two"))
    assert registry.all_class_names() == ["t.A", "t.B", "t.C"]


def test_a_class_is_built_once_per_package_version():
    registry = core_registry()
    classes = registry.add(in_memory({"A.yaml": "Name: t.A\n"}))
    cls = registry.find("t.A", classes.package)
    assert registry.class_of(classes, "t.A") is cls
    assert registry.find("t.A") is cls
    assert classes.package.classes["t.A"] is cls


def test_a_class_extending_itself_is_an_error():
    registry = core_registry()
    registry.add(in_memory({"A.yaml": "Name: t.A\nExtends: t.B\n",
                            "B.yaml": "Name: t.B\nExtends: t.A\n"}))
    with pytest.raises(errors.ClassLoadError) as info:
        registry.find("t.A")
    assert info.value.code == "LAG-E0204"
    assert info.value.message == "class t.A inherits from itself: t.A -> t.B -> t.A"
    # at the Extends that closes the cycle, not at the top of the file
    assert str(info.value.span) == "A.yaml:2:1"


def test_native_binders_run_for_each_build_of_their_class():
    registry = core_registry()
    registry.add(in_memory({"A.yaml": "Name: t.A\n"}))
    bound = []
    registry.bind_native("t.A", lambda cls: bound.append(("first", cls.name)))
    registry.bind_native("t.A", lambda cls: bound.append(("second", cls.name)))
    registry.find("t.A")
    assert bound == [("first", "t.A"), ("second", "t.A")]


def two_versions() -> ClassRegistry:
    return core_registry(MemorySource([
        memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml"}, {"A.yaml": b"Name: t.A\n"}),
        memory_package("t.pkg", "2.0.0", {"t.A": "A.yaml"}, {"A.yaml": b"Name: t.A\n"})]))


@pytest.mark.parametrize(("type_name", "header", "version"), [
    (" t.A/1.0.0@t.pkg ", {}, "1.0.0"),
    ("t.A/1.0.0", {}, "1.0.0"),
    ("t.A", {"package": "t.pkg", "version": "1.0.0"}, "1.0.0"),
    ("t.A/2.0.0@t.pkg", {"version": "1.0.0"}, "1.0.0"),
    ("t.A", {"classVersion": "<2"}, "1.0.0"),
    ("t.A", {"classVersion": None}, "2.0.0"),
    ("t.A", {}, "2.0.0"),
    ("t.A", {"package": "t.pkg"}, "2.0.0"),
])
def test_model_type_string_and_header_pick_the_version(type_name, header, version):
    assert str(two_versions().find_for_model(type_name, header).package.version) == version


def test_model_type_pinned_to_a_package_without_the_class():
    registry = core_registry(MemorySource([
        memory_package("t.pkg", "1.0.0", {"t.A": "A.yaml"}, {"A.yaml": b"Name: t.A\n"})]))
    with pytest.raises(errors.NoClassFound):
        registry.find_for_model("t.B", {"package": "t.pkg"})


def test_fixations_list_every_loaded_version_by_package_name():
    registry = ClassRegistry()
    registry.add(in_memory({}, name="t.b"))
    registry.add(in_memory({}, name="t.a"))
    assert registry.fixations() == {"t.a": ["0.0.0"], "t.b": ["0.0.0"]}
    registry.fix(None)
    registry.fix({"t.a": ["1.0", "2.0.0"]})
    assert registry._fixed == {"t.a": {parse_version("1.0.0"), parse_version("2.0.0")}}


def test_available_versions_are_the_loaded_and_the_offered_ones():
    registry = ClassRegistry(MemorySource([memory_package("t.pkg", "1.0.0", {}, {})]))
    registry.add(in_memory({}))   # t.pkg 0.0.0, which no source offers
    assert registry.available_versions("t.pkg") == [parse_version("0.0.0"),
                                                    parse_version("1.0.0")]
    assert registry.available_versions("t.other") == []


def test_a_missing_package_version_names_the_available_ones():
    with pytest.raises(NoPackageFound) as info:
        two_versions().package_version("t.pkg", parse_version("3.0.0"))
    assert str(info.value) == ("Package \"t.pkg\" is not found in a version matching "
                               "'==3.0.0' (==3.0.0); available: 1.0.0, 2.0.0")


@pytest.mark.parametrize(("type_name", "header", "message"), [
    ("t.A", {"classVersion": ">=3"},
     "Package for class \"t.A\" is not found in a version matching '>=3' (>=3.0.0); "
     "defined in t.pkg 1.0.0, 2.0.0"),   # the versions passed over (issue 23)
    ("t.Z", {}, "Package for class \"t.Z\" is not found"),
])
def test_model_type_no_package_offers(type_name, header, message):
    with pytest.raises(NoPackageForClassFound) as info:
        two_versions().find_for_model(type_name, header)
    assert str(info.value) == message


def test_of_two_loaded_packages_of_one_version_a_lookup_finds_the_first():
    registry = core_registry()
    first = registry.add(in_memory({"A.yaml": "Name: t.A\n"}))
    registry.add(in_memory({"A.yaml": "Name: t.A\n"}))
    assert registry.find("t.A").package is first.package


def test_of_two_packages_offering_a_class_in_one_version_the_first_by_name_wins():
    shared = {"t.Shared": "Shared.yaml"}, {"Shared.yaml": b"Name: t.Shared\n"}
    registry = core_registry(MemorySource([memory_package("t.two", "1.0.0", *shared),
                                           memory_package("t.one", "1.0.0", *shared),
                                           memory_package("t.old", "0.9.0", *shared)]))
    assert registry.find("t.Shared").package.name == "t.one"
