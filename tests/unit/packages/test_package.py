"""Packages read from folders and archives: classes, resources, UI, logo."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from laguna.packages.archive import build_archive
from laguna.packages.errors import PackageFormatError, PackageLoadError
from laguna.packages.manifest import FORMAT_1_4, PackageType
from laguna.packages.package import Package, load_archive, load_package, qualify_class_name
from laguna.packages.versions import Version, parse_requirement

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"
APP_CLASSES = ["com.example.App", "com.example.Second", "com.example.helpers.First",
               "com.example.helpers.Helper"]


@pytest.fixture(params=["directory", "archive"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Package:
    if request.param == "directory":
        return load_package(FIXTURES / "app")
    archive = tmp_path / "app.zip"
    build_archive(FIXTURES / "app", archive)
    return load_package(archive)


def test_identity(app: Package) -> None:
    assert app.name == "com.example.App"
    assert app.version == Version("1.2.3")
    assert app.format == FORMAT_1_4
    assert app.type is PackageType.APPLICATION
    assert app.manifest.name == "Example App"
    assert app.requirements == {"com.example.Lib": parse_requirement("1.2"),
                                "io.murano": parse_requirement("0")}


def test_class_names_include_discovered(app: Package) -> None:
    assert app.class_names() == APP_CLASSES


@pytest.mark.parametrize(("class_name", "path"), [
    ("com.example.App", "Classes/App.yaml"),
    ("com.example.helpers.Helper", "Classes/Helper.yaml"),
    ("com.example.helpers.First", "Classes/sub/Two.yaml"),
    ("com.example.Second", "Classes/sub/Two.yaml"),
])
def test_class_source(app: Package, class_name: str, path: str) -> None:
    text, source = app.class_source(class_name)
    assert source == path
    assert text == (FIXTURES / "app" / path).read_text()


def test_unknown_class(app: Package) -> None:
    with pytest.raises(PackageLoadError) as info:
        app.class_source("com.example.Nope")
    assert (info.value.code, info.value.message) == (
        "LAG-E0532", "class 'com.example.Nope' is not defined in package com.example.App")


def test_resources(app: Package) -> None:
    assert app.resource("script.sh") == b"#!/bin/sh\necho hello\n"
    assert app.resource("sub/data.txt") == b"data\n"
    assert app.resource("sub/../script.sh") == b"#!/bin/sh\necho hello\n"
    assert app.resource_names() == ["script.sh", "sub/data.txt"]


@pytest.mark.parametrize("path", ["../manifest.yaml", "/etc/passwd", "sub/../../manifest.yaml",
                                  "..", "C:/x"])
def test_resource_cannot_escape(app: Package, path: str) -> None:
    with pytest.raises(PackageLoadError) as info:
        app.resource(path)
    assert (info.value.code, info.value.message) == (
        "LAG-E0533", f"resource path {path!r} leaves the Resources folder")


def test_missing_resource(app: Package) -> None:
    with pytest.raises(PackageLoadError) as info:
        app.resource("nope.txt")
    assert (info.value.code, info.value.message) == (
        "LAG-E0534", "com.example.App: no resource 'nope.txt'")


def test_ui_and_logo(app: Package) -> None:
    ui = (FIXTURES / "app" / "UI" / "ui.yaml").read_text()
    assert app.ui_files() == {"UI/ui.yaml": ui}
    assert app.ui_definition() == ui
    assert app.logo() == b"\x89PNG\r\n\x1a\nfake"


def test_package_without_ui_or_logo() -> None:
    lib = load_package(FIXTURES / "lib")
    assert lib.ui_files() == {}
    assert lib.ui_definition() is None
    assert lib.logo() is None


def test_directory_resource_symlink_cannot_escape(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    shutil.copytree(FIXTURES / "lib", root)
    (root / "Resources").mkdir()
    (tmp_path / "secret").write_text("s")
    (root / "Resources" / "link").symlink_to(tmp_path / "secret")
    package = load_package(root)
    with pytest.raises(PackageLoadError) as info:
        package.resource("link")
    assert (info.value.code, info.value.message) == (
        "LAG-E0533", "'Resources/link' is outside the package")


def test_invalid_manifest_raises_every_problem() -> None:
    with pytest.raises(PackageFormatError) as info:
        load_package(FIXTURES / "bad-manifest")
    assert [d.code for d in info.value.diagnostics] == [
        "LAG-E0511", "LAG-E0513", "LAG-E0514", "LAG-E0501", "LAG-E0515", "LAG-E0516",
        "LAG-E0502", "LAG-W0519"]


def test_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(PackageLoadError) as info:
        load_package(tmp_path)
    assert (info.value.code, info.value.message) == (
        "LAG-E0530", f"{tmp_path}: no manifest.yaml; not a package")


def test_to_archive_round_trips(app: Package) -> None:
    again = load_archive(app.to_archive())
    assert again.files() == app.files()
    assert again.class_names() == APP_CLASSES
    assert again.origin == "archive"


@pytest.mark.parametrize(("name", "namespaces", "expected"), [
    ("App", {"=": "com.example"}, "com.example.App"),
    ("App", {}, "App"),
    ("io.x.App", {"=": "com.example"}, "io.x.App"),
    ("lib:Base", {"lib": "com.example.lib"}, "com.example.lib.Base"),
    ("nope:Base", {}, None),
])
def test_qualify_class_name(name: str, namespaces: dict[str, str], expected: str | None) -> None:
    assert qualify_class_name(name, namespaces) == expected
