"""The two reads clients make most, answered by their own route functions
without FastAPI's routing and dependency solving, and without the hop to the
thread pool: showing an environment and listing packages.

Measured in process, FastAPI's routing and dependencies and the thread-pool
hop were about half of the 3.5 ms of CPU an environment's show cost
(benchmarks/README.md, bench_api.py). These reads are short (one or two
indexed queries, or a cached page), so they run on the event loop.

Nothing is answered differently: the same functions run (``show`` and
``list_packages`` of :mod:`laguna.api.routes`), on the caller
:class:`~laguna.api.limits.RequestLimits` authenticated; a request they
refuse (404, 403, 400), one with a configuration session, or any other
request goes on to the application, which answers it as always.
"""

from __future__ import annotations

import re
import typing as t

from starlette.requests import Request
from starlette.responses import Response

from laguna.api.errors import ApiError
from laguna.api.identity import RequestContext
from laguna.api.limits import CALLER_KEY
from laguna.api.routes.catalog import list_packages
from laguna.api.routes.environments import show
from laguna.api.state import ApiState

#: GET /v1/environments/<id> (nothing after the id)
SHOW = re.compile(r"^/v1/environments/([^/]+)$")
PACKAGES = "/v1/catalog/packages"
SESSION_HEADER = b"x-configuration-session"

Scope = t.MutableMapping[str, t.Any]
Receive = t.Callable[[], t.Awaitable[t.MutableMapping[str, t.Any]]]
Send = t.Callable[[t.MutableMapping[str, t.Any]], t.Awaitable[None]]


class HotReads:
    """Plain ASGI, inside the request limits and the statistics."""

    def __init__(self, app: t.Callable[[Scope, Receive, Send], t.Awaitable[None]],
                 state: ApiState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            answer = self._answer(scope)
            if answer is not None:
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _answer(self, scope: Scope) -> Response | None:
        state = scope.get("state")
        caller = state.get(CALLER_KEY) if isinstance(state, dict) else None
        if not isinstance(caller, RequestContext):
            return None
        path = scope["path"]
        try:
            if path == PACKAGES:
                return list_packages(Request(scope), caller, self.state)
            found = SHOW.match(path)
            if found is not None and not any(name == SESSION_HEADER
                                             for name, _ in scope["headers"]):
                return show(found.group(1), caller, self.state, None)
        except ApiError:
            # refused: the application answers it, in the shape of its errors
            return None
        return None
