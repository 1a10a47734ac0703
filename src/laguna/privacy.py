"""Files private to their owner: what a working directory and a host hold.

A working directory holds every environment's model (secrets included), the
hosts' secrets, their plans and their scripts' output. The ``laguna`` command
and the server set the umask to :data:`UMASK` when they start
(:func:`restrict_umask`), so whatever they and their children create is
0600 / 0700; the places that matter most (the working directory's
``.laguna``, the store, the local cloud's folders, a host's secret, the
agent's files, the address registry) are made private here whatever the
umask, and tightened when an older, looser one is opened again.

Standard library only: the agent uses it too.
"""

from __future__ import annotations

import os
from pathlib import Path

#: no permission for the group or others
UMASK = 0o077


def restrict_umask() -> None:
    """Make every file and folder this process creates from now on private."""
    os.umask(UMASK)


def private_directory(path: Path) -> os.stat_result:
    """Make ``path`` a folder of mode 0700 (made if missing, tightened if looser);
    its status, whose owner callers in shared places check."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = path.stat()
    if status.st_mode & 0o7777 != 0o700:
        os.chmod(path, 0o700)
    return status


def tighten(path: Path) -> None:
    """Take the group's and others' permissions off ``path`` if it exists."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if mode & 0o077:
        os.chmod(path, mode & 0o7700)


def open_private(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open` that creates files 0600."""
    return os.open(path, flags, 0o600)


def write_private(path: Path, content: bytes, *, exclusive: bool = False) -> None:
    """Write ``content`` to ``path``, a file of mode 0600 (an existing one is
    tightened first); ``exclusive``: fail if it exists."""
    if not exclusive:
        tighten(path)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    with open(path, "wb", opener=lambda name, _: open_private(name, flags)) as file:
        file.write(content)
