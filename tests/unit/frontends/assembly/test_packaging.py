"""Descriptor packages imported into the catalog store beside MuranoPL packages."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli

CATALOG = Path(__file__).parents[3] / "conformance" / "descriptors" / "catalog"


def test_package_import_accepts_descriptor_packages(tmp_path: Path) -> None:
    db = str(tmp_path / "catalog.db")
    runner = CliRunner()
    imported = runner.invoke(cli, ["package", "import", str(CATALOG / "t.server-1.10"),
                                   "--db-url", db])
    assert imported.exit_code == 0
    assert imported.stdout.startswith("imported resource::t.server 1.10 (id ")
    listed = runner.invoke(cli, ["package", "list", "--db-url", db])
    assert listed.stdout.splitlines()[2].split() == [
        "resource::t.server", "1.10.0", "Resource", "yes", "no"]
    again = runner.invoke(cli, ["package", "import", str(CATALOG / "t.server-1.10"),
                                "--db-url", db])
    assert again.exit_code == 1


def test_a_broken_descriptor_package_is_refused_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "bad" / "Definitions" / "lm"
    folder.mkdir(parents=True)
    (folder / "resource.yaml").write_text("name: resource::ok::1.0\nproperties:\n"
                                          "  p: {type: widget}\n")
    result = CliRunner().invoke(cli, ["package", "import", str(tmp_path / "bad"),
                                      "--db-url", str(tmp_path / "c.db")])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{tmp_path / 'bad'}/Definitions/lm/resource.yaml:3:3: error[LAG-E1610]: "
        "property 'p' has unknown type 'widget' [invalid_data_type]", "package refused"]


def test_a_package_whose_descriptor_has_no_name_is_imported_by_lmctls_name(
        tmp_path: Path) -> None:
    # the seed: in a package, "if no descriptor name is specified, a default name is
    # created automatically" (lmctl's: the project's name and version)
    package = tmp_path / "shop"
    (package / "Definitions" / "lm").mkdir(parents=True)
    (package / "lmproject.yml").write_text("schema: '2.0'\nname: acme.shop\nversion: '2.3'\n"
                                           "type: Resource\n")
    (package / "Definitions" / "lm" / "resource.yaml").write_text(
        "description: no name here\nproperties:\n  p: {type: string}\n")
    result = CliRunner().invoke(cli, ["package", "import", str(package),
                                      "--db-url", str(tmp_path / "c.db")])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("imported resource::acme.shop 2.3 (id ")
