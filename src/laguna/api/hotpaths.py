"""The three reads clients make most, answered from memory while the store
has not changed, and otherwise by their own route functions without
FastAPI's routing and dependency solving: showing an environment, listing
environments and listing packages.

Each answer is kept with the store's generation for it
(:mod:`laguna.store.freshness`: one cheap statement, on SQLite not even a
read of a table) and the caller's project and role; a request whose
generation is unchanged gets the same bytes. Measured in process, showing
an environment cost 1.4 ms of CPU through its route function (two
SQLAlchemy queries in a read session) and costs about 0.1 ms from memory
(benchmarks/README.md, bench_api.py).

Nothing is answered differently: only answers the route functions gave
(200) are kept, keyed by what they depend on; a request they refuse (404,
403, 400), one with a configuration session, or any other request goes on
to the application, which answers it as always.
"""

from __future__ import annotations

import re
import typing as t

from starlette.requests import Request
from starlette.responses import Response

from laguna.api.errors import ApiError
from laguna.api.identity import RequestContext
from laguna.api.limits import CALLER_KEY
from laguna.api.responses import JsonBytes
from laguna.api.routes.catalog import list_packages
from laguna.api.routes.environments import list_environments, show
from laguna.api.state import ApiState
from laguna.store.freshness import Generation

#: GET /v1/environments/<id> (nothing after the id)
SHOW = re.compile(r"^/v1/environments/([^/]+)$")
ENVIRONMENTS = "/v1/environments"
PACKAGES = "/v1/catalog/packages"
SESSION_HEADER = b"x-configuration-session"

Scope = t.MutableMapping[str, t.Any]
Receive = t.Callable[[], t.Awaitable[t.MutableMapping[str, t.Any]]]
Send = t.Callable[[t.MutableMapping[str, t.Any]], t.Awaitable[None]]
Key = tuple[str | bool | bytes, ...]


class HotReads:
    """Plain ASGI, inside the request limits and the statistics."""

    def __init__(self, app: t.Callable[[Scope, Receive, Send], t.Awaitable[None]],
                 state: ApiState) -> None:
        self.app = app
        self.state = state
        #: answers by (kind, what was asked, the caller's project and role)
        self.answers = state.answers

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
        query: bytes = scope["query_string"]
        freshness = self.state.freshness
        # The caller is in every key: an answer given to one project (or to an
        # admin) is never given to another, who may be refused it.
        if path == PACKAGES:
            return self._kept(("packages", caller.project_id, caller.is_admin, query),
                              freshness.catalog(),
                              lambda: list_packages(Request(scope), caller, self.state))
        if path == ENVIRONMENTS:
            request = Request(scope)
            all_tenants = request.query_params.get("all_tenants")
            tenant = request.query_params.get("tenant")
            listed = None if all_tenants is not None or tenant else caller.project_id
            return self._kept(("environments", caller.project_id, caller.is_admin, query),
                              freshness.environments(listed),
                              lambda: list_environments(caller, self.state, all_tenants, tenant))
        found = SHOW.match(path)
        if found is not None and not any(name == SESSION_HEADER
                                         for name, _ in scope["headers"]):
            environment_id = found.group(1)
            return self._kept(("show", environment_id, caller.project_id, caller.is_admin),
                              freshness.environment(environment_id),
                              lambda: show(environment_id, caller, self.state, None))
        return None

    def _kept(self, key: Key, generation: Generation | None,
              answer: t.Callable[[], Response]) -> Response | None:
        """The answer kept for ``key`` at ``generation``, else made (and
        kept when the generation is known); None: the application answers."""
        if generation is not None:
            body = self.answers.get(key, generation)
            if body is not None:
                return JsonBytes(body)
        try:
            response = answer()
        except ApiError:
            # refused: the application answers it, in the shape of its errors
            return None
        if generation is not None and response.status_code == 200:
            self.answers.put(key, generation, bytes(response.body))
        return response
