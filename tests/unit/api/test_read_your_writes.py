"""Read-your-writes (issue 21): once a client has the answer to its write, every
later read sees it. FastAPI runs a dependency's exit (the store session's
commit) after the answer is sent unless the dependency's scope is
``function``; a GET sent on the answer could then read the snapshot before
the commit."""

from __future__ import annotations

import asyncio
import concurrent.futures
import typing as t
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from tests.servers import Server, serve
from tests.unit.api.conftest import Api


def test_a_write_is_committed_before_its_answer_is_sent(api: Api) -> None:
    token = api.token()
    made = api.client.post("/v1/environments", json={"name": "before"},
                           headers=api.headers(token)).json()
    events: list[str] = []

    def committed(_session: orm.Session) -> None:
        events.append("commit")

    body = b'{"name": "after"}'
    scope = {"type": "http", "http_version": "1.1", "method": "PUT", "scheme": "http",
             "path": f"/v1/environments/{made['id']}", "raw_path": b"", "query_string": b"",
             "root_path": "", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
             "headers": [(b"x-auth-token", token.encode()),
                         (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}

    async def receive() -> dict[str, t.Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: t.MutableMapping[str, t.Any]) -> None:
        if message["type"] == "http.response.start":
            events.append(f"answer {message['status']}")

    sa.event.listen(orm.Session, "after_commit", committed)
    try:
        asyncio.run(api.client.app(scope, receive, send))  # type: ignore[arg-type]
    finally:
        sa.event.remove(orm.Session, "after_commit", committed)
    # the token was read (and that read session ended) first; the rename's
    # commit comes before the answer, and nothing is committed after it
    assert events[-2:] == ["commit", "answer 200"]


THREADS = 4
ROUNDS = 50


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Server]:
    # the working directory's store: SQLite in WAL mode, a pool of connections
    with serve(tmp_path_factory.mktemp("rw")) as served:
        yield served


def test_each_client_reads_its_own_writes_under_concurrency(server: Server) -> None:
    headers = {"X-Auth-Token": server.token(), "Content-Type": "application/json"}

    def client(number: int) -> list[tuple[str, str]]:
        stale = []
        with httpx.Client(base_url=server.url + "/v1", headers=headers,
                          timeout=30) as http:
            made = http.post("/environments", json={"name": f"env{number}-0"})
            assert made.status_code == 200, made.text
            url = f"/environments/{made.json()['id']}"
            for round_ in range(1, ROUNDS + 1):
                name = f"env{number}-{round_}"
                renamed = http.put(url, json={"name": name})
                assert renamed.status_code == 200, renamed.text
                seen = http.get(url).json()["name"]
                if seen != name:
                    stale.append((name, seen))
        return stale

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(client, range(THREADS)))
    assert results == [[]] * THREADS
