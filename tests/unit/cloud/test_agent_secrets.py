"""Each host's agent answers only to its own secret, made anew whenever the
agent starts, and kept where no other user of the machine can read it."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import typing as t
from pathlib import Path

import pytest

from laguna.agent import AgentClient, AgentUnreachable
from laguna.cloud.base import Host
from laguna.cloud.local.driver import DEFAULT_AGENT, LocalCloud

from .helpers import pid_alive
from .test_local import agent_pid, kill_agent, servers

MakeCloud = t.Callable[..., LocalCloud]
WRONG = ("the agent refused the request: The request's signature is wrong: it was not "
         "signed with this host's secret")


@pytest.fixture
def real_cloud(make_cloud: MakeCloud) -> LocalCloud:
    return make_cloud(agent_command=DEFAULT_AGENT)


def refusal(host: Host, secret: str) -> str:
    """The reason the host's agent gives for refusing ``secret``."""
    assert host.agent_url is not None
    with AgentClient(host.agent_url, secret) as client, \
            pytest.raises(AgentUnreachable) as info:
        client.health()
    return info.value.reason


def healthy(host: Host) -> dict[str, t.Any]:
    assert host.agent_url is not None and host.agent_secret is not None
    with AgentClient(host.agent_url, host.agent_secret) as client:
        return client.health()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_each_host_has_a_secret_of_its_own_only_root_can_read(real_cloud: LocalCloud) -> None:
    web, db = real_cloud.push_stack("env-1", servers("web", "db")).hosts
    assert web.agent_secret is not None and db.agent_secret is not None
    assert (len(web.agent_secret), int(web.agent_secret, 16) >= 0) == (64, True)
    assert web.agent_secret != db.agent_secret
    assert "agent_secret" not in repr(web)
    key = real_cloud.directory / "run" / "env-1" / "web" / "agent.key"
    assert (key.read_text(), mode(key), key.stat().st_uid) == (web.agent_secret, 0o600, 0)
    assert (mode(key.parent), mode(real_cloud.directory)) == (0o700, 0o700)
    assert healthy(web) == {"name": "web-1", "status": "ready"}
    assert refusal(web, db.agent_secret) == WRONG
    # a new cloud object on the same folder (the next command) finds the same secret
    [again] = LocalCloud(real_cloud.directory, agent_command=DEFAULT_AGENT).hosts("env-1")[:1]
    assert again.agent_secret == web.agent_secret


def test_a_restarted_agent_has_a_new_secret_and_refuses_the_old(
        real_cloud: LocalCloud) -> None:
    [before] = real_cloud.push_stack("env-1", servers("web")).hosts
    kill_agent(real_cloud, "env-1", "web")
    [after] = real_cloud.push_stack("env-1", servers("web")).hosts
    assert after.address == before.address
    assert after.agent_secret != before.agent_secret
    assert before.agent_secret is not None
    assert refusal(after, before.agent_secret) == WRONG
    assert healthy(after)["status"] == "ready"


def test_a_host_made_again_has_a_new_secret(real_cloud: LocalCloud) -> None:
    [first] = real_cloud.push_stack("env-1", servers("web")).hosts
    real_cloud.delete_stack("env-1")
    assert not (real_cloud.directory / "run" / "env-1").exists()
    [second] = real_cloud.push_stack("env-1", servers("web")).hosts
    assert first.agent_secret is not None and second.agent_secret is not None
    assert second.agent_secret != first.agent_secret
    assert refusal(second, first.agent_secret) == WRONG


def test_an_agent_without_a_secret_is_replaced_by_the_next_push(
        real_cloud: LocalCloud) -> None:
    [before] = real_cloud.push_stack("env-1", servers("web")).hosts
    pid = agent_pid(real_cloud, "env-1", "web")
    # as a host started by a laguna whose agents took unsigned requests
    (real_cloud.directory / "run" / "env-1" / "web" / "agent.key").unlink()
    assert real_cloud.hosts("env-1")[0].agent_secret is None
    [after] = real_cloud.push_stack("env-1", servers("web")).hosts
    assert (agent_pid(real_cloud, "env-1", "web") != pid, pid_alive(pid)) == (True, False)
    assert after.agent_secret is not None and after.address == before.address
    assert healthy(after)["status"] == "ready"


