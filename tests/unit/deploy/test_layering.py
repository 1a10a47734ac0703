"""The deployment layer's public names, and what it must not import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import laguna.deploy

FORBIDDEN = ("laguna.lang", "laguna.yaql", "laguna.corelib", "laguna.testing")
SRC = Path(__file__).parents[3] / "src"


def test_exported_members() -> None:
    assert laguna.deploy.__all__ == [
        "Blueprint", "Component", "DeployError", "ErrorInfo", "Frontend", "FrontendRegistry",
        "Outcome", "PrepareOptions", "Rejected", "Report", "Reporter", "Result", "RunContext",
        "Service", "StoredPackage", "StoredState", "Workdir", "default_registry",
        "resolve_workdir"]


def test_the_layer_knows_no_blueprint_language() -> None:
    modules = sorted(f"laguna.deploy.{p.stem}" for p in (SRC / "laguna" / "deploy").glob("*.py"))
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules) +
            f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(SRC)}).stdout
    assert out == "[]\n"
