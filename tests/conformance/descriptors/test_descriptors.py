"""Runs every assembly-descriptor conformance case through the command line.

A case (cases/*.yaml) holds the files it needs (descriptors; written to a
scratch folder that is also a ``-l`` catalog next to catalog/) and steps:
a command line, the result expected (keys given are compared exactly, and
``states`` compares only each component's state, ``names`` the
(name, language, state) of each environment, ``reports_warning`` one
warning report's text) and the exact lines the
resource scripts logged (catalog/*: ``TRANSITION INSTANCE [RELATIONSHIP
SOURCE->TARGET] [label=...]``). Paths of the scratch folder read ``CASE/`` in
expected messages, those of catalog/ ``CATALOG``. known_failures.toml may list cases with a reason.

Every case has a catalog store of its own. A step ``package ...`` runs
``laguna package`` on it (``CATALOG/`` and ``CASE/`` in its arguments name
those folders; only ``exit_code`` and ``stdout``, its lines as lists of words,
are expected); a step's
``libs`` replaces the default ``-l`` folders (``[]``: none), and ``remove``
deletes a file or folder of the case before the step runs.
"""

from __future__ import annotations

import json
import pathlib
import shlex
import shutil
import tomllib
import typing as t

import pytest
import yaml
from click.testing import CliRunner

from laguna.cli.main import cli

HERE = pathlib.Path(__file__).parent
CATALOG = HERE / "catalog"
CASES = sorted((HERE / "cases").glob("*.yaml"))
KNOWN = HERE / "known_failures.toml"
KNOWN_FAILURES: dict[str, str] = (
    tomllib.loads(KNOWN.read_text()).get("failures", {}) if KNOWN.is_file() else {})


def _params() -> list[t.Any]:
    params = []
    for path in CASES:
        marks = []
        if path.stem in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[path.stem], strict=True))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def run_step(case_dir: pathlib.Path, workdir: pathlib.Path, command: str,
             libs: list[str] | None = None) -> dict[str, t.Any]:
    env = {"LAGUNA_DATABASE_URL": f"sqlite:///{workdir.parent / 'catalog.sqlite'}"}
    if command.startswith("package "):
        args = [a.replace("CATALOG/", f"{CATALOG}/").replace("CASE/", f"{case_dir}/")
                for a in shlex.split(command)]
        done = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
        return {"exit_code": done.exit_code, "stdout": [
            line.split() for line in done.stdout.splitlines() if not line.startswith("\u2500")]}
    folders = [str(CATALOG), str(case_dir)] if libs is None else \
        [p.replace("CASE/", f"{case_dir}/") for p in libs]
    args = shlex.split(command) + [a for p in folders for a in ("-l", p)] + [
        "--workdir", str(workdir), "--json"]
    verb = args[0]
    if verb == "deploy" and not args[1].startswith("assembly::"):
        args[1] = str(case_dir / args[1])
    if "--descriptor" in args:
        at = args.index("--descriptor") + 1
        args[at] = str(case_dir / args[at])
    if "--inputs" in args:
        at = args.index("--inputs") + 1
        args[at] = str(case_dir / args[at])
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    data = json.loads(result.stdout)
    if verb == "environments":
        data = {"names": [(e["name"], e["language"], e["state"])
                          for e in data["environments"]]}
    data["exit_code"] = result.exit_code
    text = json.dumps(data).replace(str(case_dir) + "/", "CASE/")
    return t.cast(dict[str, t.Any], json.loads(text.replace(str(CATALOG.resolve()),
                                                            "CATALOG")))


@pytest.mark.parametrize("path", _params())
def test_case(path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    case = yaml.safe_load(path.read_text())
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    for name, text in (case.get("files") or {}).items():
        (case_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (case_dir / name).write_text(text)
    workdir = tmp_path / "work"
    workdir.mkdir()
    log = workdir / "log.txt"
    for number, step in enumerate(case["steps"], 1):
        log.unlink(missing_ok=True)
        if "remove" in step:
            shutil.rmtree(case_dir / step["remove"])
        data = run_step(case_dir, workdir, step["run"], step.get("libs"))
        where = f"step {number} ({step['run']})"
        for key, wanted in (step.get("expect") or {}).items():
            if key == "states":
                assert {k: v["state"] for k, v in data["components"].items()} == wanted, where
            elif key == "reports_warning":
                assert wanted in [r["text"] for r in data["reports"]
                                  if r["level"] == "warning"], where
            elif key == "names":
                assert data[key] == [tuple(n) for n in wanted], where
            elif key == "error":
                assert {k: data["error"].get(k) for k in wanted} == wanted, where
            else:
                assert data[key] == wanted, f"{where}: {key}"
        if "log" in step:
            lines = log.read_text().splitlines() if log.exists() else []
            assert lines == (step["log"] or "").splitlines(), f"{where}: logged {lines}"
