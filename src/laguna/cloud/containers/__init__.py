"""The container cloud: servers become podman containers (docs/CLOUD.md)."""

from __future__ import annotations

from pathlib import Path

from laguna.cloud.base import Cloud


def open_cloud(state_dir: Path) -> Cloud:
    """The container cloud whose state lives in ``state_dir`` (a working
    directory's ``.laguna/cloud``), in its ``containers`` folder. podman
    (with runc) must be installed."""
    from laguna.cloud.containers.driver import ContainerCloud
    return ContainerCloud(state_dir)


__all__ = ["open_cloud"]
