"""`laguna validate` makes every check a deploy makes before anything runs, in
every language, with the same -l and catalog, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli

EXAMPLES = Path(__file__).parents[3] / "examples"


def laguna(workdir: Path, *args: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(cli, [*args, "--workdir", str(workdir), "--json"],
                                env={"LAGUNA_DATABASE_URL": ""})
    return result.exit_code, json.loads(result.stdout)


def test_a_muranopl_model_whose_class_does_not_exist_is_invalid(tmp_path: Path) -> None:
    model = tmp_path / "m.yaml"
    model.write_text("- ?: {id: x, type: no.such.App}\n")
    code, data = laguna(tmp_path / "wd", "validate", str(model))
    assert code == 2
    assert data["error"] == {
        "kind": "class_not_found",
        "message": "class no.such.App is not found in the core library, the -l packages or "
                   "the environment's packages"}
    assert not (tmp_path / "wd").exists()   # nothing written


def test_a_muranopl_model_valid_with_its_packages(tmp_path: Path) -> None:
    code, data = laguna(tmp_path, "validate", str(EXAMPLES / "webserver" / "web.yaml"),
                        "-l", str(EXAMPLES / "webserver"))
    assert (code, data["status"], data["language"]) == (0, "ok", "muranopl")


def test_an_assembly_whose_resource_is_missing_is_invalid_as_deploy_says(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    site = str(EXAMPLES / "assembly" / "site.yaml")
    code, data = laguna(tmp_path / "wd", "validate", site, "-l", str(empty))
    assert code == 2
    error = data["error"]
    assert isinstance(error, dict) and error["kind"] == "descriptor_not_found"
    assert error["message"].splitlines() == [
        f"{site}:13:11: descriptor 'resource::example.web::1.0' is not in the catalog",
        f"{site}:18:11: descriptor 'resource::example.web::1.0' is not in the catalog"]
    code, data = laguna(tmp_path / "wd", "validate", site, "-l", str(EXAMPLES / "assembly"))
    assert (code, data["status"], data["name"]) == (0, "ok", "site")
