"""Security groups as nftables rules between the containers of a stack.

Containers of a stack share one bridge, so traffic between them is bridged,
not routed: the rules live in a ``bridge`` table of their own per stack
(``laguna_<cloud>_<stack>``), on the bridge's forward hook. The kernel of the
machine this was built on has no connection tracking for bridges, so the
rules are stateless:

* a server is protected once one of its security groups (the server's
  ``security_groups`` or its ports') is a group of the stack;
* to a protected server, new TCP connections (SYN without ACK), ICMP echo
  requests and UDP datagrams to ports below 32768 are dropped unless an
  ingress rule of one of its groups allows them (protocol, port range,
  ``remote_ip_prefix`` or the addresses of ``remote_group_id``'s servers);
  packets of connections already open (and UDP answers to the server's own
  ephemeral ports) pass;
* egress rules are not enforced (Neutron's default group allows all egress),
  nor is traffic between this machine and its containers (the engine reaches
  the agents, and a user's curl reaches the services, whatever the groups say).

Every rule counts what it matched (``nft list table bridge laguna_...``).
Where ``nft`` is missing or refuses the table, the groups are recorded but
not enforced, and a warning says so.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import shutil
import subprocess
import typing as t

from laguna.cloud.resources import Port, SecurityGroup, Server
from laguna.cloud.state import ResourceRecord, StackState

log = logging.getLogger("laguna.cloud.containers")

SYN = "tcp flags & (syn | ack) == syn"
PROTOCOLS = {"tcp": "tcp", "6": "tcp", "udp": "udp", "17": "udp", "icmp": "icmp", "1": "icmp"}


def table_name(cloud_id: str, stack: str) -> str:
    return f"laguna_{cloud_id[:8]}_{hashlib.sha256(stack.encode()).hexdigest()[:10]}"


def _group(state: StackState, ref: t.Any) -> ResourceRecord | None:
    found = state.by_id(ref)
    if found is not None and found.type == SecurityGroup.name:
        return found
    return next((g for g in state.of_type(SecurityGroup.name)
                 if ref in (g.name, g.properties.get("name"))), None)


def groups_of(state: StackState, server: ResourceRecord) -> list[ResourceRecord]:
    refs = list(server.properties.get("security_groups") or [])
    for entry in server.data.get("addresses", []):
        port = state.by_id(entry.get("port")) if entry.get("port") else None
        if port is not None and port.type == Port.name:
            refs.extend(port.properties.get("security_groups") or [])
    groups: list[ResourceRecord] = []
    for ref in refs:
        group = _group(state, ref)
        if group is not None and group not in groups:
            groups.append(group)
    return groups


def rules(state: StackState) -> list[str]:
    """The forward chain's rules for a stack's servers and groups."""
    servers = [s for s in state.of_type(Server.name) if s.data.get("addresses")]
    members: dict[str, list[str]] = {}
    protected: list[tuple[str, list[ResourceRecord]]] = []
    for server in servers:
        address = server.data["addresses"][0]["addr"]
        groups = groups_of(state, server)
        for group in groups:
            members.setdefault(group.id, []).append(address)
        if groups:
            protected.append((address, groups))
    lines: list[str] = []
    for address, groups in protected:
        for group in groups:
            for rule in group.properties.get("rules") or []:
                if isinstance(rule, dict):
                    lines.extend(_allow(state, address, rule, members))
        lines += [f"ip daddr {address} {SYN} counter drop",
                  f"ip daddr {address} icmp type echo-request counter drop",
                  f"ip daddr {address} udp dport 0-32767 counter drop"]
    return lines


def _allow(state: StackState, address: str, rule: t.Mapping[str, t.Any],
           members: t.Mapping[str, list[str]]) -> list[str]:
    if str(rule.get("direction") or "ingress") != "ingress" \
            or str(rule.get("ethertype") or "IPv4") != "IPv4":
        return []
    match = f"ip daddr {address}"
    remote_group = rule.get("remote_group_id")
    if rule.get("remote_mode") == "remote_group_id" or remote_group is not None:
        group = _group(state, remote_group) if remote_group is not None else None
        sources = members.get(group.id, []) if group is not None else []
        if not sources:
            return []
        match += " ip saddr { " + ", ".join(sources) + " }"
    elif rule.get("remote_ip_prefix"):
        try:
            prefix = ipaddress.ip_network(str(rule["remote_ip_prefix"]), strict=False)
        except ValueError:
            return []
        if prefix.version != 4:
            return []
        if prefix.prefixlen:
            match += f" ip saddr {prefix}"
    protocol = PROTOCOLS.get(str(rule.get("protocol") or "").lower())
    if rule.get("protocol") not in (None, "", "any") and protocol is None:
        return []           # a protocol the stateless rules do not tell apart
    low, high = rule.get("port_range_min"), rule.get("port_range_max")
    ports = ""
    if isinstance(low, int) and not isinstance(low, bool):
        ports = f" dport {low}" if not isinstance(high, int) or high == low \
            else f" dport {low}-{high}"
    if protocol == "tcp":
        return [f"{match} {SYN} tcp{ports} counter accept" if ports
                else f"{match} {SYN} counter accept"]
    if protocol == "udp":
        return [f"{match} udp{ports} counter accept" if ports
                else f"{match} meta l4proto udp counter accept"]
    if protocol == "icmp":
        return [f"{match} icmp type echo-request counter accept"]
    return [f"{match} counter accept"]


class Firewall:
    """Writes and removes the tables of a cloud's stacks."""

    def __init__(self, cloud_id: str) -> None:
        self.cloud_id = cloud_id
        self.nft = shutil.which("nft")
        self._warned = False

    def _warn(self, why: str) -> None:
        if not self._warned:
            log.warning("security groups are recorded but not enforced: %s", why)
            self._warned = True

    def _run(self, script: str) -> bool:
        assert self.nft is not None
        done = subprocess.run([self.nft, "-f", "-"], input=script, capture_output=True,
                              text=True, timeout=60)
        if done.returncode != 0:
            self._warn(f"nft refused the rules: {done.stderr.strip()[-500:]}")
        return done.returncode == 0

    def apply(self, state: StackState) -> bool:
        """Make the stack's table say what its groups allow; True if enforced."""
        lines = rules(state)
        if self.nft is None:
            if lines:
                self._warn("nft is not installed (apt-get install nftables)")
            return False
        table = f"bridge {table_name(self.cloud_id, state.stack)}"
        # declared then deleted: gone whether or not it was there, atomically
        script = f"table {table} {{}}\ndelete table {table}\n"
        if lines:
            body = "\n".join(f"    {line}" for line in lines)
            script += (f"table {table} {{\n  chain forward {{\n"
                       "    type filter hook forward priority 0; policy accept;\n"
                       f"{body}\n  }}\n}}\n")
        return self._run(script) and bool(lines)

    def remove(self, stack: str) -> None:
        if self.nft is not None:
            table = f"bridge {table_name(self.cloud_id, stack)}"
            self._run(f"table {table} {{}}\ndelete table {table}\n")
