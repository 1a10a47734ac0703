"""`laguna package` refuses what it cannot use with one line and a non-zero
exit, never a Python traceback: packages with errors (build and import run
the checks of `package check`), outputs it cannot write, catalogs it cannot open."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from laguna.cli.commands.package import package
from laguna.cli.main import cli
from laguna.config import Config, sqlite_url

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"
MANIFEST = "Format: 1.4\nType: Library\nFullName: t.Pkg\nClasses:\n  t.A: A.yaml\n"


@pytest.fixture()
def config(tmp_path: Path) -> Config:
    return Config(database_url=sqlite_url(tmp_path / "catalog.sqlite"))


def run(config: Config, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(package, list(args), obj=config)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.output


def make_package(root: Path, class_file: bytes) -> Path:
    (root / "Classes").mkdir(parents=True)
    (root / "manifest.yaml").write_text(MANIFEST)
    (root / "Classes" / "A.yaml").write_bytes(class_file)
    return root


UNKNOWN_KEY = b"Name: t.A\nFoo: 1\n"


@pytest.mark.parametrize("command", ["build", "import"])
def test_a_class_file_with_an_unknown_key_is_refused(config: Config, tmp_path: Path,
                                                     command: str) -> None:
    folder = make_package(tmp_path / "pkg", UNKNOWN_KEY)
    extra = ["-o", str(tmp_path / "pkg.zip")] if command == "build" else []
    code, output = run(config, command, str(folder), *extra)
    assert (code, output.splitlines()) == (1, [
        f"{folder}/Classes/A.yaml:2:1: error[LAG-E0203]: unknown key 'Foo' in class t.A; "
        "expected one of Applies, Cardinality, Extends, Import, Inherited, Meta, Methods, "
        "Name, Namespaces, Properties, Usage, Workflow [invalid_class]",
        "1 error(s), 0 warning(s): package refused",
    ])
    assert not (tmp_path / "pkg.zip").exists()
    assert run(config, "list") == (0, "no packages\n")


def test_an_archive_with_an_undecodable_class_file_is_not_imported(config: Config,
                                                                    tmp_path: Path) -> None:
    archive = tmp_path / "pkg.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("manifest.yaml", MANIFEST)
        zf.writestr("Classes/A.yaml", b"Name: t.A\n# caf\xe9\n")
    code, output = run(config, "import", str(archive))
    # once, at the line and column of the byte
    assert (code, output.splitlines()) == (1, [
        f"{archive}/Classes/A.yaml:2:6: error[LAG-E0538]: the file is not UTF-8 text: "
        "byte 0xe9 cannot be decoded [class_file_invalid]",
        "1 error(s), 0 warning(s): package refused",
    ])
    assert run(config, "list") == (0, "no packages\n")


def test_warnings_do_not_stop_a_build(config: Config, tmp_path: Path) -> None:
    folder = make_package(tmp_path / "pkg", b"Name: t.A\n")
    (folder / "manifest.yaml").write_text(MANIFEST + "Colour: blue\n")
    out = tmp_path / "pkg.zip"
    code, output = run(config, "build", str(folder), "-o", str(out))
    assert (code, output.splitlines()) == (0, [
        f"{folder}/manifest.yaml:6:1: warning[LAG-W0519]: unknown manifest field 'Colour' is "
        "ignored; known fields: Format, Type, FullName, Name, Version, Description, Author, "
        "Tags, Classes, Require, UI, Logo, Supplier, Meta [unknown_manifest_field]",
        f"built t.Pkg 0.0.0: {out} (2 files)",
    ])


def test_required_packages_come_from_lib_folders(config: Config, tmp_path: Path) -> None:
    out = tmp_path / "app.zip"
    assert run(config, "build", str(FIXTURES / "app"), "-o", str(out))[0] == 1
    code, _ = run(config, "build", str(FIXTURES / "app"), "-o", str(out),
                  "-l", str(FIXTURES / "lib"))
    assert code == 0


def test_building_into_a_missing_folder_is_one_error(config: Config, tmp_path: Path) -> None:
    out = tmp_path / "missing" / "x.zip"
    assert run(config, "build", str(FIXTURES / "lib"), "-o", str(out)) == (
        1, f"error[LAG-E1301]: cannot write {out}: folder '{out.parent}' does not exist "
           "[output_unwritable]\n")


def test_building_into_the_package_folder_leaves_the_previous_archive_out(
        config: Config, tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    shutil.copytree(FIXTURES / "lib", folder)
    out = folder / "lib.zip"
    for _ in range(2):
        code, output = run(config, "build", str(folder), "-o", str(out))
        assert (code, output) == (0, f"built com.example.Lib 1.2.5: {out} (2 files)\n")
    assert zipfile.ZipFile(out).namelist() == ["Classes/Base.yaml", "manifest.yaml"]


@pytest.mark.parametrize(("url", "message"), [
    ("foo://bar", "--db-url 'foo://bar': unknown database kind 'foo'; expected sqlite or "
                  "postgresql"),
    ("postgresql://u:secret@h:port/x", "--db-url is not a database URL; expected "
     "sqlite:///PATH, postgresql://HOST/NAME or an SQLite file's path"),
    ("sqlite:////no/such/dir/x.sqlite", "--db-url 'sqlite:////no/such/dir/x.sqlite': "
                                        "folder '/no/such/dir' does not exist"),
])
def test_an_unusable_db_url_is_one_error(config: Config, url: str, message: str) -> None:
    for args in (["list"], ["check", str(FIXTURES / "lib")]):
        assert run(config, *args, "--db-url", url) == (
            1, f"error[LAG-E1302]: {message} [catalog_unusable]\n")
    assert not Path("/no/such/dir").exists()


def test_a_file_that_is_no_catalog_is_one_error(config: Config, tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database " * 100)
    assert run(config, "list", "--db-url", str(junk)) == (
        1, f"error[LAG-E1302]: cannot open the catalog sqlite:///{junk}: file is not a "
           "database [catalog_unusable]\n")


def test_a_path_is_taken_as_an_sqlite_file(config: Config, tmp_path: Path) -> None:
    catalog = tmp_path / "other.sqlite"
    assert run(config, "import", str(FIXTURES / "lib"), "--db-url", str(catalog))[0] == 0
    assert run(config, "list", "--db-url", f"sqlite:///{catalog}")[1].splitlines()[-1].split()[
        0] == "com.example.Lib"


def test_laguna_test_refuses_an_unusable_db_url(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["test", str(FIXTURES / "lib"), "--db-url", "foo://bar"])
    assert (result.exit_code, result.output) == (
        1, "error[LAG-E1302]: --db-url 'foo://bar': unknown database kind 'foo'; expected "
           "sqlite or postgresql [catalog_unusable]\n")


def test_a_link_in_a_package_folder_is_reported_once_at_the_link(config: Config,
                                                                  tmp_path: Path) -> None:
    folder = make_package(tmp_path / "pkg", b"Name: t.A\n")
    (folder / "Classes" / "link.yaml").symlink_to("/etc/passwd")
    assert run(config, "check", str(folder)) == (1, (
        f"{folder}/Classes/link.yaml:1:1: error[LAG-E0552]: a symbolic link; packages "
        "cannot contain links [archive_symlink]\n1 error(s), 0 warning(s)\n"))


def test_an_undecodable_manifest_is_reported_at_the_byte(config: Config,
                                                         tmp_path: Path) -> None:
    folder = make_package(tmp_path / "pkg", b"Name: t.A\n")
    (folder / "manifest.yaml").write_bytes(b"Format: 1.4\nType: Library\nFullName: t.P\xff\n")
    assert run(config, "check", str(folder)) == (1, (
        f"{folder}/manifest.yaml:3:14: error[LAG-E0517]: the file is not UTF-8 text: byte "
        "0xff cannot be decoded [invalid_manifest_text]\n1 error(s), 0 warning(s)\n"))
