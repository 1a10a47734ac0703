"""The ssh cloud: existing servers, listed in an inventory, reached over SSH.

``laguna deploy --cloud ssh --inventory FILE``: each server of a stack takes a
free machine of the inventory whose labels match, laguna copies its agent
there and starts it under the login user (``sudo`` where the inventory says
so), and removes everything it put there when the stack is deleted. See
docs/CLOUD.md, "ssh: existing servers".
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.cloud.base import Cloud

__all__ = ["open_cloud"]


def open_cloud(state_dir: Path, inventory: Path | None, *,
               progress: t.Callable[[str], None] | None = None) -> Cloud:
    """The ssh cloud whose state lives in ``state_dir/ssh`` (``state_dir`` is a
    working directory's ``.laguna/cloud``), on the machines of ``inventory``;
    None: the inventory this state folder remembers (a CloudError if none).
    ``progress`` hears what it records (host keys) and cleans; stderr without it."""
    # paramiko only when this cloud is used
    from laguna.cloud.ssh.driver import SshCloud
    if progress is None:
        return SshCloud(state_dir, inventory)
    return SshCloud(state_dir, inventory, notify=progress)
