"""The bounds of a request (issue 21): the token before the body, the size of
every body, an upload streamed to its limit, the nesting of JSON bodies.

In-process tests go through the ASGI app; what only the HTTP server shows
(an answer before the body was sent, the server's memory, the temporary
files of an upload) through a real ``laguna serve`` with small limits.
"""

from __future__ import annotations

import json
import select
import socket
import time
import typing as t
from pathlib import Path

import pytest

from laguna.api.limits import UPLOAD_ALLOWANCE, JsonDepth
from laguna.api.settings import MAX_BODY_SIZE, MAX_JSON_DEPTH, MAX_PACKAGE_SIZE
from tests.servers import Server, serve
from tests.unit.api.conftest import Api
from tests.unit.api.packages import fault, upload

# -- the JSON nesting scanner ------------------------------------------------------------


def nested(depth: int, leaf: str = "1") -> str:
    """``depth`` levels of objects: {"a": {"a": ... leaf}}."""
    return '{"a": ' * depth + leaf + "}" * depth


@pytest.mark.parametrize("text, depth", [
    ("1", 0), ("[]", 1), ("[[1], {\"a\": [2]}]", 3), (nested(7), 7),
    # brackets inside strings, escaped quotes and backslashes are text
    ('["[[[{{{", "\\"[[[", "\\\\", ["x"]]', 2),
])
def test_json_depth_counts_brackets_outside_strings(text: str, depth: int) -> None:
    assert JsonDepth(depth).feed(text.encode()) is True
    if depth:
        assert JsonDepth(depth - 1).feed(text.encode()) is False


def test_json_depth_follows_strings_and_escapes_across_pieces() -> None:
    scanner = JsonDepth(2)
    # the backslash ends one piece, the quote it escapes starts the next
    for piece in (b'[["a\\', b'"[[[[', b'"]', b"]"):
        assert scanner.feed(piece) is True
    assert (scanner.depth, scanner.in_string) == (0, False)
    assert JsonDepth(2).feed(b'[["\\"", [') is False


# -- in-process: the app with its default limits ---------------------------------------


def _post(api: Api, token: str, path: str, content: bytes | t.Iterator[bytes]) -> t.Any:
    return api.client.post(path, content=content, headers=api.headers(token))


def test_a_json_body_over_the_limit_is_413_with_the_limit(api: Api) -> None:
    token = api.token()
    body = json.dumps({"name": "x" * MAX_BODY_SIZE}).encode()
    response = _post(api, token, "/v1/environments", body)
    assert response.status_code == 413
    assert response.json() == fault(413, "Request body is too large: the limit "
                                         f"(max_body_size) is {MAX_BODY_SIZE} bytes")
    assert api.client.get("/v1/environments", headers=api.headers(token)).json() == {
        "environments": []}


def test_a_chunked_body_is_cut_at_the_limit(api: Api) -> None:
    token = api.token()
    sent: list[int] = []

    def chunks() -> t.Iterator[bytes]:
        # no Content-Length: the body is counted as it arrives
        yield b'{"name": "'
        for _ in range(4 * MAX_BODY_SIZE // 65536):
            sent.append(65536)
            yield b"x" * 65536
        yield b'"}'

    response = _post(api, token, "/v1/environments", chunks())
    assert response.status_code == 413
    assert response.json() == fault(413, "Request body is too large: the limit "
                                         f"(max_body_size) is {MAX_BODY_SIZE} bytes")


def test_a_body_at_the_limit_is_read(api: Api) -> None:
    token = api.token()
    head = b'{"name": "shop", "pad": "'
    body = head + b"x" * (MAX_BODY_SIZE - len(head) - 2) + b'"}'
    assert len(body) == MAX_BODY_SIZE
    response = _post(api, token, "/v1/environments", body)
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "shop"


def test_an_unauthenticated_body_over_the_limit_is_401(api: Api) -> None:
    # the token is checked first: an anonymous client learns nothing of the limits
    response = api.client.post("/v1/environments", content=b"x" * (MAX_BODY_SIZE + 1),
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 401
    assert response.json() == fault(401, "Authentication required: send a token in "
                                         "X-Auth-Token")


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH - 1, 300, 5000])
def test_a_template_nested_too_deep_is_400_naming_the_limit(api: Api, depth: int) -> None:
    # the body itself is one level more: {"name": ..., "services": [<depth levels>]}
    body = '{"name": "deep", "services": [' + nested(depth) + "]}"
    response = _post(api, api.token(), "/v1/templates", body.encode())
    assert response.status_code == 400
    assert response.json() == fault(400, "Request body is nested too deep: the limit "
                                         f"(max_json_depth) is {MAX_JSON_DEPTH} levels")


