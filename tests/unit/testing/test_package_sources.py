"""`laguna test` and `laguna package check` take required packages from -l
folders and from the catalog store."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.config import sqlite_url
from laguna.packages.archive import build_archive

CONFORMANCE = pathlib.Path(__file__).resolve().parents[2] / "conformance" / "muranopl"


def write(folder: pathlib.Path, manifest: str, classes: dict[str, str]) -> pathlib.Path:
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(textwrap.dedent(manifest))
    for file, body in classes.items():
        (folder / "Classes" / file).write_text(textwrap.dedent(body))
    return folder


def lib(root: pathlib.Path, version: str, says: str | None = None) -> pathlib.Path:
    return write(root / f"lib-{version}", f"""\
        Format: 1.4
        Type: Library
        FullName: t.lib
        Version: {version}
        Classes:
          t.lib.Thing: Thing.yaml
        """, {"Thing.yaml": f"""\
        Name: t.lib.Thing
        Methods:
          says:
            Body: [Return: '{says or version}']
        """})


TESTED_MANIFEST = """\
    Format: 1.4
    Type: Library
    FullName: t.tested
    Classes:
      t.tested.Cases: Cases.yaml
    Require:
      t.lib: 1
    """
TESTED_CASES = """\
    Namespaces: {std: io.murano, l: t.lib}
    Name: t.tested.Cases
    Extends: std:test.TestFixture
    Methods:
      testThing:
        Body:
          - $.assertEqual('1.1.0', new(l:Thing).says())
    """


@pytest.fixture()
def env(tmp_path: pathlib.Path) -> dict[str, str]:
    """No catalog unless a test imports into this one."""
    return {"LAGUNA_DATABASE_URL": sqlite_url(tmp_path / "catalog.sqlite")}


@pytest.fixture()
def tested(tmp_path: pathlib.Path) -> pathlib.Path:
    return write(tmp_path / "tested", TESTED_MANIFEST, {"Cases.yaml": TESTED_CASES})


def run(env: dict[str, str], *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.output


def test_required_package_from_a_lib_folder(env: dict[str, str], tested: pathlib.Path,
                                            tmp_path: pathlib.Path) -> None:
    libs = tmp_path / "libs"
    lib(libs, "1.0.0")
    lib(libs, "1.1.0")
    lib(libs, "2.0.0")
    code, output = run(env, "test", str(tested), "-l", str(libs))
    assert code == 0, output
    assert output.splitlines()[-1] == "1 passed, 0 failed"
    assert not (tmp_path / "catalog.sqlite").exists()   # no catalog is created to be read


def test_lib_may_be_a_package_zip(env: dict[str, str], tested: pathlib.Path,
                                  tmp_path: pathlib.Path) -> None:
    build_archive(lib(tmp_path / "src", "1.1.0"), tmp_path / "lib.zip")
    code, output = run(env, "test", str(tested), "-l", str(tmp_path / "lib.zip"))
    assert code == 0, output


def test_missing_requirement_fails_the_test_with_the_reason(env: dict[str, str],
                                                            tested: pathlib.Path) -> None:
    code, output = run(env, "test", str(tested))
    assert code == 1
    assert output.splitlines()[1] == (
        "  murano.dsl.exceptions.NoClassFound: Class \"t.lib.Thing\" is not found in "
        "t.tested/0.0.0, io.murano/0.2.0; required packages not found: t.lib '1' "
        "(>=1.0.0,<2.0.0-0)")


def test_required_package_from_the_catalog(env: dict[str, str], tested: pathlib.Path,
                                           tmp_path: pathlib.Path) -> None:
    for version in ["1.0.0", "1.1.0"]:
        code, output = run(env, "package", "import", str(lib(tmp_path / "src", version)))
        assert code == 0, output
    code, output = run(env, "test", str(tested))
    assert code == 0, output
    # and with the catalog named on the command line instead
    other = sqlite_url(tmp_path / "other.sqlite")
    assert run(env, "package", "import", "--db-url", other,
               str(tmp_path / "src" / "lib-1.1.0"))[0] == 0
    code, output = run({"LAGUNA_DATABASE_URL": sqlite_url(tmp_path / "none.sqlite")},
                       "test", str(tested), "--db-url", other)
    assert code == 0, output


def test_lib_folders_come_before_the_catalog(env: dict[str, str], tested: pathlib.Path,
                                             tmp_path: pathlib.Path) -> None:
    assert run(env, "package", "import", str(lib(tmp_path / "src", "1.1.0", "catalog")))[0] == 0
    libs = tmp_path / "libs"
    lib(libs, "1.1.0")
    code, output = run(env, "test", str(tested), "-l", str(libs))
    assert code == 0, output
    code, output = run(env, "test", str(tested))
    assert code == 1
    assert "AssertionError: '1.1.0' != 'catalog'" in output


def test_unusable_lib_entries_are_warned_about(env: dict[str, str], tested: pathlib.Path,
                                               tmp_path: pathlib.Path) -> None:
    libs = tmp_path / "libs"
    lib(libs, "1.1.0")
    (libs / "junk" / "Classes").mkdir(parents=True)   # a package without its manifest
    (libs / "notes").mkdir()                          # not a package: passed over
    result = CliRunner().invoke(cli, ["test", str(tested), "-l", str(libs)],
                                                env=env)
    assert result.exit_code == 0
    assert result.stderr == (
        f"warning: {libs / 'junk'} is not a usable package: {libs / 'junk'}: no "
        "manifest.yaml; not a package\n")


def test_check_resolves_requirements_from_libs_and_catalog(env: dict[str, str],
                                                           tested: pathlib.Path,
                                                           tmp_path: pathlib.Path) -> None:
    code, output = run(env, "package", "check", str(tested))
    assert code == 1
    assert output.splitlines() == [
        f"{tested}/Classes/Cases.yaml:7:9: error[LAG-E0705]: class l:Thing in "
        "\"$.assertEqual('1.1.0', new(l:Thing).says())\" does not resolve: Class "
        "\"t.lib.Thing\" is not found in "
        "t.tested/0.0.0, io.murano/0.2.0; required packages not found: t.lib '1' "
        "(>=1.0.0,<2.0.0-0) [unknown_class]",
        "1 error(s), 0 warning(s)"]
    libs = tmp_path / "libs"
    lib(libs, "1.1.0")
    assert run(env, "package", "check", str(tested), "-l", str(libs)) == (
        0, "t.tested 0.0.0: no problems found\n")
    assert run(env, "package", "import", str(libs / "lib-1.1.0"))[0] == 0
    assert run(env, "package", "check", str(tested)) == (
        0, "t.tested 0.0.0: no problems found\n")


def test_check_reports_every_muranopl_problem_with_its_place(env: dict[str, str],
                                                             tmp_path: pathlib.Path) -> None:
    package = write(tmp_path / "bad", """\
        Format: 1.4
        Type: Library
        FullName: t.bad
        Classes:
          t.bad.A: A.yaml
          t.bad.B: B.yaml
        """, {"A.yaml": """\
        Namespaces: {=: t.bad, std: io.murano}
        Name: A
        Extends: Missing
        Properties:
          p:
            Contract: $.class(std:Nope)
        Methods:
          m:
            Body:
              - $x: $.foo(
              - Return: new(std:Exception)
        """, "B.yaml": """\
        Name: t.bad.B
        Properties:
          q:
            Contract: $.int()
            Usage: Sometimes
        """})
    code, output = run(env, "package", "check", str(package))
    assert code == 1
    assert output.splitlines() == [
        f"{package}/Classes/A.yaml:3:1: error[LAG-E0242]: class t.bad.A: Extends names class "
        "t.bad.Missing, which is not found [missing_class_reference]",
        f"{package}/Classes/A.yaml:6:15: error[LAG-E0705]: class std:Nope in "
        "'$.class(std:Nope)' does not resolve: Class \"io.murano.Nope\" is not found in "
        "t.bad/0.0.0, io.murano/0.2.0 [unknown_class]",
        f"{package}/Classes/A.yaml:10:13: error[LAG-E0223]: invalid YAQL expression "
        "'$.foo(': Parse error: unexpected end of statement [invalid_expression]",
        f"{package}/Classes/B.yaml:5:5: error[LAG-E0209]: invalid Usage 'Sometimes' of "
        "property q; expected one of In, Out, InOut, Const, Runtime, Static, Config "
        "[invalid_class]",
        "4 error(s), 0 warning(s)"]


def test_conformance_versioning_package_checks_clean(env: dict[str, str]) -> None:
    code, output = run(env, "package", "check", str(CONFORMANCE / "packages" / "versioning"),
                       "-l", str(CONFORMANCE / "libs"))
    # the package builds the diamond that cannot be built on purpose, inside a Try
    assert code == 0
    assert output.splitlines()[0].startswith(
        f"{CONFORMANCE / 'packages' / 'versioning'}/Classes/DiamondTests.yaml:40:13: "
        "warning[LAG-E0701]: class clash:A in 'new(clash:A)' does not load: class "
        "conformance.versioning.clash.A inherits conformance.versioning.z.D from versions "
        "1.2.0 and 1.3.0")
    assert output.splitlines()[1:] == ["conformance.versioning 3.1.0: 1 warning(s)"]


def test_check_warns_of_usage_action_from_format_1_4(env: dict[str, str],
                                                      tmp_path: pathlib.Path) -> None:
    package = write(tmp_path / "old", """\
        Format: 1.4
        Type: Library
        FullName: t.old
        Classes:
          t.old.A: A.yaml
        """, {"A.yaml": """\
        Name: t.old.A
        Methods:
          legacyAction:
            Usage: Action
            Body:
              - Return: 1
        """})
    code, output = run(env, "package", "check", str(package))
    assert code == 0
    assert output.splitlines() == [
        f"{package}/Classes/A.yaml:4:5: warning[LAG-W0235]: method legacyAction: "
        "Usage: Action is deprecated since Format 1.4; use Scope: Public "
        "[deprecated_action_usage]",
        "t.old 0.0.0: 1 warning(s)"]


def self_contained(tmp_path: pathlib.Path) -> pathlib.Path:
    """A tested package that requires nothing but the core library."""
    return write(tmp_path / "alone", TESTED_MANIFEST.replace("Require:\n      t.lib: 1\n", ""),
                 {"Cases.yaml": TESTED_CASES.replace("new(l:Thing).says()", "'1.1.0'")})


def test_the_catalog_is_opened_only_when_a_package_is_needed_from_it(
        tested: pathlib.Path, tmp_path: pathlib.Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database " * 100)
    env = {"LAGUNA_DATABASE_URL": sqlite_url(junk)}
    code, output = run(env, "test", str(self_contained(tmp_path)))
    assert (code, output.splitlines()[-1]) == (0, "1 passed, 0 failed")
    code, output = run(env, "test", str(tested))
    assert code == 1
    # the test that needed it fails at the place, with the reason
    assert output.splitlines()[1:4] == [
        f"  laguna.cli.errors.CatalogError: error[LAG-E1302]: cannot open the catalog "
        f"sqlite:///{junk}: file is not a database",
        "  Traceback (most recent call last):",
        '    File "Classes/Cases.yaml", line 7:9 in method testThing of type t.tested.Cases']


def test_laguna_test_imports_no_catalog_store_it_does_not_need(tmp_path: pathlib.Path) -> None:
    catalog = {"LAGUNA_DATABASE_URL": sqlite_url(tmp_path / "catalog.sqlite")}
    assert run(catalog, "package", "import", str(lib(tmp_path / "src", "1.0.0")))[0] == 0
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from laguna.cli.main import cli\n"
        f"result = CliRunner().invoke(cli, ['test', {str(self_contained(tmp_path))!r}])\n"
        "print(result.exit_code, sorted(m for m in ('sqlalchemy', 'alembic', 'laguna.store',"
        " 'laguna.deploy') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env={**os.environ, **catalog})
    assert done.stdout == "0 []\n", done.stderr
