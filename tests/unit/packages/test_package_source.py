"""Package sources: folders, zips, chains, and resolving requirements."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from laguna.packages.archive import build_archive
from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import Package, load_package
from laguna.packages.source import (
    ChainSource,
    ClassIndexedSource,
    DirectorySource,
    MemorySource,
    PackageSource,
    packages_with_class,
    resolve,
)
from laguna.packages.versions import Version, parse_requirement

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


def write_package(root: Path, name: str, version: str) -> Path:
    folder = root / f"{name}-{version}"
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        f"Type: Library\nFullName: {name}\nVersion: {version}\n"
        f"Classes:\n  {name}.C: C.yaml\n")
    (folder / "Classes" / "C.yaml").write_text(f"Name: {name}.C\n")
    return folder


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    root.mkdir()
    for version in ["1.0.0", "1.2.0", "1.2.7-rc.1"]:
        write_package(root, "com.example.Lib", version)
    zipped = write_package(tmp_path, "com.example.Lib", "2.0.0")
    build_archive(zipped, root / "lib-2.zip")
    (root / "not-a-package" / "Classes").mkdir(parents=True)   # a package's folder, no manifest
    (root / "tosca").mkdir()                                    # not a package: passed over
    (root / "notes.txt").write_text("ignored")
    return root


def test_directory_source_indexes_folders_and_zips(library: Path) -> None:
    source = DirectorySource([library])
    assert isinstance(source, PackageSource)
    assert source.names() == ["com.example.Lib"]
    assert source.versions("com.example.Lib") == [
        Version("1.0.0"), Version("1.2.0"), Version("1.2.7-rc.1"), Version("2.0.0")]
    assert source.versions("nope") == []
    assert [s.path for s in source.skipped] == [str(library / "not-a-package")]
    assert source.skipped[0].error.code == "LAG-E0530"


def test_directory_source_accepts_a_package_folder_and_a_zip(tmp_path: Path) -> None:
    build_archive(FIXTURES / "lib", tmp_path / "lib.zip")
    source = DirectorySource([FIXTURES / "app", tmp_path / "lib.zip"])
    assert source.names() == ["com.example.App", "com.example.Lib"]
    assert source.get("com.example.Lib", Version("1.2.5")).class_names() == [
        "com.example.lib.Base"]


def test_first_of_duplicates_wins(tmp_path: Path) -> None:
    first = tmp_path / "a"
    second = tmp_path / "b"
    shutil.copytree(FIXTURES / "lib", first / "lib")
    shutil.copytree(FIXTURES / "lib", second / "lib")
    source = DirectorySource([first, second])
    assert source.get("com.example.Lib", Version("1.2.5")).origin == str(first / "lib")
    assert source.duplicates == [str(second / "lib")]


def test_get_missing_version(library: Path) -> None:
    with pytest.raises(PackageNotFoundError) as info:
        DirectorySource([library]).get("com.example.Lib", Version("9.0.0"))
    assert (info.value.code, info.value.message) == (
        "LAG-E0560", "package 'com.example.Lib' version 9.0.0 not found")


@pytest.mark.parametrize(("requirement", "expected"), [
    ("1.2", "1.2.7-rc.1"),
    ("1", "1.2.7-rc.1"),
    ("==1.0.0", "1.0.0"),
    ("<1.2", "1.0.0"),
    ("", None),        # empty is 0: the library has no 0.x (issue 23)
    ("==0", None),
    (">=1.0", "2.0.0"),
])
def test_resolve(library: Path, requirement: str, expected: str | None) -> None:
    source = DirectorySource([library])
    spec = parse_requirement(requirement)
    if expected is None:
        with pytest.raises(PackageNotFoundError) as info:
            resolve(source, "com.example.Lib", spec)
        assert info.value.message == (
            "package 'com.example.Lib' version >=0.0.0,<1.0.0-0 not found")
    else:
        assert str(resolve(source, "com.example.Lib", spec).version) == expected


def test_chain_source_merges_and_prefers_first(library: Path) -> None:
    app = load_package(FIXTURES / "app")
    override = load_package(write_package(library.parent / "o", "com.example.Lib", "1.2.0"))
    chain = ChainSource([MemorySource([app, override]), DirectorySource([library])])
    assert chain.names() == ["com.example.App", "com.example.Lib"]
    assert chain.versions("com.example.Lib") == [
        Version("1.0.0"), Version("1.2.0"), Version("1.2.7-rc.1"), Version("2.0.0")]
    assert chain.get("com.example.Lib", Version("1.2.0")) is override
    assert chain.get("com.example.Lib", Version("2.0.0")).version == Version("2.0.0")
    with pytest.raises(PackageNotFoundError):
        chain.get("com.example.App", Version("0.0.1"))


def test_sources_find_packages_by_class_name(library: Path) -> None:
    directory = DirectorySource([library])
    expected = [("com.example.Lib", Version(v)) for v in ["1.0.0", "1.2.0", "1.2.7-rc.1",
                                                          "2.0.0"]]
    assert directory.packages_with_class("com.example.Lib.C") == expected
    assert directory.packages_with_class("com.example.Nope") == []
    app = load_package(FIXTURES / "app")
    chain = ChainSource([MemorySource([app]), directory])
    # declared in the manifest, and found in class files the manifest does not name
    assert chain.packages_with_class("com.example.App") == [
        ("com.example.App", Version("1.2.3"))]
    assert chain.packages_with_class("com.example.helpers.First") == [
        ("com.example.App", Version("1.2.3"))]
    assert packages_with_class(chain, "com.example.Lib.C") == expected


def test_class_index_without_the_method_reads_every_package(library: Path) -> None:
    class Plain:
        """A source with only the protocol's three methods."""

        def __init__(self, inner: PackageSource) -> None:
            self.inner = inner

        def names(self) -> list[str]:
            return self.inner.names()

        def versions(self, name: str) -> list[Version]:
            return self.inner.versions(name)

        def get(self, name: str, version: Version) -> Package:
            return self.inner.get(name, version)

    plain = Plain(DirectorySource([library]))
    assert not isinstance(plain, ClassIndexedSource)
    assert packages_with_class(plain, "com.example.Lib.C")[-1] == (
        "com.example.Lib", Version("2.0.0"))


def test_class_index_follows_added_packages() -> None:
    source = MemorySource()
    assert source.packages_with_class("com.example.Lib.C") == []
    source.add(load_package(FIXTURES / "lib"))
    assert source.packages_with_class("com.example.lib.Base") == [
        ("com.example.Lib", Version("1.2.5"))]
