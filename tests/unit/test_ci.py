"""The CI entry point (.ci/run): PostgreSQL and MariaDB must not silently go
missing in CI, skip reasons are printed, and README's test command is the one CI runs.

.ci/run runs here on a copy whose postgres.sh and mariadb.sh fail and whose `python3` and
`lint-imports` only print their arguments, so nothing is installed or started.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture()
def ci_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / ".ci" / "postgres.sh").write_text(
        'echo "postgres.sh: no server here" >&2\nreturn 1\n')
    (tmp_path / ".ci" / "mariadb.sh").write_text(
        'echo "mariadb.sh: no server here" >&2\nreturn 1\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("python3", "lint-imports"):
        fake = bin_dir / tool
        fake.write_text(f'#!/bin/sh\necho "{tool} $*"\n')
        fake.chmod(0o755)
    return tmp_path


def run_ci(copy: pathlib.Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    environ["PATH"] = f"{copy / 'bin'}:{environ['PATH']}"
    return subprocess.run(["bash", str(copy / ".ci" / "run")], capture_output=True, text=True,
                          env={**environ, **env}, check=False)


def test_ci_fails_when_postgresql_cannot_be_set_up(ci_copy: pathlib.Path) -> None:
    result = run_ci(ci_copy, CI="true")
    assert result.returncode != 0
    assert "error: no PostgreSQL server" in result.stderr
    assert "pytest" not in result.stdout


def test_ci_fails_when_mariadb_cannot_be_set_up(ci_copy: pathlib.Path) -> None:
    (ci_copy / ".ci" / "postgres.sh").write_text("return 0\n")
    result = run_ci(ci_copy, CI="true")
    assert result.returncode != 0
    assert "error: no MariaDB server; CI must run the takeover's MariaDB tests" in result.stderr
    assert "pytest" not in result.stdout


def test_outside_ci_a_missing_postgresql_only_warns(ci_copy: pathlib.Path) -> None:
    result = run_ci(ci_copy)
    assert result.returncode == 0
    assert "warning: no PostgreSQL server" in result.stderr
    assert "warning: no MariaDB server; the takeover's MariaDB tests will be skipped" in (
        result.stderr)
    # layering and types are checked before the tests run
    # then the wheel's smoke test, then the suite
    assert result.stdout.splitlines()[-4:] == ["lint-imports ", "python3 -m mypy",
                                               "python3 .ci/wheel_smoke.py",
                                               "python3 -m pytest -n 2"]


def test_readme_runs_the_tests_as_ci_does() -> None:
    readme = (ROOT / "README.md").read_text()
    install = "python3 -m pip install -r requirements/test.txt"
    editable = "python3 -m pip install --no-deps -e ."
    command = f"{install} && {editable} && python3 -m pytest -n 2"
    assert f"    {command}\n" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    # the same three steps, in order (CI quietens pip's output)
    steps = [ci.index("-r requirements/test.txt"), ci.index("--no-deps -e ."),
             ci.index("\npython3 -m pytest -n 2")]
    assert steps == sorted(steps)


def test_the_lock_files_pin_every_package_with_hashes() -> None:
    for name in ("runtime.txt", "test.txt"):
        lines = (ROOT / "requirements" / name).read_text().splitlines()
        pins = [line for line in lines if line and not line[0].isspace() and line[0] != "#"]
        assert pins, name
        for pin in pins:
            assert "==" in pin and pin.endswith("\\"), (name, pin)  # version, then hashes
    runtime = set(_pins("runtime.txt"))
    assert runtime <= set(_pins("test.txt"))  # the suite runs the versions users get


def _pins(name: str) -> list[str]:
    return [line.split(" ")[0] for line in (ROOT / "requirements" / name).read_text().splitlines()
            if "==" in line and not line[0].isspace()]


def test_skip_reasons_are_printed() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "-rfEs" in options["addopts"].split()


def test_readme_says_how_to_run_the_postgresql_tests() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "LAGUNA_TEST_PG_URL" in readme
    assert "sudo bash -c '. .ci/postgres.sh" in readme
    assert "LAGUNA_TEST_MYSQL_URL" in readme
    assert "sudo bash -c '. .ci/mariadb.sh" in readme
