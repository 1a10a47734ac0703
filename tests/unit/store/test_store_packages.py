"""Catalog repository functions and the store as a package source."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import Package, load_archive, load_package
from laguna.packages.source import PackageSource, resolve
from laguna.packages.versions import Version, parse_requirement
from laguna.store import packages as repo
from laguna.store.db import Database
from laguna.store.errors import DuplicatePackageError
from laguna.store.source import StoreSource

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


def library(tmp_path: Path, version: str, name: str = "com.example.Lib",
            tags: str = "[]") -> Package:
    folder = tmp_path / f"{name}-{version}"
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        f"Type: Library\nFullName: {name}\nVersion: {version}\nTags: {tags}\n"
        f"Classes:\n  {name}.C: C.yaml\n")
    (folder / "Classes" / "C.yaml").write_text(f"Name: {name}.C  # {version}\n")
    return load_package(folder)


def test_import_stores_every_field(database: Database) -> None:
    app = load_package(FIXTURES / "app")
    with database.session() as session:
        record = repo.import_package(session, app, is_public=True, owner_id="p1",
                                     categories=["Web", "Demo"])
    with database.session() as session:
        stored = repo.get_package(session, "com.example.App")
        assert stored.id == record.id
        assert (stored.fully_qualified_name, stored.name, stored.version) == (
            "com.example.App", "Example App", "1.2.3")
        assert (stored.version_major, stored.version_minor, stored.version_patch,
                stored.version_prerelease) == (1, 2, 3, "")
        assert (stored.type, stored.format) == ("Application", "MuranoPL/1.4")
        assert stored.description == "An application used by the package tests.\n"
        assert stored.author == "laguna tests"
        assert stored.tags == ["example", "web"]
        assert stored.categories == ["Demo", "Web"]
        assert (stored.enabled, stored.is_public, stored.owner_id) == (True, True, "p1")
        assert stored.logo == b"\x89PNG\r\n\x1a\nfake"
        assert stored.ui_definition == (FIXTURES / "app" / "UI" / "ui.yaml").read_text()
        assert stored.manifest["Require"] == {"com.example.Lib": "1.2"}
        assert stored.created_at is not None and stored.updated_at is not None
        assert load_archive(stored.archive).class_names() == app.class_names()


def test_duplicate_import_is_refused(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        repo.import_package(session, library(tmp_path, "1.0.0"))
    with pytest.raises(DuplicatePackageError) as info:
        with database.session() as session:
            repo.import_package(session, library(tmp_path / "again", "1.0.0"))
    assert (info.value.code, info.value.message) == (
        "LAG-E0570", "package com.example.Lib version 1.0.0 is already in the catalog")
    with database.session() as session:
        assert repo.package_versions(session, "com.example.Lib") == [Version("1.0.0")]


def test_versions_are_in_semver_order(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        for version in ["1.10.0", "1.9.0", "1.10.0-rc.1", "0.1.0", "2.0.0-alpha"]:
            repo.import_package(session, library(tmp_path, version))
    with database.session() as session:
        assert repo.package_versions(session, "com.example.Lib") == [
            Version("0.1.0"), Version("1.9.0"), Version("1.10.0-rc.1"), Version("1.10.0"),
            Version("2.0.0-alpha")]
        assert repo.get_package(session, "com.example.Lib").version == "2.0.0-alpha"
        assert repo.get_package(session, "com.example.Lib", "1.9.0").version == "1.9.0"
        assert repo.get_package(session, "com.example.Lib", Version("1.10.0-rc.1")
                                ).version_prerelease == "rc.1"


def test_get_missing(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        repo.import_package(session, library(tmp_path, "1.0.0"))
        with pytest.raises(PackageNotFoundError) as info:
            repo.get_package(session, "com.example.Lib", "2.0.0")
        assert info.value.message == "package 'com.example.Lib' version 2.0.0 not found"
        with pytest.raises(PackageNotFoundError) as info:
            repo.get_package(session, "com.example.Nope")
        assert info.value.message == "package 'com.example.Nope' not found"


def test_list_filters(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        repo.import_package(session, load_package(FIXTURES / "app"), categories=["Web"])
        repo.import_package(session, library(tmp_path, "1.0.0", tags="[db]"), enabled=False)
        repo.import_package(session, library(tmp_path, "0.5.0", name="org.other.Tool"),
                            is_public=True, owner_id="p2")

    def names(where: repo.PackageFilter) -> list[tuple[str, str]]:
        with database.session() as session:
            return [(r.fully_qualified_name, r.version) for r in repo.list_packages(session, where)]

    everything = [("com.example.App", "1.2.3"), ("com.example.Lib", "1.0.0"),
                  ("org.other.Tool", "0.5.0")]
    assert names(repo.PackageFilter()) == everything
    assert names(repo.PackageFilter(type="Library")) == everything[1:]
    assert names(repo.PackageFilter(tag="db")) == [("com.example.Lib", "1.0.0")]
    assert names(repo.PackageFilter(category="Web")) == [("com.example.App", "1.2.3")]
    assert names(repo.PackageFilter(enabled=False)) == [("com.example.Lib", "1.0.0")]
    assert names(repo.PackageFilter(is_public=True)) == [("org.other.Tool", "0.5.0")]
    assert names(repo.PackageFilter(owner_id="p2")) == [("org.other.Tool", "0.5.0")]
    assert names(repo.PackageFilter(search="USED BY")) == [("com.example.App", "1.2.3")]
    assert names(repo.PackageFilter(fully_qualified_name="com.example.Lib")) == [
        ("com.example.Lib", "1.0.0")]
    with database.session() as session:
        assert repo.package_names(session) == [n for n, _ in everything]
        assert repo.package_names(session, enabled=True) == ["com.example.App", "org.other.Tool"]


def test_delete_one_version_and_all(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        for version in ["1.0.0", "1.1.0", "2.0.0"]:
            repo.import_package(session, library(tmp_path, version, tags="[a, b]"))
    with database.session() as session:
        assert repo.delete_package(session, "com.example.Lib", "1.1.0") == ["1.1.0"]
    with database.session() as session:
        assert repo.package_versions(session, "com.example.Lib") == [
            Version("1.0.0"), Version("2.0.0")]
        assert repo.delete_package(session, "com.example.Lib") == ["1.0.0", "2.0.0"]
    with database.session() as session:
        assert repo.package_names(session) == []
        with pytest.raises(PackageNotFoundError):
            repo.delete_package(session, "com.example.Lib")


def test_set_flags(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        repo.import_package(session, library(tmp_path, "1.0.0"))
    with database.session() as session:
        record = repo.set_flags(session, "com.example.Lib", "1.0.0", enabled=False,
                                is_public=True)
        assert (record.enabled, record.is_public) == (False, True)


def test_store_source_resolves_and_loads(database: Database, tmp_path: Path) -> None:
    with database.session() as session:
        for version in ["1.2.0", "1.2.9", "1.3.0"]:
            repo.import_package(session, library(tmp_path, version))
        repo.import_package(session, library(tmp_path, "1.2.10"), enabled=False)
    source = StoreSource(database)
    assert isinstance(source, PackageSource)
    assert source.names() == ["com.example.Lib"]
    assert source.versions("com.example.Lib") == [
        Version("1.2.0"), Version("1.2.9"), Version("1.3.0")]
    package = resolve(source, "com.example.Lib", parse_requirement("1.2"))
    assert package.version == Version("1.2.9")
    assert package.class_source("com.example.Lib.C") == (
        "Name: com.example.Lib.C  # 1.2.9\n", "Classes/C.yaml")
    assert source.get("com.example.Lib", Version("1.2.9")) is package
    with pytest.raises(PackageNotFoundError):
        source.get("com.example.Lib", Version("1.2.10"))
    everything = StoreSource(database, include_disabled=True)
    assert everything.get("com.example.Lib", Version("1.2.10")).version == Version("1.2.10")
