"""Which process runs a deployment, and whether it still lives.

A deployment records its owner (host name, pid and the process's start
time) so that a later command can tell a deployment still running from one
whose process was killed: the pid alone could have been reused.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import typing as t
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class ProcessOwner:
    host: str
    pid: int
    #: the start time of the process as the OS gives it ("" when unknown)
    started: str

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}"


def _proc_stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; it is the text in parentheses.
    return text[text.rfind(")") + 2:].split()


def process_start(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot; "" when unknown."""
    fields = _proc_stat(pid)
    return fields[19] if fields is not None and len(fields) > 19 else ""


def current_owner() -> ProcessOwner:
    pid = os.getpid()
    return ProcessOwner(host=socket.gethostname(), pid=pid, started=process_start(pid))


class Liveness(t.Protocol):
    """Tells whether a process that owns a deployment still runs."""

    def alive(self, owner: ProcessOwner) -> bool:
        ...


class ProcessLiveness:
    """Liveness from the process table of this host; owners on other hosts are
    taken as alive (only their host can tell)."""

    def __init__(self, host: str | None = None) -> None:
        self.host = host or socket.gethostname()

    def alive(self, owner: ProcessOwner) -> bool:
        if owner.host != self.host:
            return True
        fields = _proc_stat(owner.pid)
        if fields is None:
            try:
                os.kill(owner.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return not owner.started  # no /proc: trust the pid if nothing better is known
        if fields[0] in ("Z", "X"):  # killed, not yet reaped by its parent
            return False
        return not owner.started or fields[19] == owner.started
