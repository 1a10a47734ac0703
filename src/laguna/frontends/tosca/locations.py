"""AMP's per-node locations (seed 003: an initializer group's ``location``
property): which of laguna's clouds the members' machines are servers of.

A location applies to the machine at the bottom of a member's hosting chain (a
Compute without its own create): that machine becomes a server of the named
cloud, whatever ``--cloud`` says for the environment's other machines. A member
hosted on nothing becomes a machine of its own (AMP's software process
provisions a machine from its location). Two locations for one machine (given to
it, or to nodes hosted on it) are a problem. One environment's servers may live
on several clouds: each located machine on the cloud of its location, the
others on the environment's (``--cloud``). A location naming a cloud that
cannot be opened here (the ssh cloud without an inventory, the container cloud
without podman) refuses the deploy before anything runs (:func:`refusal`).
"""

from __future__ import annotations

import typing as t

from laguna.frontends.tosca.model import Node
from laguna.frontends.tosca.problems import INVALID_TEMPLATE

#: laguna's clouds a location may name
CLOUDS = ("local", "containers", "ssh")

#: a problem: (kind, message, the node it concerns, the group that located it)
Finding = tuple[str, str, str, str]


def check(value: object) -> str | None:
    """What is wrong with a ``location`` value (None: nothing)."""
    if isinstance(value, str) and value in CLOUDS:
        return None
    return (f"location {value!r} is not one of laguna's clouds ({', '.join(CLOUDS)}); "
            "AMP's registered locations and location specs are not known here")


def assign(groups: t.Mapping[str, t.Mapping[str, t.Any]], nodes: t.Mapping[str, Node],
           initializer: str) -> list[Finding]:
    """Set each member's location from its initializer groups, then each machine's
    from the nodes hosted on it; the problems found."""
    found: list[Finding] = []
    given: dict[str, tuple[str, str]] = {}
    for name, group in groups.items():
        location = (group.get("properties") or {}).get("location")
        if group.get("type") != initializer or check(location) is not None:
            continue
        for member in group.get("members") or []:
            if member not in nodes:
                continue
            before = given.get(member)
            if before is not None and before[0] != location:
                found.append((INVALID_TEMPLATE, f"two locations: {before[0]} (group "
                              f"{before[1]}) and {location} (group {name})", member, name))
                continue
            given[member] = (str(location), name)
            nodes[member].location = str(location)
    for name in list(given):
        machine = bottom(nodes, nodes[name])
        if machine is None or machine.name == name:
            continue
        location = given[name][0]
        if machine.location is not None and machine.location != location:
            found.append((INVALID_TEMPLATE, f"located on {location}, but the machine it is "
                          f"hosted on, {machine.name}, is located on {machine.location}",
                          name, given[name][1]))
            continue
        machine.location = location
    return found


def bottom(nodes: t.Mapping[str, Node], node: Node) -> Node | None:
    """The node at the bottom of ``node``'s hosting chain (``node`` itself when it is
    hosted on nothing); None on a loop."""
    current, seen = node, set()
    while current.hosts and current.hosts[0] in nodes:
        if current.name in seen:
            return None
        seen.add(current.name)
        current = nodes[current.hosts[0]]
    return current


def located(nodes: t.Iterable[Node]) -> dict[str, str]:
    """Each located node's location, by node name."""
    return {node.name: node.location for node in nodes if node.location is not None}


def refusal(nodes: t.Iterable[Node], opened: t.Callable[[str], str | None]) -> str | None:
    """Why the located nodes cannot be placed: ``opened(kind)`` opens the cloud of
    a location, and says why it cannot be (what to give: the cloud's own
    words), None when it is there."""
    why: dict[str, str | None] = {}
    for name, location in sorted(located(nodes).items()):
        if location not in why:
            why[location] = opened(location)
        reason = why[location]
        if reason is not None:
            return (f"node {name}: location {location}: the {location} cloud is not "
                    f"configured for this environment: {reason}")
    return None
