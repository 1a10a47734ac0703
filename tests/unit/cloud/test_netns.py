"""``isolation="netns"``: a network namespace per host (root and iproute2 only)."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import sys
import typing as t

import pytest

from laguna.cloud import IsolationError
from laguna.cloud.local.driver import LocalCloud

from .helpers import health, pid_alive, stack_state

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2")
MakeCloud = t.Callable[..., LocalCloud]
BRIDGE = "lgtest0"
TEMPLATE = {"resources": {"web": {"type": "OS::Nova::Server"},
                          "db": {"type": "OS::Nova::Server"}}}


def namespaces(cloud: LocalCloud, stack: str) -> list[str]:
    state = stack_state(cloud, stack)
    return [r["data"]["netns"] for r in state["records"]]


def ns_exists(name: str) -> bool:
    return os.path.exists(f"/run/netns/{name}")


def bridge_exists() -> bool:
    return subprocess.run(["ip", "link", "show", BRIDGE], capture_output=True).returncode == 0


@pytest.fixture
def cloud(make_cloud: MakeCloud) -> LocalCloud:
    return make_cloud(isolation="netns", bridge=BRIDGE)


def test_hosts_get_namespace_addresses_from_the_test_range(cloud: LocalCloud) -> None:
    result = cloud.push_stack("env-1", TEMPLATE)
    network = ipaddress.ip_network("198.18.0.0/15")
    assert len({h.address for h in result.hosts}) == 2
    for host in result.hosts:
        assert ipaddress.ip_address(host.address) in network
        assert host.address != "198.18.0.1"        # the bridge's
        assert health(str(host.agent_url))["status"] == "ready"
    assert all(ns_exists(n) for n in namespaces(cloud, "env-1"))


def test_hosts_reach_each_other(cloud: LocalCloud) -> None:
    web, db = cloud.push_stack("env-1", TEMPLATE).hosts
    [web_ns, _] = namespaces(cloud, "env-1")
    fetch = f"import urllib.request; print(urllib.request.urlopen('{db.agent_url}/v1/health').read().decode())"
    out = subprocess.run(["ip", "netns", "exec", web_ns, sys.executable, "-c", fetch],
                         capture_output=True, check=True, timeout=30).stdout
    assert json.loads(out)["status"] == "ready"


def test_delete_removes_namespaces_and_the_bridge(cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", TEMPLATE)
    names = namespaces(cloud, "env-1")
    state = stack_state(cloud, "env-1")
    pids = [r["data"]["launch"]["pid"] for r in state["records"]]
    assert bridge_exists()
    cloud.delete_stack("env-1")
    assert [ns_exists(n) for n in names] == [False, False]
    assert [pid_alive(p) for p in pids] == [False, False]
    if not any(n.startswith("lg-") for n in os.listdir("/run/netns")):
        assert not bridge_exists()


def test_netns_needs_root(make_cloud: MakeCloud, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(IsolationError, match=r"^isolation 'netns' needs root$"):
        make_cloud(isolation="netns")
