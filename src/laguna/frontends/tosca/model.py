"""The topology a valid blueprint describes, as the runtime uses it."""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path


@dataclasses.dataclass
class Operation:
    """One operation of a node or relationship interface, ready to run."""

    interface: str
    interface_type: str
    name: str
    #: the script to run (None: nothing to run)
    primary: Path | None
    dependencies: list[Path] = dataclasses.field(default_factory=list)
    #: interface-level inputs overridden by operation-level ones; values may be functions
    inputs: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: exported variable -> [SELF|SOURCE|TARGET, attribute]
    outputs: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: AMP's built-in implementation it is (blocking.NOOP, blocking.BLOCK_UNTIL_RUNNING)
    builtin: str | None = None


def find_operation(operations: t.Mapping[str, dict[str, Operation]],
                   reference: str) -> Operation | None:
    """The operation ``INTERFACE.OPERATION`` names among ``operations`` (interface name
    -> operation name -> operation), the interface given by its name (``Standard``) or
    its type's full name (``tosca.interfaces.node.lifecycle.Standard``)."""
    interface, _, name = reference.rpartition(".")
    for declared, by_name in operations.items():
        found = by_name.get(name)
        if found is not None and interface in (declared, found.interface_type):
            return found
    return None


@dataclasses.dataclass
class Requirement:
    """A fulfilled requirement: a relationship from its node to ``target``."""

    name: str
    target: str
    capability: str
    relationship_type: str
    #: the relationship's types, itself first
    relationship_types: list[str]
    properties: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: Configure operations by name
    operations: dict[str, Operation] = dataclasses.field(default_factory=dict)

    def operation(self, reference: str) -> Operation | None:
        """The relationship operation ``INTERFACE.OPERATION`` names (``Configure`` or
        the interface type's full name)."""
        by_interface: dict[str, dict[str, Operation]] = {}
        for name, op in self.operations.items():
            by_interface.setdefault(op.interface, {})[name] = op
        return find_operation(by_interface, reference)

    @property
    def requires_running(self) -> bool:
        """AMP's RequiresRunning: the source waits for the target to be started."""
        return "brooklyn.tosca.relationships.RequiresRunning" in self.relationship_types


@dataclasses.dataclass
class Node:
    """A node template."""

    name: str
    type: str
    #: the node's types, itself first
    types: list[str]
    properties: dict[str, t.Any]
    attributes: dict[str, t.Any]
    requirements: list[Requirement]
    capabilities: dict[str, dict[str, t.Any]]
    #: interface name -> operation name -> operation
    interfaces: dict[str, dict[str, Operation]]
    artifacts: dict[str, Path]
    instances: int = 1
    #: artifact name -> its deploy_path, for the artifacts that give one
    deploy_paths: dict[str, str] = dataclasses.field(default_factory=dict)
    #: the DynamicCluster type whose members this node's instances are (its
    #: dynamiccluster.memberspec gave the node's type and properties; clusters.py)
    cluster: str | None = None
    #: AMP's latches: phase (``start``, ``install``...) -> the value to wait for
    #: (blocking.LATCHES says where in the lifecycle)
    latches: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: AMP's location (an initializer group's ``location``): the cloud (``local``,
    #: ``containers``, ``ssh``) its machine is a server of; on a machine, the
    #: location of the nodes hosted on it (locations.py)
    location: str | None = None

    def is_a(self, type_name: str) -> bool:
        return type_name in self.types

    def operation(self, reference: str) -> Operation | None:
        """The node's operation ``INTERFACE.OPERATION`` (see :func:`find_operation`)."""
        return find_operation(self.interfaces, reference)

    def operation_names(self) -> list[str]:
        """``INTERFACE.OPERATION`` of every operation that has something to run."""
        return sorted(f"{interface}.{name}" for interface, operations in self.interfaces.items()
                      for name, op in operations.items() if op.primary is not None)

    @property
    def hosts(self) -> list[str]:
        """The nodes this one is hosted on."""
        return [r.target for r in self.requirements
                if "tosca.relationships.HostedOn" in r.relationship_types]

    @property
    def needs_running(self) -> list[str]:
        return [r.target for r in self.requirements if r.requires_running]


#: the artifact type of the scripts laguna runs (``sh <primary>``)
SHELL_SCRIPT = "tosca.artifacts.Implementation.Bash"


@dataclasses.dataclass(frozen=True)
class ExternalWorkflow:
    """A workflow given by its ``implementation`` (TOSCA 1.3: instead of steps): one
    script, run like an operation on the orchestrator."""

    operation: Operation
    #: the artifact type it is (given, or the one whose ``file_ext`` has the file's
    #: extension); None: none known
    artifact_type: str | None
    #: whether it runs as a shell script (no type known, or one deriving from
    #: tosca.artifacts.Implementation.Bash)
    shell: bool


@dataclasses.dataclass
class Topology:
    """A validated service template with its input values."""

    name: str
    root: Path
    entry: Path
    inputs: dict[str, t.Any]
    nodes: dict[str, Node]
    outputs: dict[str, t.Any]
    #: output name -> the written text of timestamps and scalar units
    groups: dict[str, dict[str, t.Any]]
    policies: dict[str, dict[str, t.Any]]
    workflows: dict[str, t.Any]
    substitution: dict[str, t.Any] | None
    description: str | None = None
    csar: bool = False
    #: the service template's metadata (it may hold the wait settings of blocking.py)
    metadata: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: workflow name -> its external implementation (workflows given by steps: none)
    external_workflows: dict[str, ExternalWorkflow] = dataclasses.field(default_factory=dict)

    def summary(self) -> dict[str, t.Any]:
        """What ``laguna validate`` shows of a valid topology."""
        return {
            "name": self.name,
            "inputs": sorted(self.inputs),
            "nodes": {name: {"type": node.type, "instances": node.instances,
                             "requirements": {r.name: r.target for r in node.requirements}}
                      for name, node in self.nodes.items()},
            "outputs": sorted(self.outputs),
            "groups": sorted(self.groups),
            "policies": sorted(self.policies),
            "workflows": sorted(self.workflows),
        }
