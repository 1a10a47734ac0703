"""The hot reads (laguna.api.hotpaths): showing an environment and listing
packages are answered before FastAPI's routing, with the routes' own answers;
whatever they refuse, and any other request, goes on to the application."""

from __future__ import annotations

import asyncio
import typing as t

from laguna.api.hotpaths import HotReads
from laguna.api.identity import RequestContext
from laguna.api.limits import CALLER_KEY
from tests.unit.api.conftest import Api


def ask(api: Api, path: str, caller: RequestContext,
        headers: list[tuple[bytes, bytes]] | None = None) -> tuple[str, int, bytes]:
    """(who answered, status, body) of ``GET path`` through HotReads."""
    answered: list[t.Any] = []

    async def application(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        answered.append("application")

    async def receive() -> dict[str, t.Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: t.Any) -> None:
        answered.append(message)

    state = api.client.app.state.laguna  # type: ignore[attr-defined]
    path, _, query = path.partition("?")
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(),
             "headers": headers or [], "state": {CALLER_KEY: caller}}
    asyncio.run(HotReads(application, state)(scope, receive, send))
    if answered == ["application"]:
        return "application", 0, b""
    return "hot", answered[0]["status"], answered[1]["body"]


def test_showing_an_environment_is_the_routes_answer(api: Api) -> None:
    token = api.token()
    created = api.client.post("/v1/environments", json={"name": "e1"},
                              headers=api.headers(token)).json()
    routed = api.client.get(f"/v1/environments/{created['id']}", headers=api.headers(token))
    caller = RequestContext(project_id="p1", user_id="u1", is_admin=False, token=token)
    who, status, body = ask(api, f"/v1/environments/{created['id']}", caller)
    assert (who, status) == ("hot", 200)
    assert body == routed.content


def test_listing_packages_is_the_routes_answer(api: Api) -> None:
    token = api.token()
    routed = api.client.get("/v1/catalog/packages?limit=100", headers=api.headers(token))
    caller = RequestContext(project_id="p1", user_id="u1", is_admin=False, token=token)
    assert ask(api, "/v1/catalog/packages?limit=100", caller) == ("hot", 200, routed.content)


def test_refusals_and_other_requests_go_to_the_application(api: Api) -> None:
    token = api.token()
    created = api.client.post("/v1/environments", json={"name": "e1"},
                              headers=api.headers(token)).json()
    stranger = RequestContext(project_id="p2", user_id="u2", is_admin=False, token="t")
    owner = RequestContext(project_id="p1", user_id="u1", is_admin=False, token=token)
    # another project's environment (403 from the route), an unknown one (404)
    assert ask(api, f"/v1/environments/{created['id']}", stranger)[0] == "application"
    assert ask(api, "/v1/environments/nope", owner)[0] == "application"
    # a configuration session's view, a bad limit, other paths
    assert ask(api, f"/v1/environments/{created['id']}", owner,
               [(b"x-configuration-session", b"s1")])[0] == "application"
    assert ask(api, "/v1/catalog/packages?limit=x", owner)[0] == "application"
    assert ask(api, f"/v1/environments/{created['id']}/sessions", owner)[0] == "application"
    assert ask(api, "/v1/environments", owner)[0] == "application"
