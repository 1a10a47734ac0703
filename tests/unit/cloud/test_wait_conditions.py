"""OS::Heat::WaitCondition and OS::Heat::WaitConditionHandle (issue 23: murano-apps'
PivotalOperationsManager pushes both): dry runs meet the condition at once; the
local cloud serves the handle's URL and holds the push until enough signals."""

from __future__ import annotations

import json
import threading
import typing as t
import urllib.error
import urllib.request

import pytest

from laguna.cloud import RecordingCloud
from laguna.cloud.errors import CloudError, WaitConditionError
from laguna.cloud.local.driver import LocalCloud


def template(count: t.Any = 1, timeout: t.Any = 600, handle: t.Any = None) -> dict[str, t.Any]:
    return {
        "heat_template_version": "2013-05-23",
        "resources": {
            "wait_handle": {"type": "OS::Heat::WaitConditionHandle"},
            "wait_condition": {"type": "OS::Heat::WaitCondition", "properties": {
                "handle": handle or {"get_resource": "wait_handle"},
                "count": count, "timeout": timeout}},
        },
        "outputs": {
            "curl": {"value": {"get_attr": ["wait_handle", "curl_cli"]}},
            "url": {"value": {"get_attr": ["wait_handle", "endpoint"]}},
            "data": {"value": {"get_attr": ["wait_condition", "data"]}},
        },
    }


# -- dry runs ----------------------------------------------------------------------------
def test_dry_run_meets_the_condition_at_once_with_count_signals() -> None:
    cloud = RecordingCloud()
    outputs = cloud.push_stack("env", template(count=2)).outputs
    url = outputs["url"]
    assert url.startswith("http://signals.dry-run.invalid/signal/")
    assert outputs["curl"] == ("curl -i -X POST -H 'Content-Type: application/json' "
                               f"-H 'Accept: application/json' {url}")
    assert outputs["data"] == '{"1": null, "2": null}'
    # the same every run, as a dry run's addresses are
    assert RecordingCloud().push_stack("env", template(count=2)).outputs == outputs


@pytest.mark.parametrize(("changes", "message"), [
    ({"handle": "nope"}, "stack 'env': resources.wait_condition.properties.handle: no "
                         "OS::Heat::WaitConditionHandle 'nope' in the stack"),
    ({"count": 0}, "stack 'env': resources.wait_condition.properties.count: must be a "
                   "positive integer, got 0"),
    ({"timeout": None}, "stack 'env': resources.wait_condition.properties.timeout: a number "
                        "of seconds greater than 0 is needed, got None"),
])
def test_bad_properties_fail_the_push(changes: dict[str, t.Any], message: str) -> None:
    with pytest.raises(CloudError) as info:
        RecordingCloud().push_stack("env", template(**changes))
    assert str(info.value) == message


