"""`laguna package` with CSARs: imported beside other packages, two versions side
by side, shown and deleted; refused with the archive's or the template's problem."""

from __future__ import annotations

import json
from pathlib import Path

from laguna.config import Config
from tests.unit.cli.test_package_command import config, run  # noqa: F401 - the fixture
from tests.unit.frontends.tosca.csars import zip_of


def _csar(tmp_path: Path, version: str, extra: dict[str, str] | None = None) -> Path:
    path = tmp_path / f"types-{version}.csar"
    path.write_bytes(zip_of({"types.yaml": (
        "tosca_definitions_version: tosca_simple_yaml_1_3\n"
        f"metadata: {{template_name: my-types, template_version: '{version}'}}\n"
        "node_types:\n  example.Thing: {derived_from: tosca.nodes.Root}\n"),
        **(extra or {})}))
    return path


def test_csar_versions_side_by_side_shown_and_deleted(config: Config, tmp_path: Path) -> None:
    code, output = run(config, "import", str(_csar(tmp_path, "1.0")))
    assert (code, output.startswith("imported my-types 1.0.0 (id ")) == (0, True)
    assert run(config, "import", str(_csar(tmp_path, "1.1")))[0] == 0
    code, output = run(config, "list", "--type", "Tosca")
    assert output.splitlines()[2:] == ["my-types   1.0.0     Tosca   yes       no",
                                       "my-types   1.1.0     Tosca   yes       no"]
    code, output = run(config, "show", "my-types", "-o", "json")
    assert '"format": "TOSCA/1.3"' in output and '"other_versions": "1.0.0"' in output
    code, output = run(config, "show", "my-types==1.0")
    assert [line for line in output.splitlines() if line.startswith(
        ("Node types", "Substitutes", "Entry"))] == [
        "Node types:     example.Thing", "Substitutes:    -", "Entry:          types.yaml"]
    code, output = run(config, "import", str(_csar(tmp_path, "1.1")))
    assert (code, output.strip()) == (1, "error[LAG-E0570]: package my-types version 1.1.0 "
                                         "is already in the catalog [duplicate_package]")
    assert run(config, "delete", "my-types==1.0") == (0, "deleted my-types 1.0.0\n")


def test_a_csar_with_a_path_out_of_it_is_refused(config: Config, tmp_path: Path) -> None:
    code, output = run(config, "import", str(_csar(tmp_path, "1.0", {"../x.sh": "true"})))
    assert (code, output) == (1, "CSAR refused: archive entry '../x.sh' points outside the "
                                 "package ('..')\n")
    assert run(config, "list") == (0, "no packages\n")


def test_a_csar_is_deployed_from_the_catalog_by_name_and_version(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from laguna.cli.main import cli
    work = str(tmp_path / "work")
    template = ("tosca_definitions_version: tosca_simple_yaml_1_3\n"
                "metadata: {{template_version: '{v}'}}\n"
                "topology_template:\n  node_templates:\n    a: {{type: tosca.nodes.Root}}\n"
                "  outputs:\n    version: {{value: '{v}'}}\n")
    for version in ("1.0.0", "1.1.0"):
        path = tmp_path / "unnamed.csar"
        path.write_bytes(zip_of({"service.yaml": template.format(v=version)}))
        result = CliRunner().invoke(cli, ["package", "import", str(path), "--workdir", work])
        assert result.output.startswith(f"imported unnamed {version} (id "), result.output
    result = CliRunner().invoke(cli, ["deploy", "unnamed==1.0", "--json", "--workdir", work])
    data = json.loads(result.output)
    # no template_name: the environment is the package's name
    assert (data["name"], data["status"], data["outputs"]) == (
        "unnamed", "ok", {"version": "1.0.0"})
    result = CliRunner().invoke(cli, ["deploy", "unnamed>=2.0", "--json", "--workdir", work])
    assert json.loads(result.output)["error"] == {
        "kind": "csar_invalid", "code": "LAG-E1512",
        "message": "no TOSCA package unnamed >=2.0 in the catalog"}


def test_a_csar_of_types_only_is_not_deployed(config: Config, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from laguna.cli.main import cli
    work = str(tmp_path / "work")
    result = CliRunner().invoke(cli, ["package", "import", str(_csar(tmp_path, "1.0")),
                                      "--workdir", work])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli, ["deploy", "my-types", "--json", "--workdir", work])
    assert (result.exit_code, json.loads(result.output)["error"]) == (2, {
        "kind": "csar_invalid", "code": "LAG-E1512",
        "message": "TOSCA package my-types 1.0.0 has no node templates to deploy (a CSAR "
                   "of types: import it with catalog:my-types)"})
