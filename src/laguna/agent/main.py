"""``laguna-agent --name NAME --listen ADDR:PORT --root DIR --secret-file KEY``
``[--ready-file FILE] [--max-request BYTES]``.

Once it listens, the agent writes ``--ready-file`` atomically as JSON
``{"name", "url", "pid"}`` (port 0 picks a free port; the file tells which),
readable by its owner only, and removes it when it stops (SIGTERM or SIGINT).

Every request must be signed with the host's secret (``signing``): the agent
reads it from ``--secret-file`` (a file no one but its owner may read) or, on
a machine where files are awkward, from the environment variable
``LAGUNA_AGENT_TOKEN``; never from the command line, which ``ps`` shows to
every user. Without a secret the agent does not start.
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

from laguna.agent.protocol import MAX_REQUEST
from laguna.agent.server import AgentServer
from laguna.privacy import private_directory, write_private

# Nothing typing-only at run time: the agent's start is what this module costs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from laguna.agent.executor import Outcome, PlanExecutor

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
SECRET_VARIABLE = "LAGUNA_AGENT_TOKEN"
#: shorter secrets are refused: the cloud makes 64 hex digits (256 bits)
MIN_SECRET = 32
# laguna.cloud marks every process of a host with this variable to find them all
# (daemons included) when it deletes the host; scripts must inherit it.
CLOUD_MARKER = "LAGUNA_CLOUD_HOST"


class AgentConfig:
    """The program's arguments. A plain class: dataclasses (and inspect, ast, dis
    under it) would cost the start ~30 ms for one small class."""

    __slots__ = ("name", "host", "port", "root", "ready_file", "secret", "max_request",
                 "script_env")

    def __init__(self, *, name: str, host: str, port: int, root: Path,
                 ready_file: Path | None, secret: str, max_request: int,
                 script_env: dict[str, str]) -> None:
        self.name = name
        self.host = host
        self.port = port
        self.root = root
        self.ready_file = ready_file
        self.secret = secret
        self.max_request = max_request
        self.script_env = script_env

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, field) for field in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentConfig):
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        # the secret stays out of logs and tracebacks
        fields = ", ".join(f"{field}={'...' if field == 'secret' else repr(value)}"
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
        parser.add_argument("--secret-file", type=Path,
                            help="the host's secret, which signs every request and "
                                 f"answer (else ${SECRET_VARIABLE})")
        parser.add_argument("--max-request", type=int, default=MAX_REQUEST, metavar="BYTES",
                            help="the largest request body read (default: %(default)s)")
        args = parser.parse_args(list(argv))
        host, sep, port = args.listen.rpartition(":")
        if not sep or not host or not port.isdigit():
            parser.error(f"--listen must be ADDR:PORT, not {args.listen!r}")
        if args.max_request <= 0:
            parser.error(f"--max-request must be a positive number of bytes, "
                         f"not {args.max_request}")
        root = args.root.resolve()
        return cls(
            name=args.name, host=host.strip("[]"), port=int(port), root=root,
            ready_file=args.ready_file, secret=read_secret(parser, args.secret_file, environ),
            max_request=args.max_request, script_env=script_environment(environ, root))


def read_secret(parser: argparse.ArgumentParser, path: Path | None,
                environ: Mapping[str, str]) -> str:
    """The host's secret, from a private file or the environment; the program
    ends (exit 2) when there is none, or when others could read it too."""
    if path is None:
        secret = environ.get(SECRET_VARIABLE, "")
        source = f"${SECRET_VARIABLE}"
        if not secret:
            parser.error(f"a secret is needed: --secret-file FILE or ${SECRET_VARIABLE} "
                         "(the agent does not run unauthenticated)")
    else:
        source = f"--secret-file {path}"
        try:
            with open(path, encoding="ascii") as file:
                mode = os.fstat(file.fileno()).st_mode
                secret = file.read().strip()
        except (OSError, ValueError) as error:
            parser.error(f"{source}: cannot read the secret: {error}")
        if mode & 0o077:
            parser.error(f"{source}: the secret is readable by others (mode "
                         f"{mode & 0o777:o}); it must be private to its owner (0600)")
    if len(secret) < MIN_SECRET:
        parser.error(f"{source}: the secret is {len(secret)} characters long; "
                     f"at least {MIN_SECRET} are needed")
    return secret


def script_environment(environ: Mapping[str, str], root: Path) -> dict[str, str]:
    """What scripts see: PATH, LANG, HOME = the host's directory, the cloud's marker."""
    env = {"PATH": environ.get("PATH", DEFAULT_PATH), "LANG": environ.get("LANG", "C.UTF-8"),
           "HOME": str(root)}
    if CLOUD_MARKER in environ:
        env[CLOUD_MARKER] = environ[CLOUD_MARKER]
    return env


def write_ready_file(path: Path, name: str, url: str, pid: int) -> None:
    """Write the file under a temporary name and rename it, so readers never see half.
    0600 whatever the umask: the agent's address is no one else's business."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{pid}.tmp")
    write_private(temporary, json.dumps({"name": name, "url": url, "pid": pid}).encode())
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

    def _built(self) -> PlanExecutor:
        with self._lock:
            if self._executor is None:
                from laguna.agent.executor import PlanExecutor

                self._executor = PlanExecutor(self.root, self.env)
            return self._executor

    def execute(self, raw: Any, timeout: float, component: str | None = None,
                files: tuple[str, ...] = ()) -> Outcome:
        return self._built().execute(raw, timeout, component, files)

    def drift(self) -> dict[str, Any]:
        return self._built().drift()


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    config = AgentConfig.from_args(sys.argv[1:] if argv is None else argv,
                                   os.environ if environ is None else environ)
    # plans carry an environment's secrets: the agent's folder is its owner's
    # alone even when it existed or the umask is loose
    private_directory(config.root / "agent")
    executor = DeferredExecutor(config.root, config.script_env)
    server = AgentServer(config.name, (config.host, config.port), executor, config.secret,
                         config.max_request)

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