# -- the local cloud -------------------------------------------------------------------------
def post(url: str, body: dict[str, t.Any] | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else b""
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def push_in_thread(cloud: LocalCloud, tpl: dict[str, t.Any]) -> tuple[threading.Thread,
                                                                   dict[str, t.Any]]:
    outcome: dict[str, t.Any] = {}

    def run() -> None:
        try:
            outcome["result"] = cloud.push_stack("env", tpl)
        except Exception as exc:   # the test looks at it
            outcome["error"] = exc
    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def handle_url(cloud: LocalCloud) -> str:
    """The handle's URL, once the push being made has created the handle."""
    server = cloud.signal_server()
    for _ in range(500):
        handles = list(server._handles)
        if handles:
            handle = server._handles[handles[0]]
            return f"{server.base_url}/signal/{handles[0]}/{handle.secret}"
        threading.Event().wait(0.01)
    raise AssertionError("no handle was registered")


def test_local_push_waits_for_count_signals_on_a_url_hosts_reach(cloud: LocalCloud) -> None:
    thread, outcome = push_in_thread(cloud, template(count=2, timeout=20))
    url = handle_url(cloud)
    assert url.startswith("http://127.0.0.1:")     # loopback hosts share 127/8
    assert post(url, {"status": "SUCCESS", "id": "a", "data": "one"}) == 200
    thread.join(0.3)
    assert thread.is_alive()                         # one of two: still waiting
    assert post(url) == 200                          # an empty body is a success
    thread.join(10)
    outputs = outcome["result"].outputs
    assert outputs["url"] == url
    assert json.loads(outputs["data"]) == {"a": "one", "2": None}


def test_a_wrong_secret_is_refused(cloud: LocalCloud) -> None:
    thread, outcome = push_in_thread(cloud, template(count=1, timeout=20))
    url = handle_url(cloud)
    assert post(url[:-3] + "xyz") == 403
    assert post(url.rsplit("/", 1)[0]) == 404
    assert post(url, {"status": "MAYBE"}) == 400
    thread.join(0.2)
    assert thread.is_alive()
    assert post(url) == 200
    thread.join(10)
    assert "result" in outcome


def test_timeout_fails_the_push_and_the_next_push_waits_again(cloud: LocalCloud) -> None:
    with pytest.raises(WaitConditionError) as info:
        cloud.push_stack("env", template(count=1, timeout=0.3))
    assert info.value.code == "LAG-E1213"
    assert str(info.value) == ("stack 'env': resources.wait_condition: wait condition timed "
                               "out after 0.3 s: 0 of 1 signal(s) reached handle "
                               "'wait_handle'")
    # a late signal counts for the same handle at the next push
    url = handle_url(cloud)
    assert post(url, {"data": "late"}) == 200
    outputs = cloud.push_stack("env", template(count=1, timeout=0.3)).outputs
    assert outputs["data"] == '{"1": "late"}'


def test_a_failure_signal_fails_the_push_with_its_reason(cloud: LocalCloud) -> None:
    thread, outcome = push_in_thread(cloud, template(count=3, timeout=20))
    url = handle_url(cloud)
    assert post(url, {"status": "FAILURE", "reason": "no settings file"}) == 200
    thread.join(10)
    assert str(outcome["error"]) == ("stack 'env': resources.wait_condition: wait condition "
                                     "failed: signal '1' on handle 'wait_handle' reported "
                                     "FAILURE: no settings file")


def test_a_host_signals_through_its_handle_url(
        make_cloud: t.Callable[..., LocalCloud]) -> None:
    # a real agent on a host runs a script that POSTs to the handle's URL, as a
    # server's `curl_cli` would: the endpoint is reachable from the hosts
    import base64

    from laguna.agent.client import AgentClient
    from laguna.cloud.local.driver import DEFAULT_AGENT, SECRET_FILE

    from .helpers import wait_for

    cloud = make_cloud(agent_command=DEFAULT_AGENT)
    tpl = template(count=1, timeout=30)
    tpl["resources"]["host"] = {"type": "OS::Nova::Server", "properties": {"name": "host-1"}}
    thread, outcome = push_in_thread(cloud, tpl)
    url = handle_url(cloud)
    ready = cloud.run_dir("env", "host") / "ready.json"
    wait_for(lambda: ready.exists() and bool(ready.read_text().strip()))
    script = (b'python3 -c "import sys, urllib.request; urllib.request.urlopen('
              b"urllib.request.Request(sys.argv[1], data=b'{\\\"data\\\": \\\"from host\\\"}', "
              b"method='POST'), timeout=10)\" \"$1\"")
    plan = {"FormatVersion": "2.1.0", "ID": "signal", "Parameters": {"url": url},
            "Body": "return signal(args.url).exitCode",
            "Files": {"s": {"Name": "signal.sh", "BodyType": "Base64",
                            "Body": base64.b64encode(script).decode()}},
            "Scripts": {"signal": {"Type": "Application", "EntryPoint": "s"}}}
    secret = (cloud.run_dir("env", "host") / SECRET_FILE).read_text()
    with AgentClient(json.loads(ready.read_text())["url"], secret) as client:
        result = client.execute(plan, 30)
    assert (result["ErrorCode"], result["Body"]) == (0, 0), result
    thread.join(20)
    assert outcome["result"].outputs["data"] == '{"1": "from host"}'
