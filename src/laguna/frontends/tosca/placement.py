"""Where each node instance's operations run, known before anything runs.

A ``tosca.nodes.Compute`` without its own create operation is a machine: this
machine by default (AMP's localhost location), a host of the local cloud with
``--cloud local``. A node runs where the bottom of its hosting chain is:
instance ``i`` of a node is hosted on instance ``i mod n`` of a host with
``n`` instances. A node hosted on nothing runs on this machine.
"""

from __future__ import annotations

import dataclasses

from laguna.frontends.tosca.model import Node, Topology

#: where operations run without the local cloud
THIS_MACHINE = "this machine"


def is_machine(node: Node) -> bool:
    """Whether ``node`` is a machine laguna provides (not one it creates itself): a
    Compute without its own create, or a node hosted on nothing that has a location
    (AMP provisions a machine for it from its location, locations.py)."""
    if node.is_a("tosca.nodes.Compute"):
        return node.interfaces.get("Standard", {}).get("create") is None
    return node.location is not None and not node.hosts


def on_cloud(machine: Node, cloud: bool) -> bool:
    """Whether a machine is a server of the environment's cloud: all are with
    ``--cloud`` (``cloud``), a located one always."""
    return cloud or machine.location is not None


def instance_ids(node: Node) -> list[str]:
    """The ids of ``node``'s instances: its name, or ``name.i`` when it has several."""
    if node.instances == 1:
        return [node.name]
    return [f"{node.name}.{i}" for i in range(node.instances)]


def host_name(instance_id: str) -> str:
    """The local cloud's name for the host a Compute instance becomes."""
    return "tosca_" + "".join(c if c.isalnum() else "_" for c in instance_id)


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where one instance's operations run."""

    instance: str
    #: the local cloud's host, or THIS_MACHINE
    host: str
    #: the Compute instance at the bottom of its hosting chain (None: hosted on nothing)
    compute: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"instance": self.instance, "host": self.host, "compute": self.compute}


def place(topology: Topology, node: Node, index: int, cloud: bool) -> Placement:
    """Where instance ``index`` of ``node`` runs (``cloud``: with the local cloud)."""
    current, current_index = node, index
    seen: set[str] = set()
    while current.hosts and current.name not in seen and current.hosts[0] in topology.nodes:
        seen.add(current.name)
        host = topology.nodes[current.hosts[0]]
        current, current_index = host, current_index % host.instances
    instance = instance_ids(node)[index]
    if not is_machine(current):
        return Placement(instance, THIS_MACHINE, None)
    compute = instance_ids(current)[current_index]
    return Placement(instance, host_name(compute) if on_cloud(current, cloud) else THIS_MACHINE,
                     compute)


def placements(topology: Topology, node: Node, cloud: bool) -> list[Placement]:
    """Where each instance of ``node`` runs."""
    return [place(topology, node, i, cloud) for i in range(node.instances)]


def on_this_machine(topology: Topology) -> list[str]:
    """The nodes with a script to run that would run on this machine even with the
    local cloud (hosted on no Compute laguna provides): what a template sent over
    the API may not have, since the API's machine runs no one's scripts."""
    return [name for name, node in topology.nodes.items()
            if any(op.primary is not None for ops in node.interfaces.values()
                   for op in ops.values())
            and any(p.host == THIS_MACHINE for p in placements(topology, node, True))]
