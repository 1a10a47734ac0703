"""An environment's live events in the browser: the API's server-sent
events relayed under the dashboard, since a browser's ``EventSource`` sends
the sign-in cookie but cannot send ``X-Auth-Token``. ``static/live.js``
reads them on the environment's page."""

from __future__ import annotations


import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from laguna.dashboard.client import ApiClient, Asgi, Upstream
from laguna.dashboard.routing import signed_in

#: a cursor the browser sends back is bounded before it is passed on
MAX_EVENT_ID = 512


class Relay(Response):
    """The API's stream passed through as it comes; when the browser goes
    away the API's stream is told so, and frees its slot."""

    def __init__(self, upstream: Upstream) -> None:
        # not Response's own headers: it would say content-length 0 of a body to come
        self.status_code = upstream.status
        self.background = None
        self.raw_headers = [(b"content-type", b"text/event-stream; charset=utf-8"),
                            (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]
        self.upstream = upstream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await send({"type": "http.response.start", "status": self.status_code,
                        "headers": self.raw_headers})
            async with anyio.create_task_group() as group:
                async def forward() -> None:
                    try:
                        async for chunk in self.upstream.chunks():
                            await send({"type": "http.response.body", "body": chunk,
                                        "more_body": True})
                        await send({"type": "http.response.body", "body": b"",
                                    "more_body": False})
                    except OSError:     # the browser went away mid-write
                        pass
                    group.cancel_scope.cancel()

                async def listen() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(forward)
                group.start_soon(listen)
        finally:
            with anyio.CancelScope(shield=True):
                await self.upstream.close()


def routes(api: Asgi) -> list[BaseRoute]:
    async def events(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        last = request.headers.get("last-event-id")
        upstream = await client.stream(
            f"/v1/environments/{environment_id}/events",
            last_event_id=last if last and len(last) <= MAX_EVENT_ID else None)
        if upstream.status != 200:
            body = await upstream.body()
            await upstream.close()
            return Response(body, upstream.status, media_type="application/json")
        return Relay(upstream)

    return [Route("/environments/{environment_id}/events", signed_in(api, events),
                  methods=["GET"])]


__all__ = ["Relay", "routes"]
