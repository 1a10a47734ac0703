"""A real server for streaming tests (uvicorn on a free port, in a thread) and a
server-sent-events reader of its answers.

Starlette's TestClient gathers a whole answer before it returns any of it,
so an endless stream needs a server."""

from __future__ import annotations

import dataclasses
import datetime
import json
import queue
import socket
import threading
import time
import typing as t

import httpx
import uvicorn
from fastapi import FastAPI

from laguna.store.db import Database
from laguna.store.identity import issue_token


@dataclasses.dataclass
class SseEvent:
    id: str | None
    event: str | None
    data: t.Any

    @property
    def text(self) -> tuple[str | None, t.Any]:
        return self.event, self.data


class Served:
    """``app`` served by uvicorn at :attr:`url` until :meth:`stop`."""

    def __init__(self, app: FastAPI) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def token(database: Database, project: str, user: str = "u1") -> str:
    with database.session() as session:
        return issue_token(session, project, user, False,
                           datetime.datetime.now(datetime.timezone.utc),
                           datetime.timedelta(hours=1))


class Stream:
    """One open event stream; its events and comments are read by a thread
    and taken with :meth:`next` (never a fixed sleep)."""

    def __init__(self, url: str, headers: t.Mapping[str, str]) -> None:
        self.client = httpx.Client(timeout=httpx.Timeout(10, read=None))
        self.context = self.client.stream("GET", url, headers=dict(headers))
        self.response = self.context.__enter__()
        self.items: queue.Queue[SseEvent | str | None] = queue.Queue()
        if self.response.status_code == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for line in self.response.iter_lines():
                if line.startswith(":"):
                    self.items.put(line)
                elif line == "":
                    if fields:
                        self.items.put(SseEvent(fields.get("id"), fields.get("event"),
                                                json.loads(fields["data"])))
                    fields = {}
                else:
                    name, _, value = line.partition(": ")
                    fields[name] = value
        except (httpx.HTTPError, RuntimeError, ValueError):
            pass
        self.items.put(None)    # the stream ended

    def next(self, timeout: float = 5.0) -> SseEvent | str | None:
        return self.items.get(timeout=timeout)

    def events(self, count: int, timeout: float = 5.0) -> list[SseEvent]:
        """The next ``count`` events (comments skipped)."""
        found: list[SseEvent] = []
        while len(found) < count:
            item = self.next(timeout)
            assert item is not None, f"the stream ended after {found}"
            if isinstance(item, SseEvent):
                found.append(item)
        return found

    def close(self) -> None:
        # httpx does not close a connection another thread is reading from:
        # shut its socket down, as a client that goes away does
        stream = self.response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.context.__exit__(None, None, None)
        self.client.close()
