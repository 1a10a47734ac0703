"""Package sources: folders, zips, chains, and resolving requirements."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from laguna.packages.archive import build_archive
from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import load_package
from laguna.packages.source import (
    ChainSource,
    DirectorySource,
    MemorySource,
    PackageSource,
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
    (root / "not-a-package").mkdir()
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
    ("", None),
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
