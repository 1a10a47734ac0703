"""The hot reads (laguna.api.hotpaths): showing an environment and listing
packages are answered before FastAPI's routing, with the routes' own answers;
whatever they refuse, and any other request, goes on to the application."""

from __future__ import annotations

import asyncio
import json
import typing as t

import sqlalchemy as sa

from laguna.api.hotpaths import HotReads
from laguna.api.identity import RequestContext
from laguna.api.limits import CALLER_KEY
from tests.unit.api.conftest import EXAMPLES, Api


def ask(api: Api, path: str, caller: RequestContext,
        headers: list[tuple[bytes, bytes]] | None = None,
        hot: HotReads | None = None) -> tuple[str, int, bytes]:
    """(who answered, status, body) of ``GET path`` through HotReads (a new
    one on the application's state unless ``hot`` is given)."""
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
    hot = hot or HotReads(application, state)
    hot.app = application
    asyncio.run(hot(scope, receive, send))
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
    assert ask(api, "/v1/environments/x/y", owner)[0] == "application"
    assert ask(api, "/v1/environments?all_tenants=true", owner)[0] == "application"


def kept_reads(api: Api) -> HotReads:
    async def nothing(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        raise AssertionError("not asked")

    return HotReads(nothing, api.client.app.state.laguna)  # type: ignore[attr-defined]


class Statements:
    """The statements the requests' pool runs (not the generations')."""

    def __init__(self, api: Api) -> None:
        self.count = 0
        sa.event.listen(api.database.engine, "before_cursor_execute", self._counted)

    def _counted(self, *_args: t.Any) -> None:
        self.count += 1


def test_answers_are_kept_until_the_store_changes(api: Api) -> None:
    token = api.token()
    headers = api.headers(token)
    created = api.client.post("/v1/environments", json={"name": "e1"}, headers=headers).json()
    caller = RequestContext(project_id="p1", user_id="u1", is_admin=False, token=token)
    hot = kept_reads(api)
    show = f"/v1/environments/{created['id']}"
    first = ask(api, show, caller, hot=hot)
    listed = ask(api, "/v1/environments", caller, hot=hot)
    packages = ask(api, "/v1/catalog/packages?limit=100", caller, hot=hot)
    assert json.loads(first[2])["name"] == "e1"
    assert [e["name"] for e in json.loads(listed[2])["environments"]] == ["e1"]
    assert listed[2] == api.client.get("/v1/environments", headers=headers).content

    statements = Statements(api)
    assert ask(api, show, caller, hot=hot) == first
    assert ask(api, "/v1/environments", caller, hot=hot) == listed
    assert ask(api, "/v1/catalog/packages?limit=100", caller, hot=hot) == packages
    assert statements.count == 0     # all three from memory

    # changes through the API (the requests' pool, not the generations' connection)
    api.client.put(show, json={"name": "renamed"}, headers=headers)
    opened = api.client.post(f"{show}/configure", headers=headers)
    assert opened.status_code == 200
    api.client.post("/v1/environments", json={"name": "e2"}, headers=headers)
    api.import_package(EXAMPLES / "hello")
    shown = json.loads(ask(api, show, caller, hot=hot)[2])
    assert (shown["name"], shown["status"]) == ("renamed", "pending")
    assert [e["name"] for e in json.loads(ask(api, "/v1/environments", caller,
                                              hot=hot)[2])["environments"]] == ["renamed", "e2"]
    assert [p["name"] for p in json.loads(ask(api, "/v1/catalog/packages?limit=100", caller,
                                              hot=hot)[2])["packages"]] != \
        [p["name"] for p in json.loads(packages[2])["packages"]]
    # and each is the application's answer again
    assert ask(api, show, caller, hot=hot)[2] == api.client.get(show, headers=headers).content


def test_a_kept_answer_is_given_to_its_callers_project_and_admins_only(api: Api) -> None:
    token = api.token()
    created = api.client.post("/v1/environments", json={"name": "e1"},
                              headers=api.headers(token)).json()
    show = f"/v1/environments/{created['id']}"
    owner = RequestContext(project_id="p1", user_id="u1", is_admin=False, token=token)
    stranger = RequestContext(project_id="p2", user_id="u2", is_admin=False, token="t2")
    admin = RequestContext(project_id="p3", user_id="u3", is_admin=True, token="t3")
    hot = kept_reads(api)
    kept = ask(api, show, owner, hot=hot)
    assert kept[:2] == ("hot", 200)
    # refused by the route (403): the application answers it, nothing is given
    assert ask(api, show, stranger, hot=hot)[0] == "application"
    assert ask(api, show, admin, hot=hot) == kept
    # another project's list is its own (empty), never p1's
    assert json.loads(ask(api, "/v1/environments", stranger, hot=hot)[2]) == {"environments": []}
