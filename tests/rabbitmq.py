"""A private RabbitMQ node (Debian's rabbitmq-server) for the tests of the
distributed mode: its own name, ports, data and logs under a temporary
folder, on loopback only, stopped (and restartable with its data) by the test.

``.ci/run`` installs the package; a machine without it skips these tests
outside CI (CI must run them: see tests/unit/test_ci.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
import typing as t
import uuid
from pathlib import Path

import pika
import pytest

from tests.servers import free_port

SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")


class RabbitMQ:
    """One node; :meth:`start`, :meth:`stop` and :meth:`restart` keep its data."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = f"laguna-{uuid.uuid4().hex[:8]}@localhost"
        self.port = free_port()
        self.dist_port = free_port()
        self.url = f"amqp://guest:guest@127.0.0.1:{self.port}/%2F"
        self._process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "plugins").write_text("[].\n")
        (folder / "rabbitmq.conf").write_text(
            f"listeners.tcp.default = 127.0.0.1:{self.port}\n"
            "loopback_users = none\n")

    def _environment(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.folder), "RABBITMQ_NODENAME": self.name,
                "RABBITMQ_NODE_PORT": str(self.port),
                "RABBITMQ_DIST_PORT": str(self.dist_port),
                "RABBITMQ_MNESIA_BASE": str(self.folder / "mnesia"),
                "RABBITMQ_LOG_BASE": str(self.folder / "log"),
                "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.folder / "plugins"),
                "RABBITMQ_CONFIG_FILE": str(self.folder / "rabbitmq"),
                "ERL_EPMD_ADDRESS": "127.0.0.1"}

    def start(self, timeout: float = 90) -> None:
        log = (self.folder / "server.log").open("ab")
        self._process = subprocess.Popen([str(SERVER)], env=self._environment(),
                                         stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                tail = (self.folder / "server.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"RabbitMQ did not start: {tail}")
            time.sleep(0.3)

    def answers(self) -> bool:
        try:
            pika.BlockingConnection(pika.URLParameters(
                self.url + "?connection_attempts=1&socket_timeout=1")).close()
        except Exception:
            return False
        return True

    def stop(self) -> None:
        """Stop the node as its service would (SIGTERM: persistent messages are
        kept for the next start), killing it if it does not end in 30 s."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # the node's own helpers (erl_child_setup, inet_gethost) are in its group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    def restart(self) -> None:
        self.stop()
        self.start()

    def queued(self, queue: str) -> int:
        """Messages ready in ``queue`` (0 if it is not declared)."""
        connection = pika.BlockingConnection(pika.URLParameters(self.url))
        try:
            frame = connection.channel().queue_declare(queue, passive=True)
            return int(frame.method.message_count)
        except pika.exceptions.ChannelClosedByBroker:
            return 0
        finally:
            if connection.is_open:
                connection.close()


def stop_epmd() -> None:
    """Erlang's port mapper, started by the first node, outlives it: end it
    once no node is left registered."""
    epmd = shutil.which("epmd")
    if epmd is None:
        return
    names = subprocess.run([epmd, "-names"], capture_output=True, text=True, timeout=10)
    if "name " not in names.stdout:
        subprocess.run([epmd, "-kill"], capture_output=True, timeout=10)


@contextlib.contextmanager
def rabbitmq(folder: Path) -> t.Iterator[RabbitMQ]:
    if not SERVER.exists():
        if os.environ.get("CI"):
            raise RuntimeError("rabbitmq-server is not installed; .ci/run installs it")
        pytest.skip("rabbitmq-server is not installed (apt-get install rabbitmq-server)")
    node = RabbitMQ(folder)
    node.start()
    try:
        yield node
    finally:
        node.stop()
        stop_epmd()
