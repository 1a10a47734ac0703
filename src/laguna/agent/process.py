"""Running one script process on the host, bounded by the plan's deadline.

Output goes to files, not pipes: a script that starts a daemon (how
applications start services) would otherwise keep a pipe open and block the
plan until the daemon exits. The script gets its own session (process group);
when the deadline passes the whole group is killed. Daemons that put
themselves in a new session are left alone; the cloud removes them with the host.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from laguna.privacy import open_private


class Completed(NamedTuple):
    """How a process ended; ``timed_out`` means it was killed at the deadline."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool


def run_process(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                stdin: bytes | None, deadline: float, log_prefix: Path) -> Completed:
    """Run ``argv`` until it exits or ``deadline`` (``time.monotonic()``) passes."""
    out_path = log_prefix.with_name(log_prefix.name + ".stdout")
    err_path = log_prefix.with_name(log_prefix.name + ".stderr")
    with open(out_path, "wb", opener=open_private) as out, \
            open(err_path, "wb", opener=open_private) as err:
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdout=out, stderr=err,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            start_new_session=True)
        timed_out = False
        try:
            process.communicate(stdin, timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process.pid)
            process.wait()
    return Completed(process.returncode, _read(out_path), _read(err_path), timed_out)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")
