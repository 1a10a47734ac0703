"""Only the holder of a host's secret gets the agent to do anything: a real
agent process, attacked over real HTTP by processes without the secret."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import secrets
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laguna.agent import AgentClient, AgentForgedAnswer, AgentPlanRejected
from laguna.agent import signing
from laguna.agent.main import AgentConfig
from laguna.agent.protocol import SIGNATURE_HEADER

from .test_agent_program import SECRET, SRC, running_agent

Agent = tuple[dict[str, Any], subprocess.Popen[bytes], Path]


def touching(path: Path) -> dict[str, Any]:
    """A v2 plan whose script appends a line to ``path``."""
    return {"FormatVersion": "2.0.0", "ID": "touch", "Body": "return touch().exitCode",
            "Files": {"t": {"Name": "t.sh", "BodyType": "Text", "Body": f"echo x >> {path}"}},
            "Scripts": {"touch": {"Type": "Application", "EntryPoint": "t"}}}


def request_body(plan: dict[str, Any]) -> bytes:
    return json.dumps({"plan": plan, "timeout": 30}).encode()


def signed(body: bytes, *, secret: str = SECRET, path: str = "/v1/plans",
           timestamp: int | None = None) -> dict[str, str]:
    return signing.request_headers(secret.encode(), "POST", path, body,
                                   secrets.token_hex(16),
                                   int(time.time()) if timestamp is None else timestamp)


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
    """POST over a fresh connection: the status, the JSON answer, its headers."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("POST", "/v1/plans", body, headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read()), dict(response.headers)
    finally:
        connection.close()


@pytest.fixture()
def agent(tmp_path: Path) -> Iterator[Agent]:
    with running_agent(tmp_path) as started:
        yield started


# A local user's attack, in a process of its own with nothing but the standard
# library: the agent's address (``ss -ltn`` shows it) and a plan.
ATTACK = """
import json, sys, urllib.error, urllib.request
request = urllib.request.Request(sys.argv[1] + "/v1/plans", data=sys.argv[2].encode(),
                                 headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(request, timeout=30) as answer:
        print(json.dumps([answer.status, json.load(answer)]))
except urllib.error.HTTPError as error:
    print(json.dumps([error.code, json.load(error)]))
"""


