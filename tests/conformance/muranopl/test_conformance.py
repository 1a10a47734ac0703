"""Runs every MuranoPL conformance package with `laguna test`'s runner.

Each package under packages/ holds TestFixture classes; every test method is a
pytest case. known_failures.toml may list "Class.method" entries with a reason;
those are expected to fail (xfail, strict, so a fix is noticed).
"""

from __future__ import annotations

import pathlib
import tomllib
import typing as t

import pytest

from laguna.corelib.services import RecordingServices
from laguna.testing.runner import TestRunner as PackageRunner

HERE = pathlib.Path(__file__).parent
PACKAGES = sorted(p for p in (HERE / "packages").iterdir() if (p / "manifest.yaml").is_file())
# packages the tested ones may require; every run gets this folder as `-l`
LIBS = HERE / "libs"
KNOWN = HERE / "known_failures.toml"
# packages whose tests deploy: they run against recording services (`laguna test --dry-run`)
DRY_RUN = {"corelib"}
KNOWN_FAILURES: dict[str, str] = (
    tomllib.loads(KNOWN.read_text()).get("failures", {}) if KNOWN.is_file() else {})


def _cases() -> list[t.Any]:
    params = []
    for package in PACKAGES:
        runner = PackageRunner(package, [LIBS])
        for cls, method in runner.select(()):
            name = f"{cls.name}.{method}"
            marks = []
            if name in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True))
            params.append(pytest.param(package, cls.name, method, id=name, marks=marks))
    return params


@pytest.mark.parametrize(("package", "class_name", "method"), _cases())
def test_muranopl(package: pathlib.Path, class_name: str, method: str) -> None:
    runner = PackageRunner(package, [LIBS],
                           services=RecordingServices if package.name in DRY_RUN else None)
    cls = runner.registry.find(class_name, runner.package.package)
    result = runner.run_one(cls, method)
    assert result.passed, f"{result.message}\n{result.trace}"


@pytest.mark.parametrize("package", PACKAGES, ids=[p.name for p in PACKAGES])
def test_package_with_laguna_test(package: pathlib.Path) -> None:
    """`laguna test PACKAGE` itself: exactly the known failures fail, and the
    exit code and summary line say so."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "from laguna.cli.main import main; main()", "test", str(package),
         "-l", str(LIBS), *(["--dry-run"] if package.name in DRY_RUN else [])],
        capture_output=True, text=True, check=False)
    lines = result.stdout.splitlines()
    failed = sorted(line.split()[1] for line in lines if line.startswith("FAIL "))
    passed = [line for line in lines if line.startswith("PASS ")]
    prefix = f"conformance.{package.name}."
    expected = sorted(name for name in KNOWN_FAILURES if name.startswith(prefix))
    assert failed == expected, result.stdout + result.stderr
    assert lines[-1] == f"{len(passed)} passed, {len(failed)} failed"
    assert result.returncode == (1 if expected else 0)
