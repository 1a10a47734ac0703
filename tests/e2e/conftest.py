"""End-to-end tests: the examples deployed on the local cloud through the CLI."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from .helpers import laguna, leftovers


@pytest.fixture
def workdir(tmp_path: Path) -> t.Iterator[Path]:
    """A working directory; whatever a test left deployed is undeployed after it."""
    yield tmp_path
    if (tmp_path / ".laguna" / "laguna.sqlite").is_file():
        _, environments = laguna(tmp_path, "environments")
        for environment in (environments.get("environments", [])
                            if isinstance(environments, dict) else []):
            if environment["state"] not in ("undeployed", "pending"):
                laguna(tmp_path, "undeploy", environment["name"])
    if (tmp_path / ".laguna" / "cloud").is_dir():
        marked, _, _ = leftovers(tmp_path)
        assert not marked, f"processes left: {marked}"
