"""Local clouds for tests, each checked at the end to have left nothing behind."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.cloud.local.driver import LocalCloud

from .helpers import AGENT, leftovers


@pytest.fixture
def make_cloud(tmp_path: Path) -> t.Iterator[t.Callable[..., LocalCloud]]:
    made: list[LocalCloud] = []

    def make(directory: Path | None = None, **options: t.Any) -> LocalCloud:
        options.setdefault("agent_command", AGENT)
        options.setdefault("ready_timeout", 30.0)
        cloud = LocalCloud(directory or tmp_path / ".laguna" / "cloud", **options)
        made.append(cloud)
        return cloud

    yield make
    for cloud in made:
        for stack in cloud.stacks():
            cloud.delete_stack(stack)
        assert leftovers(cloud) == ({}, [])


@pytest.fixture
def cloud(make_cloud: t.Callable[..., LocalCloud]) -> LocalCloud:
    return make_cloud()
