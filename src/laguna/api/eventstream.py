"""An environment's live events as server-sent events (``text/event-stream``).

The stream reads the store (:mod:`laguna.store.events`) after its cursor,
sends what it found, then waits on its subscription
(:mod:`laguna.store.notifications`: a notification from whichever process
wrote, or the poll interval) and reads again, until the client goes away.
Each event is written as::

    id: <the cursor after it>
    event: report | deployment | status
    data: <its JSON>

and a comment (``: keep-alive``) is sent when nothing was sent for
``event_keepalive`` seconds. Reads run on the thread pool with a session
each, so an open stream holds no database connection while it waits.

:class:`StreamSlots` bounds the streams one process serves at once; a stream
holds its slot until its answer has ended, whatever ended it.
"""

from __future__ import annotations

import json
import threading
import time
import typing as t

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from laguna.store import events as store_events
from laguna.store.db import Database
from laguna.store.events import Cursor
from laguna.store.notifications import notifications

__all__ = ["KEEPALIVE", "EventStream", "StreamSlots", "follow", "format_event"]

#: the comment an idle stream sends
KEEPALIVE = b": keep-alive\n\n"


class StreamSlots:
    """How many event streams are open; taken and given back by the route."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def take(self, limit: int) -> bool:
        """One more stream, unless ``limit`` are open (False)."""
        with self._lock:
            if self.open >= limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


def format_event(kind: str, data: t.Mapping[str, t.Any], cursor: Cursor) -> bytes:
    # JSON text has no line breaks (json.dumps escapes them in strings): one data line
    return (f"id: {cursor}\nevent: {kind}\n"
            f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"
            ).encode()


async def follow(database: Database, environment_id: str, cursor: Cursor,
                 poll_interval: float | None, keepalive: float) -> t.AsyncIterator[bytes]:
    """The stream's body: the events after ``cursor``, then each as it is
    committed; a last ``status`` event whose status is null when the
    environment is deleted, and the stream ends."""
    # subscribed before the first read: a change during it wakes the next wait
    with notifications(database.engine).subscribe(environment_id, poll_interval) as waiting:
        last_sent = time.monotonic()
        while True:
            batch = await run_in_threadpool(_read, database, environment_id, cursor)
            if batch is None:
                yield format_event(store_events.STATUS, {"status": None}, cursor)
                return
            for event in batch.events:
                yield format_event(event.kind, event.data, event.cursor)
            cursor = batch.cursor
            if batch.events:
                last_sent = time.monotonic()
            if not batch.complete:
                continue
            idle = time.monotonic() - last_sent
            await waiting.wait_async(max(0.0, min(waiting.interval, keepalive - idle)))
            if time.monotonic() - last_sent >= keepalive:
                yield KEEPALIVE
                last_sent = time.monotonic()


def _read(database: Database, environment_id: str,
          cursor: Cursor) -> store_events.Batch | None:
    with database.read_session() as session:
        return store_events.read_events(session, environment_id, cursor)


class EventStream(StreamingResponse):
    """A stream that ends when its client disconnects, and gives its slot back
    when it ends, however (``release``).

    Starlette notices a disconnection only at the next write under ASGI 2.4
    servers (uvicorn's); an idle stream writes every ``keepalive`` seconds,
    so the stream listens for the disconnection itself and frees its slot at
    once."""

    media_type = "text/event-stream"

    def __init__(self, content: t.AsyncIterator[bytes], release: t.Callable[[], None],
                 status_code: int = 200) -> None:
        # no-cache: every read must reach the server; no buffering by nginx-like proxies
        super().__init__(content, status_code, headers={"Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:
                async def stream() -> None:
                    try:
                        await self.stream_response(send)
                    except OSError:      # the client went away mid-write
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            try:
                # a body stopped at a yield is closed now (its subscription
                # with it), not whenever the event loop finalises it
                closing = getattr(self.body_iterator, "aclose", None)
                if closing is not None:
                    with anyio.CancelScope(shield=True):
                        await closing()
            finally:
                self.release()
