"""A real ``laguna serve`` on a loopback port, for the original client to talk to."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclasses.dataclass
class Server:
    url: str
    workdir: Path

    def laguna(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "laguna.cli", "--workdir",
                               str(self.workdir), *args], capture_output=True, text=True,
                              timeout=120, check=True)
        return done.stdout

    def token(self, project: str = "local", user: str = "alice", admin: bool = False) -> str:
        output = self.laguna("token", "create", "--project", project, "--user", user,
                             *(["--admin"] if admin else []))
        return output.strip().splitlines()[-1]


@pytest.fixture()
def server(tmp_path: Path) -> t.Iterator[Server]:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "laguna.cli", "--workdir", str(tmp_path), "serve", "--port",
         str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
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
        yield Server(url, tmp_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
