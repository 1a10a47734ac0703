"""Network namespaces for ``isolation="netns"`` (root and iproute2 only).

Every host gets a namespace with ``lo`` and ``eth0``, one end of a veth pair
whose other end is enslaved to a bridge in the root namespace. The bridge
holds the range's first address, so this machine (the engine) and the hosts
reach each other, and hosts reach each other, with no routing or forwarding.
The bridge is made when the first host needs it and removed by
:func:`remove_bridge` once no namespace of ours is left; both happen under one
lock file, with the namespace's creation.
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import shutil
import subprocess
import typing as t
from pathlib import Path

from laguna.cloud.errors import IsolationError

PREFIX = "lg-"


def check_available() -> None:
    if os.geteuid() != 0:
        raise IsolationError("isolation 'netns' needs root")
    if shutil.which("ip") is None:
        raise IsolationError("isolation 'netns' needs iproute2's 'ip' command")


def _ip(*args: str, batch: t.Sequence[str] = (), check: bool = True) -> bool:
    argv = ["ip", *args]
    if batch:
        argv += ["-batch", "-"]
    result = subprocess.run(argv, input="\n".join(batch).encode(), capture_output=True)
    if check and result.returncode != 0:
        raise IsolationError(f"'{' '.join(argv)}' failed: "
                             f"{result.stderr.decode(errors='replace').strip()}")
    return result.returncode == 0


def gateway(network: str) -> str:
    return str(ipaddress.ip_network(network).network_address + 1)


def _ensure_bridge(bridge: str, network: str) -> None:
    if _ip("link", "show", bridge, check=False):
        return
    prefix = ipaddress.ip_network(network).prefixlen
    _ip(batch=[f"link add {bridge} type bridge",
               f"addr add {gateway(network)}/{prefix} dev {bridge}",
               f"link set {bridge} up"])


def remove_bridge(bridge: str, lock: Path) -> None:
    """Remove the bridge if no namespace of ours is left."""
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        names = os.listdir("/run/netns") if os.path.isdir("/run/netns") else []
        if not any(n.startswith(PREFIX) for n in names):
            _ip("link", "del", bridge, check=False)


def create(hosts: t.Sequence[tuple[str, t.Sequence[str]]], network: str, bridge: str,
           lock: Path) -> None:
    """A namespace per ``(name, addresses)`` whose eth0 holds the addresses, on
    the bridge (made if missing; under the lock, so no one removes it meanwhile).
    One ``ip`` process does the root side of all of them."""
    prefix = ipaddress.ip_network(network).prefixlen
    root_side = []
    for name, _ in hosts:
        veth = "lgv" + name[len(PREFIX):][:12]
        root_side += [f"netns add {name}",
                      f"link add {veth} type veth peer name eth0 netns {name}",
                      f"link set {veth} master {bridge}", f"link set {veth} up"]
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        _ensure_bridge(bridge, network)
        _ip(batch=root_side)
    for name, addresses in hosts:
        _ip("-n", name, batch=[*(f"addr add {a}/{prefix} dev eth0" for a in addresses),
                               "link set lo up", "link set eth0 up",
                               f"route add default via {gateway(network)}"])


def delete(*names: str) -> None:
    """Remove namespaces (and their veth pairs); missing ones are fine."""
    present = [n for n in names if os.path.exists(f"/run/netns/{n}")]
    if present:
        _ip(batch=[f"netns del {n}" for n in present])
