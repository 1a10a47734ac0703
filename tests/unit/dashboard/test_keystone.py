"""The dashboard's Keystone sign-in (laguna.dashboard.keystone) against the
Keystone stand-in process (tests/keystone.py): a token for good credentials,
Keystone's own refusal for bad ones, and what it does when Keystone cannot be
asked or answers too much."""

from __future__ import annotations

import asyncio
import typing as t

import httpx
import pytest

from laguna.dashboard.keystone import MAX_ANSWER, MAX_NAME, Credentials, Refused, issue_token
from tests.keystone import UNAUTHORIZED, User, keystone
from tests.servers import free_port

ANN = User("ann", "pw-ann", "shop", "p-shop", roles=("member", "admin"))


def test_a_token_for_the_project_and_keystone_s_refusals() -> None:
    with keystone([ANN]) as identity:
        token = asyncio.run(issue_token(identity.url, Credentials("ann", "pw-ann", "shop")))
        # the token speaks for ann in shop: Keystone validates it
        validated = httpx.get(f"{identity.url}/auth/tokens", timeout=10, headers={
            "X-Auth-Token": token, "X-Subject-Token": token}).json()["token"]
        assert (validated["project"]["id"], validated["user"]["name"]) == ("p-shop", "ann")
        for credentials, message in (
                (Credentials("ann", "wrong", "shop"), UNAUTHORIZED),
                (Credentials("ann", "pw-ann", "shop", "Other"), UNAUTHORIZED),
                (Credentials("ann", "pw-ann", "lab"),
                 "User user-ann has no access to project lab")):
            with pytest.raises(Refused) as refused:
                asyncio.run(issue_token(identity.url + "/", credentials))
            assert refused.value.message == message


def test_keystone_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}/v3"
    with pytest.raises(Refused) as refused:
        asyncio.run(issue_token(url, Credentials("ann", "pw", "shop")))
    assert refused.value.message.startswith(f"Keystone at {url} could not be reached: ")


def test_an_answer_past_the_bound_is_not_read() -> None:
    sent: list[int] = []

    def endless() -> httpx.Response:
        async def chunks() -> t.AsyncIterator[bytes]:
            for _ in range(MAX_ANSWER // 1024 + 10):
                sent.append(1)
                yield b"x" * 1024
        return httpx.Response(201, headers={"X-Subject-Token": "t"}, content=chunks())

    transport = httpx.MockTransport(lambda _request: endless())
    with pytest.raises(Refused) as refused:
        asyncio.run(issue_token("http://keystone/v3", Credentials("a", "b", "c"), transport))
    assert refused.value.message == f"Keystone's answer is longer than {MAX_ANSWER} bytes."
    assert len(sent) == MAX_ANSWER // 1024 + 1


@pytest.mark.parametrize(("credentials", "problem"), [
    (Credentials("", "pw", "shop"), "Give a user name."),
    (Credentials("ann", "pw", ""), "Give a project."),
    (Credentials("ann", "", "shop"), "Give a password."),
    (Credentials("a" * (MAX_NAME + 1), "pw", "shop"),
     f"The user name is longer than {MAX_NAME} characters."),
    (Credentials("ann", "pw", "shop", ""), "Give a domain."),
    (Credentials("ann", "pw", "shop"), None),
])
def test_credentials_checked_before_they_are_sent(credentials: Credentials,
                                                  problem: str | None) -> None:
    assert credentials.problem() == problem
