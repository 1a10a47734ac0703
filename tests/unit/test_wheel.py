"""The built wheel holds the whole package: every file under src/laguna.

The suite runs on an editable install, which reads files from the source
tree; a data file that pyproject's package-data leaves out breaks only a
non-editable install (it did: the TOSCA types), so the wheel is built here
from a copy of the project and its list of files compared with the tree.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "src" / "laguna"


def _tree_files() -> set[str]:
    return {
        f"laguna/{path.relative_to(PACKAGE).as_posix()}"
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def _build_wheel(workdir: Path) -> Path:
    project = workdir / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    shutil.copytree(PACKAGE, project / "src" / "laguna",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = workdir / "dist"
    # no build isolation: the locked setuptools builds it, with no download
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "-w", str(out), str(project)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("laguna-*.whl")
    return wheel


def test_every_file_of_the_package_is_in_the_wheel(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        packaged = {name for name in archive.namelist() if name.startswith("laguna/")}
    tree = _tree_files()
    assert sorted(tree - packaged) == []
    # the data files in particular, by name: the ones a fresh install once lacked
    assert {"laguna/frontends/tosca/types/normative.yaml", "laguna/frontends/tosca/types/amp.yaml",
            "laguna/py.typed", "laguna/store/migrations/script.py.mako"} <= packaged
