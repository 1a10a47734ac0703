"""AgentClient against an in-process AgentServer, and the RecordingAgent fake."""

from __future__ import annotations

import datetime
import itertools
import secrets
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from laguna.agent import (
    AgentClient,
    AgentPlanRejected,
    AgentTimeout,
    AgentTransport,
    AgentUnreachable,
    RecordingAgent,
)
from laguna.agent import signing
from laguna.agent.executor import PlanExecutor
from laguna.agent.results import ResultFactory
from laguna.agent.server import AgentServer

TIME = "2026-01-02 03:04:05"
SECRET = "0123456789abcdef" * 4
SLEEPER = {"FormatVersion": "2.0.0", "ID": "slow", "Body": "return deploy()",
           "Files": {"f": {"Name": "s.sh", "BodyType": "Text", "Body": "exec sleep 60"}},
           "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "f"}}}


def serve(tmp_path: Path, secret: str = SECRET) -> Iterator[AgentServer]:
    ids = itertools.count(1)
    results = ResultFactory(clock=lambda: datetime.datetime(2026, 1, 2, 3, 4, 5),
                            new_id=lambda: f"r{next(ids)}")
    executor = PlanExecutor(tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, results)
    server = AgentServer("h1", ("127.0.0.1", 0), executor, secret, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[AgentServer]:
    yield from serve(tmp_path)


def test_health(server: AgentServer) -> None:
    with AgentClient(server.url, SECRET) as client:
        assert client.health() == {"name": "h1", "status": "ready"}


def test_server_starts_without_asking_the_resolver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dns(name: str = "") -> str:
        raise AssertionError(f"getfqdn({name!r}) called")

    monkeypatch.setattr("socket.getfqdn", no_dns)
    server = AgentServer("h1", ("127.0.0.1", 0), PlanExecutor(tmp_path, {}), SECRET,
                         quiet=True)
    try:
        port = server.server_address[1]
        assert (server.url, server.server_name, server.server_port) == (
            f"http://127.0.0.1:{port}", "127.0.0.1", port)
    finally:
        server.server_close()


def test_execute_returns_the_result_document(server: AgentServer) -> None:
    plan = {"FormatVersion": "2.0.0", "ID": "p1", "Body": "return args.x + 1",
            "Parameters": {"x": 41}, "Scripts": {}}
    with AgentClient(server.url, SECRET) as client:
        assert client.execute(plan, 10) == {
            "FormatVersion": "2.0.0", "ID": "r1", "SourceID": "p1",
            "Action": "Execution:Result", "ErrorCode": 0, "Body": 42, "Time": TIME}


def test_refused_plan_raises_plan_rejected(server: AgentServer) -> None:
    with AgentClient(server.url, SECRET) as client, pytest.raises(AgentPlanRejected) as info:
        client.execute({"FormatVersion": "2.3.0", "ID": "p1", "Scripts": {}, "Body": ""}, 10)
    message = "Unsupported format version 2.3.0 (I support versions <=2.2.0)"
    assert (info.value.message, info.value.error_code, info.value.result) == (message, 9, {
        "FormatVersion": "2.0.0", "ID": "r1", "SourceID": "p1", "Action": "Execution:Result",
        "ErrorCode": 9, "Body": {"Message": message, "AdditionalInfo": None}, "Time": TIME})


def test_timeout_on_the_agent_raises_agent_timeout(server: AgentServer) -> None:
    with AgentClient(server.url, SECRET) as client, pytest.raises(AgentTimeout) as info:
        client.execute(SLEEPER, 0.3)
    assert (str(info.value), info.value.plan_id, info.value.seconds) == (
        "The agent did not respond within 0.3 seconds (plan slow)", "slow", 0.3)


def test_no_answer_in_time_raises_agent_timeout() -> None:
    def never(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with AgentClient("http://agent", SECRET, transport=httpx.MockTransport(never)) as client:
        with pytest.raises(AgentTimeout) as info:
            client.execute({"ID": "p9", "FormatVersion": "2.0.0"}, 7)
    assert repr(info.value) == "AgentTimeout(plan_id='p9', seconds=7)"


def test_timeout_of_a_plan_without_id() -> None:
    assert str(AgentTimeout(None, 2.5)) == "The agent did not respond within 2.5 seconds"


def test_malformed_request_is_a_400(server: AgentServer) -> None:
    body = b'{"plan": {}, "timeout": -1}'
    headers = signing.request_headers(SECRET.encode(), "POST", "/v1/plans", body,
                                      secrets.token_hex(16), int(time.time()))
    response = httpx.post(server.url + "/v1/plans", content=body, headers=headers)
    assert (response.status_code, response.json()) == (400, {"error": {
        "code": 2, "message": "timeout must be a positive number of seconds, not -1"}})


def test_nothing_listening_raises_unreachable(tmp_path: Path) -> None:
    with AgentClient("http://127.0.0.1:9", SECRET) as client, \
            pytest.raises(AgentUnreachable) as info:
        client.health()
    assert info.value.url == "http://127.0.0.1:9"


def test_a_client_with_another_secret_is_refused(server: AgentServer) -> None:
    with AgentClient(server.url, "another secret" * 3) as client:
        with pytest.raises(AgentUnreachable) as info:
            client.health()
    assert (info.value.url, info.value.reason) == (
        server.url, "the agent refused the request: The request's signature is wrong: it "
        "was not signed with this host's secret")


def test_recording_agent_records_plans_and_answers_empty_success() -> None:
    agent = RecordingAgent()
    assert isinstance(agent, AgentTransport)
    v2 = {"FormatVersion": "2.0.0", "ID": "p1", "Body": "return deploy()"}
    v1: dict[str, Any] = {"Scripts": [], "Commands": []}
    assert agent.execute(v2, 30) == {
        "FormatVersion": "2.0.0", "ID": "result-1", "SourceID": "p1",
        "Action": "Execution:Result", "ErrorCode": 0, "Body": None,
        "Time": "1970-01-01 00:00:00"}
    assert agent.execute(v1, 5) == {"IsException": False, "Result": []}
    assert (agent.plans, agent.timeouts) == ([v2, v1], [30, 5])


def test_recording_agent_answers_what_it_is_given() -> None:
    agent = RecordingAgent(answer=lambda plan, timeout: {"echo": plan["ID"]})
    agent.then({"first": True}, AgentTimeout("p2", 1))
    assert agent.execute({"ID": "p1"}, 1) == {"first": True}
    with pytest.raises(AgentTimeout):
        agent.execute({"ID": "p2"}, 1)
    assert agent.execute({"ID": "p3"}, 1) == {"echo": "p3"}
    assert [plan["ID"] for plan in agent.plans] == ["p1", "p2", "p3"]


def test_plain_http_clients_make_no_tls_context_of_their_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx builds an SSL context for every client, a millisecond each, even for
    plain HTTP where it is never used; the engine makes a client per host."""
    AgentClient("http://127.0.0.1:9", SECRET).close()     # the one shared context, if not yet made
    made: list[object] = []
    real = ssl.SSLContext.__new__

    def counted(cls: type[ssl.SSLContext], *args: Any, **kwargs: Any) -> ssl.SSLContext:
        made.append(args)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "__new__", counted)
    for port in (9, 10, 11):
        with AgentClient(f"http://127.0.0.1:{port}", SECRET):
            pass
    assert made == []


def test_a_tracked_plan_and_the_hosts_drift_over_http(server: AgentServer,
                                                      tmp_path: Path) -> None:
    from laguna.agent import Track
    from laguna.hosts.plans import script_plan

    plan = script_plan("conf", "echo on > \"$HOME/web.conf\"\n")
    with AgentClient(server.url, SECRET) as client:
        assert client.drift() == {}
        result = client.execute(plan, 10, track=Track("web", ("/nowhere/declared",)))
        assert result["Body"]["exitCode"] == 0
        assert client.drift() == {"web": {
            "tracked": {"processes": 0, "files": 1, "addresses": 0}, "drift": []}}
        (tmp_path / "web.conf").unlink()
        assert client.drift()["web"]["drift"] == [
            {"kind": "file", "what": str(tmp_path / "web.conf"), "problem": "missing"}]


@pytest.mark.parametrize(("extra", "message"), [
    ({"component": ""}, "component must be a non-empty string, not ''"),
    ({"component": 3}, "component must be a non-empty string, not 3"),
    ({"component": "web", "files": "a"}, "files must be a list of paths, not 'a'"),
])
def test_a_bad_component_or_files_is_refused(server: AgentServer, extra: dict[str, Any],
                                             message: str) -> None:
    import json

    body = json.dumps({"plan": {"FormatVersion": "2.0.0", "Body": "return"},
                       **extra}).encode()
    headers = signing.request_headers(SECRET.encode(), "POST", "/v1/plans", body,
                                      secrets.token_hex(16), int(time.time()))
    answer = httpx.post(f"{server.url}/v1/plans", content=body, headers=headers)
    assert (answer.status_code, answer.json()) == (
        400, {"error": {"code": 2, "message": message}})
