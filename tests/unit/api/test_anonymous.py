"""`laguna serve --anonymous PROJECT:USER`: requests without a token (or with
keystoneauth's `none` placeholder, as `openstack --os-auth-type none` sends)
act as that user; a token still says who calls; only on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from laguna.cli.main import cli
from tests.unit.api.idle import idle_app

UNAUTHORIZED = "Authentication required: send a token in X-Auth-Token"


def test_requests_without_a_token_act_as_the_anonymous_user(tmp_path: Path) -> None:
    app, bob = idle_app(tmp_path, "local", "bob", anonymous=("local", "alice"))
    with TestClient(app) as client:
        made = client.post("/v1/environments", json={"name": "anon"})
        assert made.status_code == 200, made.text
        placeholder = client.get("/v1/environments", headers={"X-Auth-Token": "notused"})
        assert [e["name"] for e in placeholder.json()["environments"]] == ["anon"]
        # the same project's user with a real token sees it: it is project local's
        listed = client.get("/v1/environments", headers={"X-Auth-Token": bob})
        assert [e["name"] for e in listed.json()["environments"]] == ["anon"]
        # a wrong token is refused, not taken as anonymous
        wrong = client.get("/v1/environments", headers={"X-Auth-Token": "bogus"})
        assert (wrong.status_code, wrong.json()["error"]["message"]) == (
            401, "The token in X-Auth-Token is not valid or has expired")
        stats = client.get("/v1/stats")   # never an admin: its own project's counts only
        assert set(json.loads(stats.json()[0]["requests_per_tenant"])) <= {"local"}


def test_without_anonymous_a_token_is_required(tmp_path: Path) -> None:
    app, _ = idle_app(tmp_path, "local", "bob")
    with TestClient(app) as client:
        for token in ({}, {"X-Auth-Token": "notused"}):
            answer = client.get("/v1/environments", headers=token)
            assert answer.status_code == 401
        assert client.get("/v1/environments").json()["error"]["message"] == UNAUTHORIZED


def test_anonymous_only_on_loopback(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--anonymous",
                                      "local:alice", "--workdir", str(tmp_path)])
    assert result.exit_code == 2
    assert ("Invalid value for '--anonymous': --anonymous needs a loopback --host, not "
            "'0.0.0.0': anyone who reaches the server would act as alice of local"
            ) in result.output
    result = CliRunner().invoke(cli, ["serve", "--anonymous", "alice"])
    assert result.exit_code == 2
    assert "'alice' is not PROJECT:USER" in result.output
