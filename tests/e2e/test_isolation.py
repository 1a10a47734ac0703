"""``--isolation netns``: the web example on hosts with network namespaces of
their own, reachable through the cloud's bridge, and nothing left after."""

from __future__ import annotations

import ipaddress
import os
import shutil
from pathlib import Path

import pytest

from laguna.cloud.local.statefiles import StateFiles

from .helpers import EXAMPLES, laguna, nothing_left, unreachable, wait_for_page

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2")
# A range of its own: the cloud unit tests use 198.18.0.0/15 on another bridge
RANGE = "198.19.240.0/24"


def test_web_server_on_a_host_with_its_own_namespace(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver" / "web.yaml"),
                          "-l", str(EXAMPLES / "webserver"),
                          "--isolation", "netns", "--address-range", RANGE)
    assert (code, result["status"]) == (0, "ok"), result["error"]
    url = result["outputs"]["web.url"]
    address = url.split("//")[1].split(":")[0]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(RANGE)
    assert "Hello from laguna" in wait_for_page(url, "Hello from laguna")
    files = StateFiles(workdir / ".laguna" / "cloud" / "stacks")
    namespaces = [record.data["netns"] for stack in files.stacks()
                  for record in files.load(stack).records.values()  # type: ignore[union-attr]
                  if "netns" in record.data]
    assert len(namespaces) == 1 and os.path.exists(f"/run/netns/{namespaces[0]}")

    # the kept isolation: undeploy names none
    code, result = laguna(workdir, "undeploy", "web")
    assert (code, result["state"]) == (0, "undeployed")
    assert unreachable(url)
    nothing_left(workdir)
    assert not os.path.exists(f"/run/netns/{namespaces[0]}")