# What another user of the machine tries: read the cloud's files, then send a
# plan to the agent at the address ``ss -ltn`` shows it. Standard library
# only, run by the system's python (root's own interpreter may not be
# reachable for that user).
ATTACK = """
import json, os, sys, urllib.error, urllib.request
cloud, url, plan = sys.argv[1:]
seen = {}
for name in ["", "run/env-1/web/ready.json", "run/env-1/web/agent.key",
             "run/env-1/web/agent.log", "stacks/env-1.json", "hosts/env-1/web",
             "/run/laguna/addresses"]:
    path = os.path.join(cloud, name)
    try:
        os.listdir(path) if os.path.isdir(path) else open(path).read()
        seen[name] = "read"
    except OSError as error:
        seen[name] = type(error).__name__
request = urllib.request.Request(url + "/v1/plans", data=plan.encode())
try:
    with urllib.request.urlopen(request, timeout=30) as answer:
        seen["plan"] = [answer.status, json.load(answer)]
except urllib.error.HTTPError as error:
    seen["plan"] = [error.code, json.load(error)]
print(json.dumps(seen))
"""
SYSTEM_PYTHON = "/usr/bin/python3"


NETNS = {"isolation": "netns", "bridge": "lgauth0", "address_range": "203.0.113.0/24"}


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("runuser") is None
                    or not os.path.exists(SYSTEM_PYTHON),
                    reason="needs root, runuser and the system's python3")
@pytest.mark.parametrize("isolation", [
    {},
    # the agent on its own network namespace, reached through the bridge
    pytest.param(NETNS, marks=pytest.mark.skipif(shutil.which("ip") is None,
                                                 reason="needs iproute2"), id="netns"),
], ids=["loopback", "netns"])
def test_another_user_reads_nothing_and_runs_nothing(make_cloud: MakeCloud,
                                                     isolation: dict[str, str]) -> None:
    # not under pytest's 0700 temporary folder: the cloud's own modes must hold
    base = Path(tempfile.mkdtemp(prefix="laguna-attack-", dir="/tmp"))
    base.chmod(0o755)
    cloud = make_cloud(base / ".laguna" / "cloud", agent_command=DEFAULT_AGENT, **isolation)
    (base / ".laguna").chmod(0o755)      # as loose as a working directory can be
    try:
        [host] = cloud.push_stack("env-1", servers("web")).hosts
        assert str(host.agent_url).startswith("http://203.0.113." if isolation
                                              else "http://127.42.")
        marker = base / "pwned"
        plan = {"FormatVersion": "2.0.0", "ID": "x", "Body": "return id().stdout",
                "Files": {"f": {"Name": "id.sh", "BodyType": "Text",
                                "Body": f"id > {marker}; id"}},
                "Scripts": {"id": {"Type": "Application", "EntryPoint": "f"}}}
        done = subprocess.run(
            ["runuser", "-u", "nobody", "--", SYSTEM_PYTHON, "-I", "-c", ATTACK,
             str(cloud.directory), str(host.agent_url), json.dumps({"plan": plan})],
            capture_output=True, text=True, timeout=60, cwd="/")
        assert done.returncode == 0, done.stderr
        denied = "PermissionError"
        assert json.loads(done.stdout) == {
            "": denied, "run/env-1/web/ready.json": denied, "run/env-1/web/agent.key": denied,
            "run/env-1/web/agent.log": denied, "stacks/env-1.json": denied,
            "hosts/env-1/web": denied, "/run/laguna/addresses": denied,
            "plan": [401, {"error": {"message": (
                "The request is not signed: it has no X-Laguna-Timestamp header")}}]}
        assert not marker.exists()
    finally:
        for stack in cloud.stacks():
            cloud.delete_stack(stack)
        shutil.rmtree(base)
        if isolation:   # this test's own bridge, kept while other clouds' namespaces live
            subprocess.run(["ip", "link", "del", NETNS["bridge"]], capture_output=True)
