"""`laguna package` through click's CliRunner: exit codes and output."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from laguna.cli.commands.package import package
from laguna.config import Config, sqlite_url

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


@pytest.fixture()
def config(tmp_path: Path) -> Config:
    return Config(database_url=sqlite_url(tmp_path / "catalog.sqlite"))


def run(config: Config, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(package, list(args), obj=config)
    return result.exit_code, result.output


def test_build_then_import_zip(config: Config, tmp_path: Path) -> None:
    out = tmp_path / "app.zip"
    code, output = run(config, "build", str(FIXTURES / "app"), "-o", str(out),
                       "-l", str(FIXTURES / "lib"))
    assert (code, output) == (0, f"built com.example.App 1.2.3: {out} (8 files)\n")
    assert zipfile.is_zipfile(out)
    code, output = run(config, "import", str(out), "--public", "-l", str(FIXTURES / "lib"))
    assert code == 0
    assert output.startswith("imported com.example.App 1.2.3 (id ")


def test_build_refuses_invalid_manifest(config: Config, tmp_path: Path) -> None:
    code, output = run(config, "build", str(FIXTURES / "bad-manifest"), "-o",
                       str(tmp_path / "x.zip"))
    assert code == 1
    assert output.splitlines()[0] == (
        f"{FIXTURES / 'bad-manifest'}/manifest.yaml:1:1: error[LAG-E0511]: unsupported "
        "Format 2.0; expected one of 1.0, 1.1, 1.2, 1.3, 1.4 (optionally written "
        "MuranoPL/<version>) [unsupported_format]")
    assert not (tmp_path / "x.zip").exists()


def test_import_list_show_delete(config: Config) -> None:
    assert run(config, "list") == (0, "no packages\n")
    # the catalog gives the application the library it requires
    assert run(config, "import", str(FIXTURES / "lib"), "--public", "--category", "Base")[0] == 0
    assert run(config, "import", str(FIXTURES / "app"))[0] == 0
    code, output = run(config, "list")
    assert code == 0
    assert output.splitlines() == [
        "Name              Version   Type          Enabled   Public",
        "──────────────────────────────────────────────────────────",
        "com.example.App   1.2.3     Application   yes       no",
        "com.example.Lib   1.2.5     Library       yes       yes",
    ]
    code, output = run(config, "list", "--type", "Library")
    assert [line.split()[0] for line in output.splitlines()[2:]] == ["com.example.Lib"]
    code, output = run(config, "show", "com.example.Lib==1.2.5")
    assert code == 0
    lines = output.splitlines()
    assert lines[:14] == [
        "Name:           com.example.Lib",
        "Display name:   com.example.Lib",
        "Version:        1.2.5",
        "Other versions: -",
        "Type:           Library",
        "Format:         MuranoPL/1.3",
        "Enabled:        yes",
        "Public:         yes",
        "Author:         -",
        "Description:    -",
        "Tags:           -",
        "Categories:     Base",
        "Classes:        com.example.lib.Base",
        "Requires:       -",
    ]
    assert lines[14].startswith("ID:             ")
    assert run(config, "delete", "com.example.Lib") == (0, "deleted com.example.Lib 1.2.5\n")
    code, output = run(config, "show", "com.example.Lib")
    assert (code, output) == (
        1, "error[LAG-E0560]: package 'com.example.Lib' not found [package_not_found]\n")


def test_import_duplicate_fails(config: Config) -> None:
    assert run(config, "import", str(FIXTURES / "lib"))[0] == 0
    assert run(config, "import", str(FIXTURES / "lib")) == (
        1, "error[LAG-E0570]: package com.example.Lib version 1.2.5 is already in the catalog "
           "[duplicate_package]\n")


def test_delete_needs_a_version_when_several(config: Config, tmp_path: Path) -> None:
    for version in ["1.0.0", "2.0.0"]:
        folder = tmp_path / version
        folder.mkdir()
        (folder / "manifest.yaml").write_text(
            f"Type: Library\nFullName: com.example.V\nVersion: {version}\n")
        assert run(config, "import", str(folder))[0] == 0
    assert run(config, "delete", "com.example.V") == (
        1, "error[LAG-E1300]: package com.example.V has 2 versions (1.0.0, 2.0.0); name one as "
           "com.example.V==VERSION or pass --all-versions [invalid_value]\n")
    assert run(config, "delete", "com.example.V==2") == (0, "deleted com.example.V 2.0.0\n")
    assert run(config, "delete", "com.example.V==bad") == (
        1, "error[LAG-E0501]: invalid version 'bad': expected SemVer like 1.2.3 "
           "[invalid_version]\n")
    assert run(config, "delete", "com.example.V", "--all-versions") == (
        0, "deleted com.example.V 1.0.0\n")


def test_db_url_option_wins(config: Config, tmp_path: Path) -> None:
    other = sqlite_url(tmp_path / "other.sqlite")
    assert run(config, "import", str(FIXTURES / "lib"), "--db-url", other)[0] == 0
    assert run(config, "list") == (0, "no packages\n")
    assert run(config, "list", "--db-url", other)[1].splitlines()[2].startswith("com.example.Lib")


def test_database_url_from_environment(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "env.sqlite")
    result = CliRunner().invoke(package, ["import", str(FIXTURES / "lib")],
                                env={"LAGUNA_DATABASE_URL": url})
    assert result.exit_code == 0
    assert (tmp_path / "env.sqlite").exists()


def test_check_valid_package(config: Config) -> None:
    # the app requires com.example.Lib 1.2, which -l provides
    assert run(config, "check", str(FIXTURES / "app"), "-l", str(FIXTURES / "lib")) == (
        0, "com.example.App 1.2.3: no problems found\n")


def test_check_reports_every_problem(config: Config) -> None:
    base = str(FIXTURES / "bad-files")
    code, output = run(config, "check", base + "/")
    assert code == 1
    assert output.splitlines() == [
        f"{base}/Classes/Broken.yaml:3:1: error[LAG-E0538]: invalid YAML: expected ',' or "
        "']', but got '<stream end>' [class_file_invalid]",
        f"{base}/Classes/Two.yaml:3:7: error[LAG-E0537]: class 'com.example.Dup' is already "
        "defined in 'Classes/One.yaml' [duplicate_class]",
        f"{base}/Classes/Two.yaml:5:7: error[LAG-E0538]: class name 'x:Unknown' uses an "
        "unknown namespace prefix [class_file_invalid]",
        f"{base}/UI/other.yaml:3:4: error[LAG-E0535]: invalid YAML: expected <block end>, "
        "but found '<block mapping start>' [ui_invalid]",
        f"{base}/manifest.yaml:4:3: error[LAG-E0531]: file 'Classes/Missing.yaml' of class "
        "'com.example.Missing' does not exist [class_file_missing]",
        f"{base}/manifest.yaml:5:1: error[LAG-E0535]: UI file 'UI/form.yaml' does not exist [ui_invalid]",
        f"{base}/manifest.yaml:6:1: error[LAG-E0536]: com.example.Broken: logo file "
        "'logo.svg' not found [logo_missing]",
        "7 error(s), 0 warning(s)",
    ]


def test_check_invalid_manifest(config: Config) -> None:
    code, output = run(config, "check", str(FIXTURES / "bad-manifest"))
    assert code == 1
    assert output.splitlines()[-2:] == [
        f"{FIXTURES / 'bad-manifest'}/manifest.yaml:10:1: warning[LAG-W0519]: unknown manifest "
        "field 'Requires' is ignored; known fields: Format, Type, FullName, Name, Version, "
        "Description, Author, Tags, Classes, Require, UI, Logo, Supplier, Meta "
        "[unknown_manifest_field]",
        "7 error(s), 1 warning(s)",
    ]


def test_check_unreadable_archive(config: Config, tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    assert run(config, "check", str(bad)) == (
        1, f"error[LAG-E0550]: {bad}: {str(bad)!r} is not a zip archive: File is not a zip "
           "file [not_a_zip]\n")


@pytest.mark.parametrize("command", ["check", "import", "build"])
def test_a_class_file_nested_too_deep_is_refused_by_every_command(
        config: Config, tmp_path: Path, command: str) -> None:
    # what `check` finds, `import` and `build` refuse: nothing is stored or written;
    # the 98th bracket is the 101st level (the mappings above it count)
    base = tmp_path / "deep"
    (base / "Classes").mkdir(parents=True)
    (base / "manifest.yaml").write_text(
        "Format: MuranoPL/1.0\nType: Application\nFullName: t.Deep\nName: Deep\n"
        "Classes:\n  t.Deep: Deep.yaml\n")
    (base / "Classes" / "Deep.yaml").write_text(
        "Name: t.Deep\nProperties:\n  p:\n    Contract: " + "[" * 600 + "]" * 600 + "\n")
    out = tmp_path / "deep.zip"
    code, output = run(config, command, str(base), *(["-o", str(out)] if command == "build"
                                                     else []))
    assert code == 1
    assert output.splitlines() == [
        f"{base}/Classes/Deep.yaml:4:112: error[LAG-E0538]: collections nest more than 100 "
        "levels deep [class_file_invalid]",
        "1 error(s), 0 warning(s)" + ("" if command == "check" else ": package refused")]
    assert not out.exists()
    if command == "import":
        assert run(config, "list") == (0, "no packages\n")
