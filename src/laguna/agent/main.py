"""``laguna-agent --name NAME --listen ADDR:PORT --root DIR [--ready-file FILE] [--token T]``.

Once it listens, the agent writes ``--ready-file`` atomically as JSON
``{"name", "url", "pid"}`` (port 0 picks a free port; the file tells which) and
removes it when it stops (SIGTERM or SIGINT). The token may also come from the
environment variable ``LAGUNA_AGENT_TOKEN``, which keeps it out of ``ps``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

from laguna.agent.server import AgentServer

# Nothing typing-only at run time: the agent's start is what this module costs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from laguna.agent.executor import Outcome, PlanExecutor

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
TOKEN_VARIABLE = "LAGUNA_AGENT_TOKEN"
# laguna.cloud marks every process of a host with this variable to find them all
# (daemons included) when it deletes the host; scripts must inherit it.
CLOUD_MARKER = "LAGUNA_CLOUD_HOST"


class AgentConfig:
    """The program's arguments. A plain class: dataclasses (and inspect, ast, dis
    under it) would cost the start ~30 ms for one small class."""

    __slots__ = ("name", "host", "port", "root", "ready_file", "token", "script_env")

    def __init__(self, *, name: str, host: str, port: int, root: Path,
                 ready_file: Path | None, token: str | None,
                 script_env: dict[str, str]) -> None:
        self.name = name
        self.host = host
        self.port = port
        self.root = root
        self.ready_file = ready_file
        self.token = token
        self.script_env = script_env

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, field) for field in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentConfig):
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{field}={value!r}"
                           for field, value in zip(self.__slots__, self._values()))
        return f"AgentConfig({fields})"

    @classmethod
    def from_args(cls, argv: Sequence[str], environ: Mapping[str, str]) -> AgentConfig:
        parser = argparse.ArgumentParser(prog="laguna-agent",
                                         description="Runs execution plans on this host.")
        parser.add_argument("--name", required=True, help="the host's name")
        parser.add_argument("--listen", required=True, metavar="ADDR:PORT",
                            help="address to listen on; port 0 picks a free port")
        parser.add_argument("--root", required=True, type=Path,
                            help="the host's directory: HOME of scripts, agent files")
        parser.add_argument("--ready-file", type=Path,
                            help="written as JSON {name, url, pid} once listening")
        parser.add_argument("--token", help=f"shared secret (or ${TOKEN_VARIABLE})")
        args = parser.parse_args(list(argv))
        host, sep, port = args.listen.rpartition(":")
        if not sep or not host or not port.isdigit():
            parser.error(f"--listen must be ADDR:PORT, not {args.listen!r}")
        root = args.root.resolve()
        return cls(
            name=args.name, host=host.strip("[]"), port=int(port), root=root,
            ready_file=args.ready_file, token=args.token or environ.get(TOKEN_VARIABLE),
            script_env=script_environment(environ, root))


def script_environment(environ: Mapping[str, str], root: Path) -> dict[str, str]:
    """What scripts see: PATH, LANG, HOME = the host's directory, the cloud's marker."""
    env = {"PATH": environ.get("PATH", DEFAULT_PATH), "LANG": environ.get("LANG", "C.UTF-8"),
           "HOME": str(root)}
    if CLOUD_MARKER in environ:
        env[CLOUD_MARKER] = environ[CLOUD_MARKER]
    return env


def write_ready_file(path: Path, name: str, url: str, pid: int) -> None:
    """Write the file under a temporary name and rename it, so readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{pid}.tmp")
    temporary.write_text(json.dumps({"name": name, "url": url, "pid": pid}))
    os.replace(temporary, path)


class DeferredExecutor:
    """The host's ``PlanExecutor``, imported and built when the first plan arrives.

    Running plans needs ast, subprocess, shutil, base64 and most of this
    package; an agent is ready (and answers health checks) without them.
    """

    def __init__(self, root: Path, env: Mapping[str, str]) -> None:
        self.root = root
        self.env = env
        self._executor: PlanExecutor | None = None
        self._lock = threading.Lock()  # two first plans at once must share one executor

    def execute(self, raw: Any, timeout: float) -> Outcome:
        with self._lock:
            if self._executor is None:
                from laguna.agent.executor import PlanExecutor

                self._executor = PlanExecutor(self.root, self.env)
        return self._executor.execute(raw, timeout)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    config = AgentConfig.from_args(sys.argv[1:] if argv is None else argv,
                                   os.environ if environ is None else environ)
    (config.root / "agent").mkdir(parents=True, exist_ok=True)
    executor = DeferredExecutor(config.root, config.script_env)
    server = AgentServer(config.name, (config.host, config.port), executor, config.token)

    def stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if config.ready_file is not None:
        write_ready_file(config.ready_file, config.name, server.url, os.getpid())
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if config.ready_file is not None:
            config.ready_file.unlink(missing_ok=True)
    return 0
