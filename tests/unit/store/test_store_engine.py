"""The engine takes packages from the catalog: class index, resolution, loading.

Runs on SQLite, and on PostgreSQL when ``LAGUNA_TEST_PG_URL`` is set.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import sqlalchemy as sa

from laguna.config import sqlite_url
from laguna.lang.executor import Executor
from laguna.packages.package import Package, load_package
from laguna.packages.versions import Version
from laguna.store import packages as repo
from laguna.store.db import Database, make_engine, upgrade
from laguna.store.source import StoreSource
from laguna.testing.packages import core_registry
from laguna.testing.runner import TestRunner as PackageRunner


def write(folder: Path, manifest: str, classes: dict[str, str]) -> Path:
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(textwrap.dedent(manifest))
    for file, body in classes.items():
        (folder / "Classes" / file).write_text(textwrap.dedent(body))
    return folder


def thing(root: Path, version: str) -> Package:
    return load_package(write(root / f"thing-{version}", f"""\
        Format: 1.4
        Type: Library
        FullName: cat.lib
        Version: {version}
        Classes:
          cat.lib.Thing: Thing.yaml
        """, {"Thing.yaml": f"""\
        Name: cat.lib.Thing
        Methods:
          version:
            Body: [Return: '{version}']
        """, "Extra.yaml": "Name: cat.lib.Extra\n"}))


def user(root: Path, name: str, requirement: str) -> Package:
    return load_package(write(root / name, f"""\
        Format: 1.4
        Type: Library
        FullName: cat.{name}
        Version: 1.0.0
        Classes:
          cat.{name}.User: User.yaml
        Require:
          cat.lib: {requirement}
        """, {"User.yaml": f"""\
        Namespaces: {{l: cat.lib}}
        Name: cat.{name}.User
        Methods:
          make:
            Body: [Return: new(l:Thing).version()]
        """}))


def imported(database: Database, *packages: Package) -> StoreSource:
    with database.session() as session:
        for package in packages:
            repo.import_package(session, package)
    return StoreSource(database)


def test_import_indexes_every_class(database: Database, tmp_path: Path) -> None:
    source = imported(database, thing(tmp_path, "1.0.0"), thing(tmp_path, "1.1.0"))
    with database.session() as session:
        record = repo.get_package(session, "cat.lib", "1.0.0")
        # Extra.yaml is not named in the manifest but is found in Classes/
        assert record.class_names == ["cat.lib.Extra", "cat.lib.Thing"]
    assert source.packages_with_class("cat.lib.Thing") == [
        ("cat.lib", Version("1.0.0")), ("cat.lib", Version("1.1.0"))]
    assert source.packages_with_class("cat.lib.Nope") == []


def test_disabled_packages_are_not_offered(database: Database, tmp_path: Path) -> None:
    source = imported(database, thing(tmp_path, "1.0.0"), thing(tmp_path, "1.1.0"))
    with database.session() as session:
        repo.set_flags(session, "cat.lib", "1.1.0", enabled=False)
    assert source.packages_with_class("cat.lib.Thing") == [("cat.lib", Version("1.0.0"))]
    assert StoreSource(database, include_disabled=True).packages_with_class(
        "cat.lib.Thing")[-1] == ("cat.lib", Version("1.1.0"))
    assert str(core_registry(source).find("cat.lib.Thing").version) == "1.0.0"


def test_deleting_a_package_drops_its_classes(database: Database, tmp_path: Path) -> None:
    source = imported(database, thing(tmp_path, "1.0.0"))
    with database.session() as session:
        repo.delete_package(session, "cat.lib", "1.0.0")
    assert source.packages_with_class("cat.lib.Thing") == []


def test_engine_loads_two_versions_from_the_catalog(database: Database,
                                                    tmp_path: Path) -> None:
    source = imported(database, thing(tmp_path, "1.0.0"), thing(tmp_path, "1.1.0"),
                      thing(tmp_path, "2.0.0"), user(tmp_path, "old", "1.0"),
                      user(tmp_path, "new", "1"))
    registry = core_registry(source)
    executor = Executor(registry)
    old = executor.new_object(registry.find("cat.old.User"), None, {})
    new = executor.new_object(registry.find("cat.new.User"), None, {})
    assert executor.call(old, "make") == "1.0.0"
    # 1 would be 1.1.0, but 1.0.0 is loaded already and satisfies it
    assert executor.call(new, "make") == "1.0.0"
    assert [f"{p.package.name}/{p.version}" for p in registry.packages] == [
        "io.murano/0.2.0", "cat.old/1.0.0", "cat.new/1.0.0", "cat.lib/1.0.0"]
    assert str(registry.find("cat.lib.Thing").version) == "1.0.0"
    assert str(registry.load_package("cat.lib", "2").version) == "2.0.0"


def test_laguna_test_runner_takes_required_packages_from_the_catalog(
        database: Database, tmp_path: Path) -> None:
    source = imported(database, thing(tmp_path, "1.0.0"), thing(tmp_path, "1.1.0"))
    tested = write(tmp_path / "tested", """\
        Format: 1.4
        Type: Library
        FullName: cat.tested
        Classes:
          cat.tested.Cases: Cases.yaml
        Require:
          cat.lib: 1.1
        """, {"Cases.yaml": """\
        Namespaces: {std: io.murano, l: cat.lib}
        Name: cat.tested.Cases
        Extends: std:test.TestFixture
        Methods:
          testVersion:
            Body:
              - $.assertEqual('1.1.0', new(l:Thing).version())
        """})
    runner = PackageRunner(tested, sources=[source])
    [(cls, method)] = runner.select(())
    result = runner.run_one(cls, method)
    assert result.passed, result.message


def test_migration_indexes_packages_imported_before_it(tmp_path: Path) -> None:
    # several packages, one whose archive no longer reads between them: each
    # readable one gets its classes, the unreadable one none, and none is lost
    url = sqlite_url(tmp_path / "old.sqlite")
    upgrade(url, "0001")
    packages = [
        ("00000000000000000000000000000001", "cat.lib", "1.0.0",
         thing(tmp_path, "1.0.0").to_archive()),
        ("00000000000000000000000000000002", "cat.broken", "1.0.0", b"not a zip"),
        ("00000000000000000000000000000003", "cat.other", "1.0.0",
         user(tmp_path, "other", "1.0").to_archive()),
        ("00000000000000000000000000000004", "cat.lib", "2.0.0",
         thing(tmp_path, "2.0.0").to_archive()),
    ]
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            for package_id, name, version, archive in packages:
                major = int(version.split(".")[0])
                connection.execute(sa.text(
                    "INSERT INTO packages (id, fully_qualified_name, name, version, "
                    "version_major, version_minor, version_patch, version_prerelease, type, "
                    "format, enabled, is_public, archive, manifest, created_at, updated_at) "
                    "VALUES (:id, :name, :name, :version, :major, 0, 0, '', 'Library', "
                    "'MuranoPL/1.4', 1, 0, :archive, '{}', '2026-01-01', '2026-01-01')"),
                    {"id": package_id, "name": name, "version": version, "major": major,
                     "archive": archive})
        upgrade(url)
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                "SELECT package_id, class_name FROM package_classes "
                "ORDER BY package_id, class_name")).all()
        assert [(str(r[0])[-1], r[1]) for r in rows] == [
            ("1", "cat.lib.Extra"), ("1", "cat.lib.Thing"),
            ("3", "cat.other.User"),
            ("4", "cat.lib.Extra"), ("4", "cat.lib.Thing")]
    finally:
        engine.dispose()
