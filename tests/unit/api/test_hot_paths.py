"""The hot routes' shortcuts stay right: the package listing's cached answers
across server processes (two applications on one store, as ``laguna serve
--processes 2`` runs them), and the token cache's time to live."""

from __future__ import annotations

import datetime
import typing as t

import sqlalchemy as sa
from fastapi.testclient import TestClient

from laguna.api.app import create_app
from laguna.api.identity import RequestContext, StoreIdentity, TokenCache
from laguna.api.responses import PageCache
from laguna.api.settings import ApiSettings
from laguna.engine.tasks import StoreTaskQueue
from laguna.store.db import Database
from laguna.store.models import TokenRecord
from laguna.store.identity import digest, issue_token
from tests.unit.api.conftest import Api
from tests.unit.api.packages import package_zip, uploaded

NOON = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.timezone.utc)
PAGE = "/v1/catalog/packages?limit=100"


class Clock:
    def __init__(self) -> None:
        self.now = NOON

    def __call__(self) -> datetime.datetime:
        return self.now


def _listed(client: TestClient, token: str) -> list[tuple[str, list[str], bool]]:
    response = client.get(PAGE, headers={"X-Auth-Token": token})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return [(p["fully_qualified_name"], p["tags"], p["is_public"])
            for p in response.json()["packages"]]


def _other_process(api: Api) -> TestClient:
    """A second application on the same store: what another process serves."""
    def queue(settings: ApiSettings, database: Database) -> StoreTaskQueue:
        return StoreTaskQueue(database, {}, workers=0)

    settings = ApiSettings(workdir=api.workdir, workers=0)
    return TestClient(create_app(settings, database=api.database, queue=queue))


def test_a_cached_package_page_follows_writes_made_through_another_process(
        api: Api) -> None:
    token, admin = api.token(), api.token("admin", "root", admin=True)
    first = uploaded(api, token, package_zip("com.example.One", tags=["a"]))
    with _other_process(api) as other:
        assert _listed(other, token) == [("com.example.One", ["a"], False)]
        pages = t.cast(PageCache, other.app.state.laguna.answers)  # type: ignore
        assert len(pages) == 1
        # each write goes through the first process; the second answers from its
        # cache only while the catalog's generation is the one it cached
        response = api.client.patch(
            f"/v1/catalog/packages/{first['id']}",
            content='[{"op": "replace", "path": "/tags", "value": ["b", "c"]}]',
            headers={"X-Auth-Token": token,
                     "Content-Type": "application/murano-packages-json-patch"})
        assert response.status_code == 200, response.text
        assert _listed(other, token) == [("com.example.One", ["b", "c"], False)]
        response = api.client.patch(
            f"/v1/catalog/packages/{first['id']}",
            content='[{"op": "replace", "path": "/is_public", "value": true}]',
            headers={"X-Auth-Token": admin,
                     "Content-Type": "application/murano-packages-json-patch"})
        assert response.status_code == 200, response.text
        assert _listed(other, token) == [("com.example.One", ["b", "c"], True)]
        second = uploaded(api, token, package_zip("com.example.Two"))
        assert _listed(other, token) == [("com.example.One", ["b", "c"], True),
                                         ("com.example.Two", [], False)]
        # a deletion and an upload leave the count as it was: still seen
        assert api.client.delete(f"/v1/catalog/packages/{second['id']}",
                                 headers={"X-Auth-Token": token}).status_code == 200
        uploaded(api, token, package_zip("com.example.Three"))
        assert _listed(other, token) == [("com.example.One", ["b", "c"], True),
                                         ("com.example.Three", [], False)]
        # unchanged: the same bytes from the cache, one page per caller and query
        again = other.get(PAGE, headers={"X-Auth-Token": token}).content
        assert other.get(PAGE, headers={"X-Auth-Token": token}).content == again
        assert len(pages) == 1


def test_the_page_cache_forgets_everything_when_full() -> None:
    pages = PageCache(size=2)
    pages.put("a", 1, b"A")
    pages.put("b", 1, b"B")
    assert (pages.get("a", 1), pages.get("a", 2), len(pages)) == (b"A", None, 2)
    pages.put("c", 1, b"C")
    assert (pages.get("a", 1), pages.get("c", 1), len(pages)) == (None, b"C", 1)
    # a new answer for a kept key replaces it: no room taken
    pages.put("c", 2, b"C2")
    pages.put("d", 2, b"D")
    assert (pages.get("c", 2), pages.get("d", 2), len(pages)) == (b"C2", b"D", 2)


def test_the_page_cache_is_bounded_in_bytes_too() -> None:
    pages = PageCache(size=100, max_bytes=10)
    pages.put("a", 1, b"12345")
    pages.put("b", 1, b"12345")
    assert len(pages) == 2
    pages.put("a", 2, b"1234")       # replaced: 9 bytes kept
    assert (pages.get("a", 2), pages.get("b", 1)) == (b"1234", b"12345")
    pages.put("c", 1, b"12")         # 11 bytes: everything forgotten first
    assert (pages.get("a", 2), pages.get("c", 1), len(pages)) == (None, b"12", 1)
    pages.put("d", 1, b"x" * 11)     # larger than the bound: never kept
    assert (pages.get("d", 1), len(pages)) == (None, 0)


def test_a_deleted_token_works_until_its_cache_entry_ends_ten_seconds_on(api: Api) -> None:
    clock = Clock()
    identity = StoreIdentity(api.database, clock)
    with api.database.session() as session:
        token = issue_token(session, "p1", "u1", False, NOON, datetime.timedelta(hours=1))
    context = RequestContext("p1", "u1", False, token)
    assert identity.authenticate(token) == context
    with api.database.session() as session:
        session.execute(sa.delete(TokenRecord).where(TokenRecord.digest == digest(token)))
    clock.now = NOON + datetime.timedelta(seconds=9.999)
    assert (identity.remembered(token), identity.authenticate(token)) == (context, context)
    clock.now = NOON + datetime.timedelta(seconds=10)
    assert (identity.remembered(token), identity.authenticate(token)) == (None, None)


def test_an_expired_token_is_refused_once_the_cache_entry_ends(api: Api) -> None:
    # valid for 5 s: remembered for 5 s, not for the cache's 10
    clock = Clock()
    identity = StoreIdentity(api.database, clock)
    with api.database.session() as session:
        token = issue_token(session, "p1", "u1", False, NOON, datetime.timedelta(seconds=5))
    assert identity.authenticate(token) == RequestContext("p1", "u1", False, token)
    clock.now = NOON + datetime.timedelta(seconds=5)
    assert (identity.remembered(token), identity.authenticate(token)) == (None, None)


def test_the_token_cache_is_bounded() -> None:
    clock = Clock()
    cache = TokenCache(10.0, clock)
    cache.SIZE = 2
    later = NOON + datetime.timedelta(hours=1)
    for token in ("a", "b", "c"):
        cache.put(RequestContext("p", "u", False, token), NOON, later)
    assert [cache.get(token) is not None for token in ("a", "b", "c")] == [False, False, True]


def test_a_request_with_a_remembered_token_is_answered_through_the_api(api: Api) -> None:
    token = api.token()
    headers = {"X-Auth-Token": token}
    assert api.client.get("/v1/environments", headers=headers).json() == {"environments": []}
    # the token is gone from the store; the process still knows it for a while
    with api.database.session() as session:
        session.execute(sa.delete(TokenRecord).where(TokenRecord.digest == digest(token)))
    assert api.client.get("/v1/environments", headers=headers).json() == {"environments": []}
