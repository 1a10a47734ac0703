"""A real ``laguna serve`` on a loopback port, for tests that need the HTTP
server itself (the original client; what reaches the server before the
application reads a body)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import socket
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import httpx

#: the address space a served test process may take: a server that regresses
#: into holding a body it was sent fails instead of taking the machine
SERVER_MEMORY_BYTES = 2 * 1024 ** 3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclasses.dataclass
class Server:
    url: str
    workdir: Path
    port: int
    pid: int

    def laguna(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "laguna.cli", "--workdir",
                               str(self.workdir), *args], capture_output=True, text=True,
                              timeout=120, check=True)
        return done.stdout

    def token(self, project: str = "local", user: str = "alice", admin: bool = False) -> str:
        output = self.laguna("token", "create", "--project", project, "--user", user,
                             *(["--admin"] if admin else []))
        return output.strip().splitlines()[-1]

    def resident_kib(self) -> int:
        """The server's resident memory now (VmRSS), in KiB."""
        with open(f"/proc/{self.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc/PID/status")


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (SERVER_MEMORY_BYTES, SERVER_MEMORY_BYTES))


@contextlib.contextmanager
def serve(workdir: Path, *options: str,
          env: t.Mapping[str, str] | None = None) -> t.Iterator[Server]:
    """``laguna --workdir WORKDIR serve --port P OPTIONS`` until the block ends."""
    port = free_port()
    environ = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "laguna.cli", "--workdir", str(workdir), "serve", "--port",
         str(port), *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=environ, preexec_fn=_bounded)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/", timeout=1).status_code == 300:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"laguna serve did not start: {process.stderr.read()!r}"
                                   if process.stderr else "laguna serve did not start")
            time.sleep(0.2)
        yield Server(url, workdir, port, process.pid)
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """``process`` ended: asked to, then killed after ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
