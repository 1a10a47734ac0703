"""The catalog as one project sees it: public packages and its own private ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.packages.errors import PackageNotFoundError
from laguna.packages.versions import Version
from laguna.store import packages as repo
from laguna.store.db import Database
from laguna.store.source import ProjectSource, StoreSource
from tests.unit.store.test_store_packages import library


@pytest.fixture()
def catalog(database: Database, tmp_path: Path) -> Database:
    with database.session() as session:
        repo.import_package(session, library(tmp_path, "1.0.0"), owner_id="p1")
        repo.import_package(session, library(tmp_path, "1.1.0"), owner_id="p2")
        repo.import_package(session, library(tmp_path, "1.2.0"), owner_id="p2",
                            is_public=True)
        repo.import_package(session, library(tmp_path, "2.0.0", "com.example.Other"),
                            owner_id="p2")
    return database


def test_a_project_sees_its_own_and_public_packages(catalog: Database) -> None:
    source = ProjectSource(catalog, "p1")
    assert source.names() == ["com.example.Lib"]
    assert source.versions("com.example.Lib") == [Version("1.0.0"), Version("1.2.0")]
    assert source.packages_with_class("com.example.Lib.C") == [
        ("com.example.Lib", Version("1.0.0")), ("com.example.Lib", Version("1.2.0"))]
    assert source.get("com.example.Lib", Version("1.2.0")).version == Version("1.2.0")


def test_another_projects_private_package_is_not_found(catalog: Database) -> None:
    source = ProjectSource(catalog, "p1")
    with pytest.raises(PackageNotFoundError):
        source.get("com.example.Lib", Version("1.1.0"))
    assert source.versions("com.example.Other") == []
    assert source.packages_with_class("com.example.Other.C") == []
    owner = ProjectSource(catalog, "p2")
    assert owner.names() == ["com.example.Lib", "com.example.Other"]
    assert owner.versions("com.example.Lib") == [Version("1.1.0"), Version("1.2.0")]


def test_descriptor_packages_by_their_own_names_and_visibility(database: Database) -> None:
    def add(name: str, version: str, owner: str, public: bool = False,
            enabled: bool = True) -> str:
        with database.session() as session:
            record = repo.import_descriptor_package(
                session, kind="resource", name=name, version=version, description="",
                archive=f"{name} {version}".encode(), enabled=enabled, owner_id=owner,
                is_public=public,
                manifest={"Format": "Descriptor/1.0", "Descriptor": f"{name}::{version}"})
            return record.id.hex

    mine = add("resource::t.a", "1.10", "p1")
    public = add("resource::t.a", "1.9", "p2", public=True)
    add("resource::t.b", "1.0", "p2")
    add("resource::t.c", "1.0", "p1", enabled=False)
    assert ProjectSource(database, "p1").descriptors() == [
        ("resource::t.a::1.10", mine), ("resource::t.a::1.9", public)]
    assert ProjectSource(database, "p1").descriptor_archive(mine) == b"resource::t.a 1.10"
    assert [name for name, _ in StoreSource(database).descriptors()] == [
        "resource::t.a::1.10", "resource::t.a::1.9", "resource::t.b::1.0"]
    with pytest.raises(PackageNotFoundError):
        StoreSource(database).descriptor_archive("0" * 32)
