"""Processes of a test found by the mark their environment carries, and killed
with a bounded wait for their end (drift tests kill daemons on purpose)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def live(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: its parent has not reaped it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def kill(pid: int, seconds: float = 10.0) -> None:
    """SIGKILL ``pid`` and wait (at most ``seconds``) until it no longer runs."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not live(pid):
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not end within {seconds:g} seconds")


def marked(component: str, command: str, workdir: Path) -> list[int]:
    """The live processes whose environment says they were started for
    ``component`` (``LAGUNA_TRACKED_COMPONENT``) running ``command``, by a
    host of ``workdir`` (its path in their environment: another test running
    at the same time may deploy a component of the same id)."""
    found = []
    mark = f"LAGUNA_TRACKED_COMPONENT={component}".encode()
    within = str(workdir).encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            words = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        except OSError:
            continue
        if mark in environ.split(b"\0") and within in environ \
                and b" ".join(words).decode() == command and live(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)
