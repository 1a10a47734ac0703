"""Runs every TOSCA conformance case through the real ``laguna`` commands.

A case is a folder under cases/ holding the blueprint (``service.yaml`` or
``.yml``, a CSAR
folder ``csar/``, or ``zip/``, zipped by the runner into ``<case>.zip``) and
``case.yaml``:

- ``command``: ``validate`` or ``deploy`` (``--json``), ``args``: more arguments;
- ``status``: the expected status; ``problems``: for a rejection, every problem
  as ``file:line:col: kind: entity: message``, exactly and in order;
- ``expect``: a part of the JSON result (maps compare key by key, lists of maps
  item by item, everything else exactly);
- ``actions``: day-2 actions run in order after the deploy, each ``{object, method,
  args: [K=V], create: [file], remove: [file], status, expect, files}`` (``create``
  and ``remove`` touch or delete files of the working directory first; ``files``
  maps a file of the working directory to the words it must hold after); ``laguna
  action NAME OBJECT METHOD --arg K=V... --json`` must give ``status`` and
  ``expect``; ``{case}`` and ``{work}`` in expected text are the case's folder and
  the working directory;
- ``undeploy``: the part of ``laguna undeploy --json`` expected afterwards;
  ``after_undeploy``: files of the working directory and the words they hold then;
  ``gone``: files in the working directory holding pids that must be dead then.

A case with a ``served/`` folder has it served on a loopback port for the
run; ``{server}`` in its yaml files and in ``case.yaml`` is that server's URL.

known_failures.toml may list cases with a reason (xfail, strict).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import tomllib
import typing as t
import zipfile

import pytest
import yaml
from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.cli.workdirs import default_wiring
from tests.unit.frontends.tosca.loopback import serve

HERE = pathlib.Path(__file__).parent
CASES = sorted(p for p in (HERE / "cases").iterdir() if (p / "case.yaml").is_file())
KNOWN = HERE / "known_failures.toml"
KNOWN_FAILURES: dict[str, str] = (
    tomllib.loads(KNOWN.read_text()).get("failures", {}) if KNOWN.is_file() else {})


def _params() -> list[t.Any]:
    return [pytest.param(case, id=case.name, marks=[pytest.mark.xfail(
        reason=KNOWN_FAILURES[case.name], strict=True)] if case.name in KNOWN_FAILURES else [])
        for case in CASES]


def blueprint(case: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    if (case / "zip").is_dir():
        target = tmp_path / f"{case.name}.zip"
        with zipfile.ZipFile(target, "w") as archive:
            for file in sorted((case / "zip").rglob("*")):
                if file.is_file():
                    archive.write(file, file.relative_to(case / "zip").as_posix())
        return target
    if (case / "csar").is_dir():
        return case / "csar"
    # .yml: for a file that must not parse (yamlio's own tests read every *.yaml)
    return case / "service.yml" if (case / "service.yml").is_file() else case / "service.yaml"


def contains(actual: t.Any, expected: t.Any, where: str = "") -> None:
    """``expected`` is ``actual`` where maps may leave keys out."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a map, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} is missing from {sorted(actual)}"
            contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list) and any(isinstance(e, dict) for e in expected):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{where}: {actual!r} has not {len(expected)} items"
        for index, (got, want) in enumerate(zip(actual, expected)):
            contains(got, want, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def problem_lines(error: t.Mapping[str, t.Any], folder: pathlib.Path) -> list[str]:
    """Each problem as a line, its file relative to ``folder`` (problems name
    their files as the command was given them: here, absolute)."""
    def shown(file: str | None) -> str | None:
        prefix = f"{folder}/"
        return file[len(prefix):] if file and file.startswith(prefix) else file
    return [f"{shown(p['file'])}:{p['line']}:{p['column']}: {p['kind']}: {p['entity']}: "
            f"{p['message']}" for p in error.get("problems", [])]


def run(*args: str) -> tuple[int, t.Any]:
    # the CLI's own wiring: every built-in front end, the local cloud for --cloud local
    result = CliRunner().invoke(cli, list(args), obj=default_wiring(), catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


def _alive(pid: int) -> bool:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def act(step: t.Mapping[str, t.Any], name: str, case: pathlib.Path,
        workdir: pathlib.Path) -> None:
    """One day-2 action of a case, and what it must print."""
    for file in step.get("create", []):
        (workdir / file).touch()
    for file in step.get("remove", []):
        (workdir / file).unlink(missing_ok=True)
    args = [a for pair in step.get("args", []) for a in ("--arg", str(pair))]
    code, result = run("--workdir", str(workdir), "action", name, str(step["object"]),
                       str(step["method"]), *args, "--json")
    status = step.get("status", "ok")
    where = f"action {step['object']} {step['method']}"
    assert result["status"] == status, f"{where}: {json.dumps(result.get('error'))}"
    assert code == {"ok": 0, "failed": 1}.get(status, 2), where
    contains(result, _placed(step.get("expect", {}), case, workdir), where)
    for file, words in step.get("files", {}).items():
        assert (workdir / file).read_text().split() == words, f"{where}: {file}"


def _placed(value: t.Any, case: pathlib.Path, workdir: pathlib.Path) -> t.Any:
    if isinstance(value, dict):
        return {k: _placed(v, case, workdir) for k, v in value.items()}
    if isinstance(value, list):
        return [_placed(v, case, workdir) for v in value]
    if isinstance(value, str):
        return value.replace("{case}", str(case)).replace("{work}", str(workdir))
    return value


def with_server(case: pathlib.Path, tmp_path: pathlib.Path, url: str) -> pathlib.Path:
    """A copy of ``case`` where ``{server}`` is ``url``."""
    copy = tmp_path / "case" / case.name
    shutil.copytree(case, copy)
    for file in [*copy.rglob("*.yaml"), *copy.rglob("*.yml")]:
        file.write_text(file.read_text().replace("{server}", url))
    return copy


@pytest.mark.parametrize("case", _params())
def test_tosca(case: pathlib.Path, tmp_path: pathlib.Path,
               monkeypatch: pytest.MonkeyPatch) -> None:
    with contextlib.ExitStack() as stack:
        if (case / "served").is_dir():
            served = stack.enter_context(serve(case / "served"))
            case = with_server(case, tmp_path, served.url)
        run_case(case, tmp_path, monkeypatch)


def run_case(case: pathlib.Path, tmp_path: pathlib.Path,
             monkeypatch: pytest.MonkeyPatch) -> None:
    spec = yaml.safe_load((case / "case.yaml").read_text())
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    path = blueprint(case, tmp_path)
    args = [str(a).replace("{case}", str(case)) for a in spec.get("args", [])]
    if spec["command"] == "validate":
        code, result = run("validate", str(path), "--json", *args)
    else:
        code, result = run("--workdir", str(workdir), spec["command"], str(path), "--json",
                           *args)
    status = spec.get("status", "ok")
    assert result["status"] == status, json.dumps(result.get("error"), indent=2)
    assert code == {"ok": 0, "failed": 1}.get(status, 2)
    if "problems" in spec:
        assert result["error"]["kind"] == spec["problems"][0].split(": ")[1]
        assert problem_lines(result["error"], path.parent) == spec["problems"]
    contains(result, _placed(spec.get("expect", {}), case, workdir))
    for step in spec.get("actions", []):
        act(step, result["name"], case, workdir)
    if "undeploy" in spec:
        name = result["name"]
        code, undone = run("--workdir", str(workdir), "undeploy", name, "--json")
        contains(undone, spec["undeploy"])
        for file, words in spec.get("after_undeploy", {}).items():
            assert (workdir / file).read_text().split() == words, f"after undeploy: {file}"
        for pidfile in spec.get("gone", []):
            pid = int((workdir / pidfile).read_text().split()[0])
            assert not _alive(pid), f"process {pid} of {pidfile} survived undeploy"
    elif spec["command"] == "deploy" and status != "rejected":
        # every case cleans up what it started
        run("--workdir", str(workdir), "undeploy", result["name"], "--json")
    os.chdir(HERE)
