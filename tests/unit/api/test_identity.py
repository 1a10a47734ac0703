"""Who a token speaks for: the embedded identity (tokens of ``laguna token
create``, their expiry and cache) and Keystone v3 validation."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import httpx
import sqlalchemy as sa
from click.testing import CliRunner

from laguna.api.identity import KeystoneIdentity, RequestContext, StoreIdentity
from laguna.cli.main import cli
from laguna.deploy.workdir import Workdir
from laguna.store.db import Database
from laguna.store.identity import issue_token
from tests.unit.api.conftest import Api

NOON = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = NOON

    def __call__(self) -> datetime.datetime:
        return self.now


def token_for(database: Database, hours: float, admin: bool = False) -> str:
    with database.session() as session:
        return issue_token(session, "p1", "u1", admin, NOON, datetime.timedelta(hours=hours))


def test_a_token_speaks_for_its_project_and_user_until_it_expires(api: Api) -> None:
    clock = Clock()
    identity = StoreIdentity(api.database, clock)
    token = token_for(api.database, hours=1, admin=True)
    assert identity.authenticate(token) == RequestContext("p1", "u1", True, token)
    clock.now = NOON + datetime.timedelta(minutes=59, seconds=59)
    assert identity.authenticate(token) == RequestContext("p1", "u1", True, token)
    clock.now = NOON + datetime.timedelta(hours=1)
    assert identity.authenticate(token) is None
    assert identity.authenticate("not-a-token") is None


def test_the_cache_never_outlives_the_token(api: Api) -> None:
    # a token with 10 s left is cached for 10 s, not for the cache's 30 s
    clock = Clock()
    identity = StoreIdentity(api.database, clock)
    token = token_for(api.database, hours=10 / 3600)
    assert identity.authenticate(token) is not None
    clock.now = NOON + datetime.timedelta(seconds=10)
    assert identity.authenticate(token) is None


def test_the_store_keeps_digests_not_tokens(api: Api) -> None:
    token = token_for(api.database, hours=1)
    with api.database.session() as session:
        rows = session.execute(sa.text("SELECT * FROM tokens")).all()
    assert rows and all(token not in json.dumps([str(v) for v in row]) for row in rows)


def keystone(answers: dict[str, httpx.Response], seen: list[httpx.Request]) -> httpx.Client:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.get(request.headers["X-Subject-Token"], httpx.Response(404))
    return httpx.Client(transport=httpx.MockTransport(handle))


def keystone_token(project: str | None, roles: list[str]) -> httpx.Response:
    body = {"token": {"user": {"id": "u9"}, "roles": [{"name": r} for r in roles],
                      "expires_at": "2026-11-23T13:00:00.000000Z"}}
    if project is not None:
        body["token"]["project"] = {"id": project}
    return httpx.Response(200, json=body)


def test_keystone_validates_a_token_with_the_service_token() -> None:
    seen: list[httpx.Request] = []
    client = keystone({"t-admin": keystone_token("proj", ["member", "admin"]),
                       "t-user": keystone_token("proj", ["member"]),
                       "t-unscoped": keystone_token(None, ["member"])}, seen)
    clock = Clock()
    identity = KeystoneIdentity("http://127.0.0.1:5000/v3/", service_token="svc",
                                clock=clock, client=client)
    assert identity.authenticate("t-admin") == RequestContext("proj", "u9", True, "t-admin")
    assert identity.authenticate("t-user") == RequestContext("proj", "u9", False, "t-user")
    assert identity.authenticate("t-unscoped") is None
    assert identity.authenticate("t-revoked") is None
    assert [(str(r.url), r.headers["X-Auth-Token"]) for r in seen[:1]] == [
        ("http://127.0.0.1:5000/v3/auth/tokens", "svc")]
    # answered from the cache for a minute, then asked again
    asked = len(seen)
    assert identity.authenticate("t-user") is not None
    assert len(seen) == asked
    clock.now = NOON + datetime.timedelta(minutes=1)
    assert identity.authenticate("t-user") is not None
    assert len(seen) == asked + 1


def test_keystone_without_a_service_token_lets_a_token_check_itself() -> None:
    seen: list[httpx.Request] = []
    identity = KeystoneIdentity("http://127.0.0.1:5000/v3", clock=Clock(), client=keystone(
        {"t": keystone_token("proj", [])}, seen))
    assert identity.authenticate("t") == RequestContext("proj", "u9", False, "t")
    assert seen[0].headers["X-Auth-Token"] == "t"


def test_token_create_prints_a_working_token_as_its_last_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["token", "create", "--project", "shop", "--user",
                                      "ann", "--admin", "--hours", "2"],
                                env={"LAGUNA_WORKDIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    token = result.stdout.strip().splitlines()[-1]
    assert result.stderr == "project shop, user ann (admin), valid for 2 h\n"
    database = Workdir(tmp_path).open_store()
    try:
        assert StoreIdentity(database).authenticate(token) == RequestContext(
            "shop", "ann", True, token)
    finally:
        database.dispose()
