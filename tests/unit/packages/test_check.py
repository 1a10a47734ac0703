"""Package checks: built-in checkers and registering more."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.packages.archive import build_archive
from laguna.packages.check import (
    BUILTIN_CHECKERS,
    check_path,
    checkers,
    register_checker,
    unregister_checker,
)
from laguna.packages.errors import PackageLoadError
from laguna.packages.package import Package
from laguna.source import Diagnostic, Span

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


def test_valid_package_has_no_problems() -> None:
    result = check_path(FIXTURES / "app")
    assert result.ok
    assert result.diagnostics == []
    assert result.package is not None and result.package.name == "com.example.App"


def test_every_file_problem_is_reported() -> None:
    result = check_path(FIXTURES / "bad-files")
    assert not result.ok
    assert [str(d) for d in result.diagnostics] == [
        "Classes/Broken.yaml:3:1: error[LAG-E0538]: invalid YAML: expected ',' or ']', "
        "but got '<stream end>'",
        "Classes/Two.yaml:3:7: error[LAG-E0537]: class 'com.example.Dup' is already defined "
        "in 'Classes/One.yaml'",
        "Classes/Two.yaml:5:7: error[LAG-E0538]: class name 'x:Unknown' uses an unknown "
        "namespace prefix",
        "UI/other.yaml:3:4: error[LAG-E0535]: invalid YAML: expected <block end>, but found "
        "'<block mapping start>'",
        "manifest.yaml:4:3: error[LAG-E0531]: file 'Classes/Missing.yaml' of class "
        "'com.example.Missing' does not exist",
        "manifest.yaml:5:1: error[LAG-E0535]: UI file 'UI/form.yaml' does not exist",
        "manifest.yaml:6:1: error[LAG-E0536]: com.example.Broken: logo file 'logo.svg' "
        "not found",
    ]


def test_invalid_manifest_stops_before_checkers() -> None:
    result = check_path(FIXTURES / "bad-manifest")
    assert result.package is None
    assert len(result.diagnostics) == 8


def test_archive_is_checked_like_a_folder(tmp_path: Path) -> None:
    build_archive(FIXTURES / "bad-files", tmp_path / "bad.zip")
    assert [d.code for d in check_path(tmp_path / "bad.zip").diagnostics] == [
        d.code for d in check_path(FIXTURES / "bad-files").diagnostics]


def test_unreadable_path_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "x.zip").write_bytes(b"nope")
    result = check_path(tmp_path / "x.zip")
    assert result.package is None and not result.ok
    assert result.failure is not None and result.failure.code == "LAG-E0550"


def test_registered_checker_runs_after_builtins() -> None:
    def no_apps(package: Package) -> t.Iterator[Diagnostic]:
        if package.type.value == "Application":
            yield Diagnostic(package.manifest.span("Type"), "LAG-E9999", "no apps please")

    register_checker(no_apps)
    try:
        assert checkers() == [*BUILTIN_CHECKERS, no_apps]
        result = check_path(FIXTURES / "app")
        assert result.diagnostics == [
            Diagnostic(Span("manifest.yaml", 2, 1, 2, 5), "LAG-E9999", "no apps please")]
    finally:
        unregister_checker(no_apps)
    assert checkers() == list(BUILTIN_CHECKERS)


def test_failing_checker_becomes_a_diagnostic() -> None:
    def broken(package: Package) -> t.Iterator[Diagnostic]:
        raise PackageLoadError("cannot look", "LAG-E0534")

    result = check_path(FIXTURES / "lib", run=[broken])
    assert [str(d) for d in result.diagnostics] == [
        "manifest.yaml:1:1: error[LAG-E0534]: cannot look"]
