"""Choosing the cloud of a run: the local cloud of a working directory, or a
recording cloud for ``--dry-run``."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.cloud.base import Cloud
from laguna.cloud.recording import RecordingCloud

STATE_DIR = Path(".laguna") / "cloud"


def open_cloud(workdir: Path, *, dry_run: bool = False, isolation: str = "loopback",
               **options: t.Any) -> Cloud:
    """The cloud whose state lives in ``workdir/.laguna/cloud``; with ``dry_run``
    a :class:`RecordingCloud` that starts and keeps nothing. ``options`` go to
    :class:`laguna.cloud.local.LocalCloud` (agent_command, address_range ...)."""
    if dry_run:
        return RecordingCloud()
    from laguna.cloud.local.driver import LocalCloud   # processes, iproute2: only when real
    if isolation not in ("loopback", "netns"):
        raise ValueError(f"unknown isolation {isolation!r}: loopback or netns")
    return LocalCloud(workdir / STATE_DIR,
                      isolation=t.cast(t.Literal["loopback", "netns"], isolation),
                      **options)
