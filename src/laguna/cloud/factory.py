"""Choosing the cloud of a run: the local cloud of a working directory, with
the settings it keeps, or a recording cloud for ``--dry-run``."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.cloud.base import Cloud
from laguna.cloud.recording import RecordingCloud

STATE_DIR = Path(".laguna") / "cloud"

if t.TYPE_CHECKING:
    from laguna.cloud.local.driver import LocalCloud


def local_cloud(state_dir: Path, *, isolation: str | None = None,
                address_range: str | None = None, **options: t.Any) -> LocalCloud:
    """The local cloud whose state lives in ``state_dir``, with the isolation and
    address range kept there (changed, while it holds no stack, by the ones
    given). ``options`` go to :class:`laguna.cloud.local.LocalCloud`."""
    # processes and iproute2 only when real
    from laguna.cloud.local.driver import LocalCloud
    from laguna.cloud.local.settings import choose_settings
    settings = choose_settings(state_dir, isolation, address_range)
    return LocalCloud(state_dir, isolation=settings.isolation,
                      address_range=settings.address_range, **options)


def open_cloud(workdir: Path, *, dry_run: bool = False, isolation: str | None = None,
               **options: t.Any) -> Cloud:
    """The cloud whose state lives in ``workdir/.laguna/cloud``; with ``dry_run``
    a :class:`RecordingCloud` that starts and keeps nothing."""
    if dry_run:
        return RecordingCloud()
    return local_cloud(workdir / STATE_DIR, isolation=isolation, **options)
