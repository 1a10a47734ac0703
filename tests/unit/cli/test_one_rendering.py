"""One rendering of problems in every command and every language: `laguna
validate` of a broken MuranoPL package, a broken TOSCA template and a broken
assembly descriptor prints each problem in the one line shape and, with
--json, in the one JSON shape (docs/ERRORS.md)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli

ROOT = Path(__file__).parents[3]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures" / "packages"

#: [FILE:LINE:COL: ]SEVERITY[CODE]: [ENTITY: ]MESSAGE [KIND]
LINE = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<column>\d+): "
                  r"(?P<severity>error|warning)\[(?P<code>LAG-[EW]\d{4})\]: "
                  r"(?P<rest>.+) \[(?P<kind>[a-z][a-z0-9_]*)\]$")
KEYS = {"code", "kind", "severity", "message", "file", "line", "column", "entity"}

BROKEN_TOSCA = """\
tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    port: {type: integer, default: 8080, constraints: [{less_than: 1024}]}
  node_templates:
    app: {type: tosca.nodes.SoftwareComponent, size: 1}
    db: {type: no.such.Type}
"""


def _broken(language: str, tmp_path: Path) -> list[str]:
    """The command line arguments that validate a broken blueprint of ``language``."""
    if language == "muranopl":
        return [str(FIXTURES / "bad-manifest")]
    if language == "tosca":
        path = tmp_path / "broken.yaml"
        path.write_text(textwrap.dedent(BROKEN_TOSCA))
        return [str(path)]
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    return [str(EXAMPLES / "assembly" / "site.yaml"), "-l", str(empty)]


def validate(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["validate", *args, "--workdir", str(tmp_path / "wd")],
                                env={"LAGUNA_DATABASE_URL": ""})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("language", ["muranopl", "tosca", "assembly"])
def test_validate_prints_every_problem_in_the_one_line_shape(language: str,
                                                             tmp_path: Path) -> None:
    code, out, err = validate(tmp_path, *_broken(language, tmp_path))
    assert (code, out) == (2, "")
    *lines, total = err.splitlines()
    assert lines and total == f"{len(lines)} problem(s)"
    for line in lines:
        assert LINE.match(line), line
    # and the JSON of each problem says what the line says
    code, out, _ = validate(tmp_path, *_broken(language, tmp_path), "--json")
    data = json.loads(out)
    assert (code, data["status"], data["language"]) == (2, "rejected", language)
    assert data["problems"] == data["error"]["problems"]
    for line, problem in zip(lines, data["problems"], strict=True):
        assert set(problem) == KEYS
        found = LINE.match(line)
        assert found is not None
        assert {k: found[k] for k in ("file", "severity", "code", "kind")} == {
            k: problem[k] for k in ("file", "severity", "code", "kind")}
        assert (int(found["line"]), int(found["column"])) == (problem["line"],
                                                              problem["column"])
        entity = f"{problem['entity']}: " if problem["entity"] else ""
        assert found["rest"] == entity + problem["message"]


def test_the_three_languages_print_the_same_line_for_the_same_parts(tmp_path: Path) -> None:
    muranopl = validate(tmp_path, *_broken("muranopl", tmp_path))[2].splitlines()
    tosca = validate(tmp_path, *_broken("tosca", tmp_path))[2].splitlines()
    assembly = validate(tmp_path, *_broken("assembly", tmp_path))[2].splitlines()
    manifest = f"{FIXTURES / 'bad-manifest'}/manifest.yaml"
    assert muranopl[0] == (
        f"{manifest}:1:1: error[LAG-E0511]: unsupported Format 2.0; expected one of 1.0, 1.1, "
        "1.2, 1.3, 1.4 (optionally written MuranoPL/<version>) [unsupported_format]")
    assert f"{manifest}:10:1: warning[LAG-W0519]: unknown manifest field 'Requires' is " \
        "ignored; known fields: Format, Type, FullName, Name, Version, Description, Author, " \
        "Tags, Classes, Require, UI, Logo, Supplier, Meta [unknown_manifest_field]" in muranopl
    broken = tmp_path / "broken.yaml"
    assert tosca == [
        f"{broken}:4:27: error[LAG-E1505]: input port: port: default 8080 is not less than "
        "1024 [constraint_violation]",
        f"{broken}:6:48: error[LAG-E1502]: node app: unknown keyname 'size' (expected one of "
        "artifacts, attributes, capabilities, copy, description, directives, interfaces, "
        "metadata, node_filter, properties, requirements, type) [invalid_template]",
        f"{broken}:7:10: error[LAG-E1503]: node db: unknown node type 'no.such.Type' "
        "[unknown_type]",
        "3 problem(s)"]
    site = EXAMPLES / "assembly" / "site.yaml"
    assert assembly == [
        f"{site}:13:11: error[LAG-E1606]: descriptor 'resource::example.web::1.0' is not in "
        "the catalog [descriptor_not_found]",
        f"{site}:18:11: error[LAG-E1606]: descriptor 'resource::example.web::1.0' is not in "
        "the catalog [descriptor_not_found]",
        "2 problem(s)"]


def test_an_error_without_a_place_is_one_line_of_its_kind(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.yaml"
    code, out, err = validate(tmp_path, str(missing))
    assert (code, out, err) == (
        2, "", f"error[LAG-E1010]: {missing} does not exist [model_invalid]\n")
    code, out, _ = validate(tmp_path, str(missing), "--json")
    assert json.loads(out)["problems"] == [
        {"code": "LAG-E1010", "kind": "model_invalid", "severity": "error",
         "message": f"{missing} does not exist", "file": None, "line": None, "column": None,
         "entity": None}]


def test_package_check_and_test_give_problems_in_the_same_json_shape(tmp_path: Path) -> None:
    bad = str(FIXTURES / "bad-manifest")
    env = {"LAGUNA_DATABASE_URL": ""}
    checked = CliRunner().invoke(cli, ["package", "check", bad, "--json"], env=env)
    data = json.loads(checked.stdout)
    assert (checked.exit_code, data["status"]) == (1, "refused")
    code, out, _ = validate(tmp_path, bad, "--json")
    assert data["problems"] == json.loads(out)["problems"]
    tested = CliRunner().invoke(cli, ["test", bad, "--json"], env=env)
    assert tested.exit_code == 2
    assert json.loads(tested.stdout)["problems"] == data["problems"]