def test_a_process_without_the_secret_is_refused_and_its_plan_does_not_run(
        agent: Agent, tmp_path: Path) -> None:
    ready, _, _ = agent
    marker = tmp_path / "pwned"
    body = request_body(touching(marker))
    output = subprocess.run([sys.executable, "-I", "-c", ATTACK, ready["url"], body.decode()],
                            capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(output) == [401, {"error": {
        "message": "The request is not signed: it has no X-Laguna-Timestamp header"}}]
    assert not marker.exists()
    # the same plan, signed with the host's secret, runs
    with AgentClient(ready["url"], SECRET) as client:
        assert client.execute(touching(marker), 30)["Body"] == 0
    assert marker.read_text() == "x\n"


def test_a_request_signed_with_another_secret_is_refused(agent: Agent, tmp_path: Path) -> None:
    ready, _, _ = agent
    marker = tmp_path / "pwned"
    body = request_body(touching(marker))
    status, answer, _ = post(ready["url"], body, signed(body, secret="a guess" * 8))
    assert (status, answer) == (401, {"error": {"message": (
        "The request's signature is wrong: it was not signed with this host's secret")}})
    assert not marker.exists()


def test_a_replayed_request_is_refused(agent: Agent, tmp_path: Path) -> None:
    ready, _, _ = agent
    marker = tmp_path / "ran"
    body = request_body(touching(marker))
    headers = signed(body)
    status, answer, _ = post(ready["url"], body, headers)
    assert (status, answer["ErrorCode"], answer["Body"]) == (200, 0, 0)
    status, answer, _ = post(ready["url"], body, headers)
    assert (status, answer) == (401, {"error": {"message": (
        f"The request was replayed: nonce {headers['X-Laguna-Nonce']} was already used")}})
    assert marker.read_text() == "x\n"     # once


@pytest.mark.parametrize("offset", [-400, 400])
def test_a_request_with_a_timestamp_outside_the_window_is_refused(
        agent: Agent, tmp_path: Path, offset: int) -> None:
    ready, _, _ = agent
    marker = tmp_path / "ran"
    body = request_body(touching(marker))
    status, answer, _ = post(ready["url"], body,
                             signed(body, timestamp=int(time.time()) + offset))
    # a second may pass between signing and checking
    assert status == 401
    assert answer["error"]["message"] in [
        f"The request's timestamp is {seconds} seconds away from the agent's clock "
        "(at most 300 allowed)" for seconds in (400, 401 if offset < 0 else 399)]
    assert not marker.exists()


def test_a_body_signed_for_another_path_or_altered_is_refused(agent: Agent,
                                                             tmp_path: Path) -> None:
    ready, _, _ = agent
    marker = tmp_path / "ran"
    body = request_body(touching(marker))
    status, answer, _ = post(ready["url"], body, signed(body, path="/v1/health"))
    assert (status, answer["error"]["message"]) == (
        401, "The request's signature is wrong: it was not signed with this host's secret")
    headers = signed(body)
    altered = body.replace(b"echo x", b"echo y")
    status, answer, _ = post(ready["url"], altered, headers)
    assert (status, answer["error"]["message"]) == (
        401, "The request's body does not match its X-Laguna-Content-SHA256")
    assert not marker.exists()


def agent_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def raw_request(url: str, head: str) -> tuple[bytes, float]:
    """Send only a request's head; the whole answer (the agent closes the
    connection) and how long it took to come."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head.encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer, time.monotonic() - started


def test_a_body_over_the_limit_is_refused_before_it_is_read(agent: Agent) -> None:
    ready, process, _ = agent
    before = agent_rss_kib(process.pid)
    length = 200 * 1024 * 1024
    # the head announces 200 MiB and none follows: an agent that waited for
    # the body would never answer (the socket's timeout would end the test)
    answer, seconds = raw_request(ready["url"], "POST /v1/plans HTTP/1.1\r\n"
                                  f"Host: agent\r\nContent-Length: {length}\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 413 Request Entity Too Large"
    assert b"\r\nConnection: close" in head
    assert json.loads(body) == {"error": {"message": (
        f"The request's body of {length} bytes is larger than the agent's limit of "
        "67108864 bytes")}}
    assert seconds < 5
    assert agent_rss_kib(process.pid) - before < 4096


def test_the_limit_is_the_agents_option_and_holds_for_signed_requests(tmp_path: Path) -> None:
    with running_agent(tmp_path, "--max-request", "1000") as (ready, _, _):
        body = request_body(touching(tmp_path / "ran"))
        body += b" " * (1001 - len(body))
        status, answer, _ = post(ready["url"], body, signed(body))
        assert (status, answer) == (413, {"error": {"message": (
            "The request's body of 1001 bytes is larger than the agent's limit of 1000 "
            "bytes")}})
        # the engine's client knows the limit too and does not send such a plan
        plan = {**touching(tmp_path / "ran"), "Pad": "x" * 1000}
        sent = len(json.dumps({"plan": plan, "timeout": 30}, separators=(",", ":")))
        with AgentClient(ready["url"], SECRET, max_request=1000) as client:
            with pytest.raises(AgentPlanRejected) as info:
                client.execute(plan, 30)
        assert (info.value.message, info.value.error_code) == (
            f"The request of {sent} bytes is larger than the agent's limit of 1000 bytes", 2)
    assert not (tmp_path / "ran").exists()


def test_answers_are_signed_for_the_request(agent: Agent) -> None:
    ready, _, _ = agent
    body = request_body({"FormatVersion": "2.0.0", "ID": "p", "Body": "return 1",
                         "Scripts": {}})
    headers = signed(body)
    status, answer, answer_headers = post(ready["url"], body, headers)
    raw = json.dumps(answer).encode()
    assert (status, answer["Body"]) == (200, 1)
    assert signing.response_is_signed(SECRET.encode(), 200, headers["X-Laguna-Nonce"], raw,
                                      answer_headers[SIGNATURE_HEADER])
    # the same answer does not pass for another request's
    assert not signing.response_is_signed(SECRET.encode(), 200, secrets.token_hex(16), raw,
                                          answer_headers[SIGNATURE_HEADER])


class _Impostor(http.server.BaseHTTPRequestHandler):
    """Holds a host's port and answers every request ``answer`` (status, body,
    signature or None)."""

    answer: tuple[int, bytes, str | None]

    def do_GET(self) -> None:  # noqa: N802
        status, body, signature = self.answer
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if signature is not None:
            self.send_header(SIGNATURE_HEADER, signature)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def impostor(answer: tuple[int, bytes, str | None]) -> Iterator[str]:
    """An HTTP server that is not the agent; its URL."""
    handler = type("Handler", (_Impostor,), {"answer": answer})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


HEALTHY = json.dumps({"name": "web-1", "status": "ready"}).encode()


@pytest.mark.parametrize(("signature", "reason"), [
    (None, "HTTP 200 with no X-Laguna-Signature"),
    ("0" * 64, "HTTP 200 with a wrong X-Laguna-Signature"),
    # a genuine signature of this body, made for another request
    (signing.response_signature(SECRET.encode(), 200, "0" * 32, HEALTHY),
     "HTTP 200 with a wrong X-Laguna-Signature"),
])
def test_a_forged_answer_is_detected_by_the_client(signature: str | None,
                                                   reason: str) -> None:
    with impostor((200, HEALTHY, signature)) as url, AgentClient(url, SECRET) as client:
        with pytest.raises(AgentForgedAnswer) as info:
            client.health()
    assert (info.value.code, str(info.value)) == ("LAG-E1115", (
        f"The answer from {url} is not signed with the host's secret ({reason}); "
        "it was not used"))


def test_the_agent_does_not_start_without_a_secret(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "laguna.agent", "--name", "h", "--listen", "127.0.0.1:0",
         "--root", str(tmp_path)], env={"PATH": os.environ["PATH"], "PYTHONPATH": str(SRC)},
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, (
        "laguna-agent: error: a secret is needed: --secret-file FILE or $LAGUNA_AGENT_TOKEN "
        "(the agent does not run unauthenticated)"))


def config_error(capsys: pytest.CaptureFixture[str], *options: str,
                 environ: dict[str, str] | None = None) -> str:
    with pytest.raises(SystemExit) as info:
        AgentConfig.from_args(["--name", "h", "--listen", "127.0.0.1:0", "--root", "/",
                               *options], environ or {})
    assert info.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_a_secret_others_can_read_or_too_short_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "agent.key"
    key.write_text(SECRET)
    key.chmod(0o644)
    assert config_error(capsys, "--secret-file", str(key)) == (
        f"laguna-agent: error: --secret-file {key}: the secret is readable by others "
        "(mode 644); it must be private to its owner (0600)")
    key.chmod(0o600)
    key.write_text("short")
    assert config_error(capsys, "--secret-file", str(key)) == (
        f"laguna-agent: error: --secret-file {key}: the secret is 5 characters long; "
        "at least 32 are needed")
    assert config_error(capsys, environ={"LAGUNA_AGENT_TOKEN": "x"}) == (
        "laguna-agent: error: $LAGUNA_AGENT_TOKEN: the secret is 1 characters long; "
        "at least 32 are needed")
    assert config_error(capsys, "--secret-file", str(tmp_path / "none")).startswith(
        f"laguna-agent: error: --secret-file {tmp_path / 'none'}: cannot read the secret: "
        "[Errno 2] No such file or directory")


def test_the_agents_files_are_private_whatever_its_umask(agent: Agent,
                                                         tmp_path: Path) -> None:
    ready, _, root = agent     # started with umask 022
    plan = touching(tmp_path / "ran")
    plan["ID"] = "p1"
    plan["Files"]["c"] = {"Name": "common.sh", "BodyType": "Text", "Body": "x=1"}
    plan["Scripts"]["touch"]["Files"] = ["c"]
    with AgentClient(ready["url"], SECRET) as client:
        client.execute(plan, 30)
    modes = {str(path.relative_to(tmp_path)): stat.S_IMODE(path.lstat().st_mode)
             for path in [tmp_path / "run" / "ready.json", *sorted((root / "agent").rglob("*")),
                          root / "agent"] if not path.is_symlink()}
    assert modes == {
        "run/ready.json": 0o600,
        "host/agent": 0o700,
        "host/agent/plans": 0o700,
        "host/agent/plans/p1": 0o700,
        "host/agent/plans/p1/files": 0o700,
        "host/agent/plans/p1/files/c": 0o600,
        "host/agent/plans/p1/files/t": 0o500,     # the entry point, made executable
        "host/agent/plans/p1/logs": 0o700,
        "host/agent/plans/p1/logs/001-touch.stdout": 0o600,
        "host/agent/plans/p1/logs/001-touch.stderr": 0o600,
        "host/agent/plans/p1/result.json": 0o600,
        "host/agent/plans/p1/touch": 0o700,
    }


def test_nonces_are_forgotten_once_their_timestamp_leaves_the_window() -> None:
    now = [1_000_000.0]
    verifier = signing.Verifier(b"k" * 32, clock=lambda: now[0])
    headers = signing.request_headers(b"k" * 32, "GET", "/v1/health", b"", "a" * 32, 1_000_000)
    assert verifier.check("GET", "/v1/health", headers) == ("a" * 32, signing.digest(b""))
    now[0] += 300
    with pytest.raises(signing.Refused, match="^The request was replayed: nonce a{32} was "
                       "already used$"):
        verifier.check("GET", "/v1/health", headers)
    now[0] += 1
    with pytest.raises(signing.Refused, match="^The request's timestamp is 301 seconds away"):
        verifier.check("GET", "/v1/health", headers)
    other = signing.request_headers(b"k" * 32, "GET", "/v1/health", b"", "b" * 32, 1_000_301)
    verifier.check("GET", "/v1/health", other)
    assert list(verifier._seen) == ["b" * 32]     # the first nonce's memory is freed


def test_the_drift_of_a_host_is_answered_only_to_a_signed_request(agent: Agent) -> None:
    ready, _, _ = agent
    request = urllib.request.Request(ready["url"] + "/v1/drift")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert (refused.value.code, json.load(refused.value)) == (401, {"error": {
        "message": "The request is not signed: it has no X-Laguna-Timestamp header"}})
    with AgentClient(ready["url"], SECRET) as client:
        assert client.drift() == {}