def test_a_template_nested_to_the_limit_is_created(api: Api) -> None:
    services = [json.loads(nested(MAX_JSON_DEPTH - 2))]
    body = json.dumps({"name": "deep", "services": services})
    response = _post(api, api.token(), "/v1/templates", body.encode())
    assert response.status_code == 200, response.text
    assert response.json()["services"] == services


def test_every_json_body_is_bounded_in_depth(api: Api) -> None:
    # a package patch is parsed by its route, not by FastAPI: bounded all the same
    response = api.client.patch(
        "/v1/catalog/packages/nothing", content=("[" * 5000 + "]" * 5000).encode(),
        headers={"X-Auth-Token": api.token(),
                 "Content-Type": "application/murano-packages-json-patch"})
    assert response.status_code == 400
    assert response.json() == fault(400, "Request body is nested too deep: the limit "
                                         f"(max_json_depth) is {MAX_JSON_DEPTH} levels")


def test_an_archive_over_the_package_limit_is_413(api: Api) -> None:
    # within the request's allowance, so the route itself measures the archive
    response = upload(api, api.token(), b"x" * (MAX_PACKAGE_SIZE + 1))
    assert response.status_code == 413
    assert response.json() == fault(413, "Uploading file is too large: the limit "
                                         f"(max_package_size) is {MAX_PACKAGE_SIZE} bytes")


def test_upload_metadata_nested_too_deep_is_400(api: Api) -> None:
    response = api.client.post(
        "/v1/catalog/packages", headers={"X-Auth-Token": api.token()},
        data={"__metadata__": '{"tags": ' + "[" * 5000 + "]" * 5000 + "}"},
        files={"package": ("package.zip", b"PK", "application/octet-stream")})
    assert response.status_code == 400
    assert response.json() == fault(400, "Request body is nested too deep: the limit "
                                         f"(max_json_depth) is {MAX_JSON_DEPTH} levels")


# -- a real server, with small limits ----------------------------------------------------

BODY_LIMIT = 64 * 1024
PACKAGE_LIMIT = 256 * 1024


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[tuple[Server, Path]]:
    workdir = tmp_path_factory.mktemp("served")
    spool = workdir / "tmp"   # the server's TMPDIR: where Starlette spools uploads
    spool.mkdir()
    with serve(workdir, "--max-body-size", str(BODY_LIMIT), "--max-package-size",
               str(PACKAGE_LIMIT), "--workers", "1", env={"TMPDIR": str(spool)}) as server:
        yield server, spool


