"""Starting a host's agent so that everything it starts can be killed with the host.

Two ways to contain a host's processes:

``pidns`` (root)
    The agent runs as the first process of a new PID namespace
    (``unshare --pid --fork --kill-child``). Killing the launcher kills the
    agent, and the kernel then kills every process of the namespace, daemons
    that detached with ``setsid`` or a double fork included.
``subreaper`` (anyone)
    The agent is made a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``,
    kept across ``exec``), so orphaned descendants stay below it; at deletion
    every descendant found in /proc is killed.

In both modes every process of a host carries ``LAGUNA_CLOUD_HOST=<marker>`` in
its environment; a scan for the marker finds processes a crash left behind
(started before their pid was recorded) and daemons whose ancestry was lost.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import json
import os
import shutil
import signal
import subprocess
import time
import typing as t
from pathlib import Path

from laguna.privacy import open_private

MARKER = "LAGUNA_CLOUD_HOST"
PR_SET_CHILD_SUBREAPER = 36
Containment = t.Literal["pidns", "subreaper"]


@dataclasses.dataclass(frozen=True, slots=True)
class Launch:
    pid: int                 # the process we started (unshare, or the agent itself)
    start_time: int          # from /proc/<pid>/stat, to tell a reused pid apart
    marker: str
    containment: Containment


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses.
    return [text[:text.index(" ")], "comm", *text[text.rindex(")") + 2:].split()]


def start_time(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[21]) if fields is not None else None


def alive(pid: int, started: int | None = None) -> bool:
    """True if ``pid`` runs (not a zombie) and, if given, started at ``started``."""
    fields = _stat(pid)
    if fields is None or fields[2] in ("Z", "X"):
        return False
    return started is None or int(fields[21]) == started


@functools.cache
def default_containment() -> Containment:
    """``pidns`` where a PID namespace can be made here (root, util-linux's
    unshare, not forbidden by a container), else ``subreaper``."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "subreaper"
    probe = subprocess.run(["unshare", "--pid", "--fork", "--kill-child", "true"],
                           capture_output=True)
    return "pidns" if probe.returncode == 0 else "subreaper"


def _set_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def spawn(command: t.Sequence[str], *, env: t.Mapping[str, str], cwd: Path,
          log: Path, marker: str, containment: Containment,
          netns: str | None = None) -> tuple[Launch, subprocess.Popen[bytes]]:
    argv = list(command)
    if containment == "pidns":
        argv = ["unshare", "--pid", "--fork", "--kill-child", *argv]
    if netns is not None:
        argv = ["ip", "netns", "exec", netns, *argv]
    with open(log, "ab", opener=open_private) as out:
        process = subprocess.Popen(
            argv, env={**env, MARKER: marker}, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_set_subreaper if containment == "subreaper" else None)
    started = start_time(process.pid)
    return Launch(process.pid, started or 0, marker, containment), process


def read_ready(ready: Path) -> dict[str, t.Any] | None:
    """An agent's ready file (``{name, url, pid}``), or None until it is written."""
    try:
        data = json.loads(ready.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def wait_ready(ready: Path, launch: Launch, timeout: float) -> dict[str, t.Any] | None:
    """The agent's ready file once written; None if the agent died or time ran out.

    Polls with a backoff from half a millisecond, so a fast agent costs little."""
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        data = read_ready(ready)
        if data is not None:
            return data
        if not alive(launch.pid, launch.start_time) or time.monotonic() > deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                tree.setdefault(int(fields[3]), []).append(int(entry))
    return tree


def descendants(pid: int, tree: dict[int, list[int]] | None = None) -> set[int]:
    """Live processes below ``pid`` (in ``tree``, parent -> children, if given)."""
    tree = _children() if tree is None else tree
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return {p for p in found if alive(p)}


def pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def namespace_inits(launch: Launch, tree: dict[int, list[int]]) -> dict[str, tuple[int, int]]:
    """The PID namespaces made below a ``pidns`` launcher, each with its first
    process (pid, start time): the process whose parent is outside it."""
    inits: dict[str, tuple[int, int]] = {}
    for pid in descendants(launch.pid, tree):
        fields = _stat(pid)
        namespace = pid_namespace(pid)
        if fields is None or namespace is None:
            continue
        if pid_namespace(int(fields[3])) != namespace:
            inits[namespace] = (pid, int(fields[21]))
    return inits


def in_live_namespaces(inits: t.Mapping[str, tuple[int, int]]) -> set[int]:
    """Live processes of the namespaces in ``inits`` whose first process still runs.

    A namespace is known by its inode number alone, and the kernel hands a
    freed one to the next namespace made, on this machine, by anyone (another
    cloud starting its agents). Once a namespace's first process is gone, the
    kernel has killed the rest of it; a process that shows the same number
    after that belongs to a newer namespace and must be left alone. The first
    process is checked after the scan: alive then (same start time), it lived
    throughout, so its namespace's number meant that namespace all along."""
    if not inits:
        return set()
    members: dict[str, set[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            namespace = pid_namespace(int(entry))
            if namespace is not None and namespace in inits and alive(int(entry)):
                members.setdefault(namespace, set()).add(int(entry))
    return {pid for namespace, found in members.items()
            if alive(*inits[namespace]) for pid in found}


def marked(prefix: str) -> dict[int, str]:
    """Live processes whose marker starts with ``prefix``: pid -> marker."""
    needle = f"\0{MARKER}={prefix}".encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = b"\0" + f.read()
        except OSError:
            continue
        at = environ.find(needle)
        if at >= 0 and alive(int(entry)):
            end = environ.find(b"\0", at + 1)
            item = environ[at + 1:end if end >= 0 else len(environ)]
            found[int(entry)] = item.split(b"=", 1)[1].decode()
    return found


def kill(launches: t.Sequence[Launch | None], marker: str,
         timeout: float = 10.0) -> bool:
    """Kill hosts' processes: the launchers, what they contain, what carries a
    marker starting with ``marker``. True once none is left (bounded by
    ``timeout``)."""
    deadline = time.monotonic() + timeout
    running = [launch for launch in launches
               if launch is not None and alive(launch.pid, launch.start_time)]
    inits: dict[str, tuple[int, int]] = {}
    tree = _children()
    for launch in running:
        if launch.containment == "pidns":
            inits.update(namespace_inits(launch, tree))
    while True:
        victims = set(marked(marker)) | in_live_namespaces(inits)
        tree = _children()
        for launch in running:
            if alive(launch.pid, launch.start_time):
                victims.add(launch.pid)
                victims |= descendants(launch.pid, tree)
        victims.discard(os.getpid())
        if not victims:
            return True
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
