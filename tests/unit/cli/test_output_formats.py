"""Every listing command takes -o table|json|yaml, --json being -o json; JSON
and YAML print the same one object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from laguna.cli.main import cli

EXAMPLES = Path(__file__).parents[3] / "examples"
QUIET = Path(__file__).parents[2] / "fixtures" / "packages" / "quiet"


def laguna(workdir: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--workdir", str(workdir)],
                                env={"LAGUNA_DATABASE_URL": ""})
    return result.exit_code, result.stdout


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    code, output = laguna(tmp_path, "package", "import", str(EXAMPLES / "hello"))
    assert code == 0, output
    # a deployment that runs (a dry run keeps nothing): an application with no host
    package = QUIET
    model = tmp_path / "quiet.yaml"
    model.write_text("- ?: {id: q, type: com.example.Quiet}\n")
    code, output = laguna(tmp_path, "deploy", str(model), "-l", str(package), "--json")
    assert code == 0, output
    return tmp_path


@pytest.mark.parametrize("command", [("environments",), ("deployments", "quiet"),
                                     ("package", "list"), ("package", "show", "test.smoke")])
def test_json_and_yaml_print_the_same_object(workdir: Path, command: tuple[str, ...]) -> None:
    code, as_json = laguna(workdir, *command, "-o", "json")
    assert code == 0, as_json
    data = json.loads(as_json)
    assert isinstance(data, dict)
    assert laguna(workdir, *command, "--json") == (0, as_json)
    code, as_yaml = laguna(workdir, *command, "-o", "yaml")
    assert (code, yaml.safe_load(as_yaml)) == (0, data)
    code, table = laguna(workdir, *command)
    assert code == 0 and table != as_json and not table.startswith("{")
    assert laguna(workdir, *command, "-o", "table") == (0, table)


def test_the_listed_objects(workdir: Path) -> None:
    environments = json.loads(laguna(workdir, "environments", "-o", "json")[1])
    assert [(e["name"], e["state"]) for e in environments["environments"]] == [
        ("quiet", "ready")]
    history = json.loads(laguna(workdir, "deployments", "quiet", "-o", "json")[1])
    assert (history["name"], [d["operation"] for d in history["deployments"]]) == (
        "quiet", ["deploy"])
    packages = json.loads(laguna(workdir, "package", "list", "-o", "json")[1])["packages"]
    assert [(p["name"], p["version"], p["type"], p["public"]) for p in packages] == [
        ("test.smoke", "0.0.0", "Library", False)]


def test_an_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["environments", "-o", "xml", "--workdir", str(tmp_path)])
    assert result.exit_code == 2
    assert "Invalid value for '-o' / '--output': 'xml' is not one of 'table', 'json', " \
           "'yaml'." in result.output