def exchange(server: Server, head: str, parts: t.Iterable[bytes], wait: float = 10.0,
             pause: float = 0.0, while_open: t.Callable[[], None] = lambda: None,
             ) -> tuple[int, dict[str, t.Any] | None, int]:
    """Sends a request's head, then its body's parts while the server has not
    answered (waiting up to ``pause`` for an answer after each); the answer's
    status and JSON body (None: no answer within ``wait``), and how many bytes
    of the body were sent. ``while_open`` is called once the answer came (or
    did not), before the connection closes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as connection:
        connection.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        sent = 0
        for part in parts:
            if select.select([connection], [], [], pause if sent else 0)[0]:
                break   # the server answered: it reads no more
            try:
                connection.sendall(part)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(part)
        answer = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not select.select([connection], [], [], deadline - time.monotonic())[0]:
                break
            try:
                data = connection.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            answer += data
            head_end = answer.find(b"\r\n\r\n")
            if head_end >= 0:
                length = next((int(line.split(b":")[1]) for line in
                               answer[:head_end].lower().split(b"\r\n")
                               if line.startswith(b"content-length:")), 0)
                if len(answer) >= head_end + 4 + length:
                    break
        while_open()
    if not answer:
        return 0, None, sent
    head_end = answer.find(b"\r\n\r\n")
    status = int(answer.split(b" ", 2)[1])
    return status, json.loads(answer[head_end + 4:]), sent


def _head(method: str, path: str, headers: t.Mapping[str, str]) -> str:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return "\n".join(lines) + "\n"


def test_served_anonymous_bodies_are_refused_unread(served: tuple[Server, Path]) -> None:
    server, _ = served
    before = server.resident_kib()
    head = _head("POST", "/v1/templates", {"Content-Type": "application/json",
                                            "Content-Length": str(300 * 1024 ** 2)})
    # the three 300 MB bodies: answered with 64 KiB of each sent
    for _ in range(3):
        status, body, _sent = exchange(server, head, [b"[" * 65536])
        assert (status, body) == (401, fault(401, "Authentication required: send a token "
                                                  "in X-Auth-Token"))
    assert server.resident_kib() - before < 16 * 1024


def test_served_bodies_over_the_declared_limit_are_413_at_once(
        served: tuple[Server, Path]) -> None:
    server, _ = served
    token = server.token()
    head = _head("POST", "/v1/environments", {
        "X-Auth-Token": token, "Content-Type": "application/json",
        "Content-Length": str(300 * 1024 ** 2)})
    # answered with 64 KiB of the 300 MB sent
    status, body, _sent = exchange(server, head, [b"x" * 65536])
    assert (status, body) == (413, fault(413, "Request body is too large: the limit "
                                              f"(max_body_size) is {BODY_LIMIT} bytes"))


def test_served_chunked_bodies_are_cut_at_the_limit(served: tuple[Server, Path]) -> None:
    server, _ = served
    head = _head("POST", "/v1/environments", {
        "X-Auth-Token": server.token(), "Content-Type": "application/json",
        "Transfer-Encoding": "chunked"})
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    status, body, sent = exchange(server, head, [chunk] * 64, pause=0.5)
    assert (status, body) == (413, fault(413, "Request body is too large: the limit "
                                              f"(max_body_size) is {BODY_LIMIT} bytes"))
    # the answer came after the chunk over the limit (or a few more, on a slow
    # machine), not after the 4 MiB offered
    assert sent <= 8 * len(chunk)


def test_served_uploads_stop_at_the_limit_before_the_disk(served: tuple[Server, Path]) -> None:
    server, spool = served
    boundary = "limitsboundary"
    head = _head("POST", "/v1/catalog/packages", {
        "X-Auth-Token": server.token(), "Transfer-Encoding": "chunked",
        "Content-Type": f"multipart/form-data; boundary={boundary}"})
    part_head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"package\"; "
                 "filename=\"package.zip\"\r\nContent-Type: application/octet-stream\r\n\r\n")

    def chunked(data: bytes) -> bytes:
        return f"{len(data):x}\r\n".encode() + data + b"\r\n"

    spooled: list[int] = []

    def measure() -> None:
        # while the request lives: its temporary files go when it ends
        spooled.append(sum(path.stat().st_size for path in spool.rglob("*")
                           if path.is_file()))

    # 4 MiB offered: Starlette spools a file part over 1 MiB to TMPDIR
    parts = [chunked(part_head.encode())] + [chunked(b"x" * 65536)] * 64
    status, body, _sent = exchange(server, head, parts, wait=5.0, pause=0.5,
                                   while_open=measure)
    assert spooled[0] <= PACKAGE_LIMIT + UPLOAD_ALLOWANCE
    assert (status, body) == (413, fault(413, "Uploading file is too large: the limit "
                                              f"(max_package_size) is {PACKAGE_LIMIT} bytes"))
