"""The machine's ceiling for ``bench_api.py --ceiling``: the smallest ASGI
application (no framework, no store) under the same uvicorn, loop, parser and
load generator as ``laguna serve``. No route of the API can be faster."""

from __future__ import annotations

import typing as t

BODY = b'{"hello": "world"}'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: dict[str, t.Any], receive: t.Any, send: t.Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
