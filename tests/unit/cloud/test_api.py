"""The cloud package's public names, and that it stays free of MuranoPL."""

from __future__ import annotations

import ast
from pathlib import Path

import laguna.cloud

FORBIDDEN = ("laguna.lang", "laguna.yaql", "laguna.corelib", "laguna.testing")


def test_exported_members() -> None:
    assert sorted(laguna.cloud.__all__) == [
        "Cloud", "CloudError", "Host", "HostError", "IsolationError", "RecordingCloud",
        "StackNotFound", "StackResult", "TemplateError", "open_cloud"]


def test_cloud_imports_nothing_of_muranopl() -> None:
    root = Path(laguna.cloud.__file__).parent
    imported = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
    assert sorted(m for m in imported if m.startswith(FORBIDDEN)) == []
    # laguna.privacy: the rule for private files (standard library only); the
    # ssh cloud's inventory is YAML read with line numbers (yamlio, source)
    assert sorted(m for m in imported if m.startswith("laguna.")
                  and not m.startswith("laguna.cloud")) == [
        "laguna.errors", "laguna.privacy", "laguna.source", "laguna.yamlio"]


def test_dry_run_cloud_keeps_nothing(tmp_path: Path) -> None:
    cloud = laguna.cloud.open_cloud(tmp_path, dry_run=True)
    assert isinstance(cloud, laguna.cloud.RecordingCloud)
    cloud.push_stack("env-1", {"resources": {"vm": {"type": "OS::Nova::Server"}}})
    assert list(tmp_path.iterdir()) == []


def test_open_cloud_is_the_working_directorys_local_cloud(tmp_path: Path) -> None:
    from laguna.cloud.local import LocalCloud
    cloud = laguna.cloud.open_cloud(tmp_path, agent_command=["true"])
    assert isinstance(cloud, LocalCloud)
    assert cloud.directory == (tmp_path / ".laguna" / "cloud").resolve()
