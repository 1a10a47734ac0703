"""The container cloud: servers become podman containers (docs/CLOUD.md)."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.cloud.base import Cloud


def open_cloud(state_dir: Path, *,
               progress: t.Callable[[str], None] | None = None) -> Cloud:
    """The container cloud whose state lives in ``state_dir`` (a working
    directory's ``.laguna/cloud``), in its ``containers`` folder. podman
    (with runc) must be installed. ``progress`` is told of each step (image
    builds, container starts); without it they go to the log
    (``laguna.cloud.containers``, level INFO)."""
    from laguna.cloud.containers.driver import ContainerCloud
    return ContainerCloud(state_dir, progress=progress)


__all__ = ["open_cloud"]
