"""The dashboard's way to the v1 API: HTTP in process (httpx over ASGI), with
the signed-in caller's token."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import typing as t
import urllib.parse

import httpx

#: an ASGI application: the API the dashboard is mounted in
Asgi = t.Callable[..., t.Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class ApiFailure(Exception):
    """The API refused a request: its status and its message."""

    status: int
    message: str

    def __str__(self) -> str:
        return self.message


class ApiClient:
    """Calls of the v1 API on behalf of one caller (``token``)."""

    def __init__(self, app: Asgi, token: str) -> None:
        self._app = app
        self._client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                         base_url="http://laguna", timeout=60.0)
        self._token = token

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self._client.aclose()

    async def get(self, path: str, params: t.Mapping[str, str | list[str]] | None = None,
                  *, session: str | None = None) -> t.Any:
        return self._answer(await self._client.get(path, params=params,
                                                   headers=self._headers(session)))

    async def post(self, path: str, body: t.Any = None, *, session: str | None = None) -> t.Any:
        return self._answer(await self._client.post(path, json=body,
                                                    headers=self._headers(session)))

    async def delete(self, path: str, params: t.Mapping[str, str] | None = None) -> t.Any:
        return self._answer(await self._client.delete(path, params=params,
                                                      headers=self._headers(None)))

    async def upload(self, path: str, metadata: t.Mapping[str, t.Any], filename: str,
                     content: bytes) -> t.Any:
        """A package upload as python-muranoclient sends it: multipart, the
        ``__metadata__`` part (JSON) and the archive as a file part."""
        return self._answer(await self._client.post(
            path, data={"__metadata__": json.dumps(metadata)},
            files={filename: (filename, content, "application/octet-stream")},
            headers=self._headers(None)))

    async def patch(self, path: str, operations: list[dict[str, t.Any]],
                    media_type: str = "application/murano-packages-json-patch") -> t.Any:
        """A JSON patch (Murano's package patch media type by default)."""
        return self._answer(await self._client.patch(
            path, content=json.dumps(operations).encode(),
            headers={**self._headers(None), "Content-Type": media_type}))

    async def stream(self, path: str, *, last_event_id: str | None = None) -> Upstream:
        """A streamed GET (the events): started, with its status, before its
        body is read; httpx's ASGI transport would hold the whole body first."""
        headers = [(b"x-auth-token", self._token.encode("latin-1")),
                   (b"accept", b"text/event-stream")]
        if last_event_id:
            headers.append((b"last-event-id", last_event_id.encode("latin-1")))
        upstream = Upstream(self._app, path, headers)
        await upstream.start()
        return upstream

    async def raw(self, path: str) -> httpx.Response:
        return await self._client.get(path, headers=self._headers(None))

    def _headers(self, session: str | None) -> dict[str, str]:
        headers = {"X-Auth-Token": self._token}
        if session is not None:
            headers["X-Configuration-Session"] = session
        return headers

    @staticmethod
    def _answer(response: httpx.Response) -> t.Any:
        if response.status_code >= 400:
            raise ApiFailure(response.status_code, _message(response))
        if not response.content:
            return None
        return response.json()


class Upstream:
    """One streamed answer of the API, read as the API writes it: the API
    runs as a task of this event loop, its messages passed through a bounded
    queue (a slow reader holds the API back rather than piling up events)."""

    def __init__(self, app: Asgi, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        self._app = app
        self._scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                       "method": "GET", "scheme": "http", "path": path,
                       "raw_path": urllib.parse.quote(path).encode(), "query_string": b"", "root_path": "",
                       "headers": headers, "server": ("laguna", 80),
                       "client": ("127.0.0.1", 0)}
        self._messages: asyncio.Queue[t.Mapping[str, t.Any] | None] = asyncio.Queue(16)
        self._gone = asyncio.Event()
        self._asked = False
        self._task: asyncio.Task[None] | None = None
        self._ended = False
        self.status = 500

    async def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())
        first = await self._messages.get()
        if first is None or first.get("type") != "http.response.start":
            self._ended = True
            return
        self.status = int(first["status"])

    async def chunks(self) -> t.AsyncIterator[bytes]:
        while not self._ended:
            message = await self._messages.get()
            if message is None:
                break
            body = message.get("body", b"")
            if body:
                yield bytes(body)
            if not message.get("more_body", False):
                break
        self._ended = True

    async def body(self) -> bytes:
        return b"".join([chunk async for chunk in self.chunks()])

    async def close(self) -> None:
        """Tell the API its client went away, and let its stream end (a
        message it is still putting is taken, so that it is not held)."""
        self._gone.set()
        if self._task is None:
            return
        for _ in range(50):
            while not self._messages.empty():
                self._messages.get_nowait()
            if self._task.done():
                return
            await asyncio.sleep(0.1)
        self._task.cancel()

    async def _run(self) -> None:
        try:
            await self._app(self._scope, self._receive, self._send)
        finally:
            if not self._gone.is_set():
                await self._messages.put(None)

    async def _receive(self) -> t.Mapping[str, t.Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: t.Mapping[str, t.Any]) -> None:
        if self._gone.is_set():
            return      # nobody reads any more: the API's stream is ending
        await self._messages.put(message)


def _message(response: httpx.Response) -> str:
    """The API's error message (its fault body), else the status line."""
    try:
        body = response.json()
    except ValueError:
        return f"{response.status_code} {response.reason_phrase}"
    if isinstance(body, dict):
        for key in ("explanation", "message", "detail", "title"):
            value = body.get(key)
            if isinstance(value, str) and value:
                return value
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return f"{response.status_code} {response.reason_phrase}"
