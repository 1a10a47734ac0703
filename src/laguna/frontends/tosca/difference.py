"""Redeploy by difference: which nodes of a deployed topology a redeploy keeps.

Each node template gets a fingerprint of what its lifecycle depends on: its
type, its properties and capabilities and the inputs of its operations (every
function evaluated that a template alone decides: inputs, properties,
artifacts' places; an attribute or an operation output stays as written, its
value being the run's), its operations' scripts and artifacts with the digest
of their files' contents, its requirements (relationship, target, properties,
operations), its latches and the cloud its machine is on. A description, a
node's instance count (a resize, :func:`resizes`) and the other nodes' own
settings are not part of it.

The stored model keeps each node's fingerprint (``tosca.fingerprints``) and
the instance count its template had (``tosca.counts``). A redeploy
(:func:`difference`) keeps a node whose fingerprint is the same, whose
instances are all ``started``, that ``laguna check`` did not find drifted and
none of whose hosts and requirement targets reruns; every other node reruns
(its old instances stopped and deleted first), a node gone from the template
is undeployed, a new one deployed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
import typing as t
from pathlib import Path

from laguna.frontends.tosca import functions
from laguna.frontends.tosca.model import Node, Operation, Topology
from laguna.frontends.tosca.placement import is_machine, on_cloud
from laguna.frontends.tosca.runtime import Resolve, Runtime, Where


class _Quiet:
    """The reporter of the Runtime a fingerprint evaluates in (nothing runs)."""

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        """Nothing runs, so nothing is reported."""

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        """As :meth:`report`."""


class _Static(Resolve):
    """Evaluates what the template alone decides; a run's values stay as written
    (so that a fingerprint never waits, and changes only with the template)."""

    def attribute(self, ref: str, path: list[t.Any]) -> t.Any:
        return {"get_attribute": [ref, *path]}

    def operation_output(self, ref: str, interface: str, operation: str, name: str) -> t.Any:
        return {"get_operation_output": [ref, interface, operation, name]}

    def artifact(self, ref: str, name: str) -> t.Any:
        node = self.instance(ref).node
        return {"get_artifact": [ref, name, node.deploy_paths.get(name)]}


def fingerprints(topology: Topology, cloud: str | None) -> dict[str, str]:
    """Each node's fingerprint (a sha256 of what its lifecycle depends on) in a
    topology deployed on ``cloud`` (``--cloud`` as kept: ``here``, ``local``...)."""
    with tempfile.TemporaryDirectory(prefix="laguna-fingerprint-") as logs:
        runtime = Runtime(topology, Path(logs), Path(logs), _Quiet(), blocking=False)
        return {name: _digest(_described(runtime, node, cloud))
                for name, node in topology.nodes.items()}


def _described(runtime: Runtime, node: Node, cloud: str | None) -> dict[str, t.Any]:
    """What a node's fingerprint is made of, as JSON."""
    instance = runtime.instances[node.name][0]
    here = Where(instance)
    root = runtime.topology.root
    requirements = []
    for requirement in node.requirements:
        peer = runtime.peer(instance, requirement.target)
        there = Where(instance, instance, peer)
        requirements.append({
            "name": requirement.name, "target": requirement.target,
            "relationship": requirement.relationship_type,
            "capability": requirement.capability,
            "properties": _evaluated(runtime, requirement.properties, there),
            "operations": {name: _operation(runtime, op, there, root)
                           for name, op in sorted(requirement.operations.items())}})
    return {
        "type": node.type,
        "properties": _evaluated(runtime, node.properties, here),
        "capabilities": _evaluated(runtime, node.capabilities, here),
        "interfaces": {interface: {name: _operation(runtime, op, here, root)
                                   for name, op in sorted(operations.items())}
                       for interface, operations in sorted(node.interfaces.items())},
        "artifacts": {name: _file(path, root) for name, path in sorted(node.artifacts.items())},
        "deploy_paths": dict(sorted(node.deploy_paths.items())),
        "requirements": requirements,
        "latches": _evaluated(runtime, node.latches, here),
        "cluster": node.cluster,
        "cloud": node.location or cloud,
    }


def _operation(runtime: Runtime, operation: Operation, where: Where,
               root: Path) -> dict[str, t.Any]:
    return {"interface": operation.interface_type, "builtin": operation.builtin,
            "primary": None if operation.primary is None else _file(operation.primary, root),
            "dependencies": [_file(p, root) for p in operation.dependencies],
            "inputs": _evaluated(runtime, operation.inputs, where),
            "outputs": functions_json(operation.outputs)}


def _evaluated(runtime: Runtime, value: t.Any, where: Where) -> t.Any:
    """``value`` with what the template decides evaluated; as written when it cannot be
    (a node that is not there: validation said so already)."""
    try:
        return functions_json(functions.evaluate(value, _Static(runtime, where)))
    except (LookupError, TypeError, ValueError):
        return functions_json(value)


def _file(path: Path, root: Path) -> dict[str, str]:
    """A file by its place in the blueprint and the digest of its contents."""
    try:
        shown = str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        shown = str(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = "unreadable"
    return {"path": shown, "sha256": digest}


def functions_json(value: t.Any) -> t.Any:
    """``value`` as JSON (keys as text, anything else by its text)."""
    return json.loads(json.dumps(value, default=str))


def _digest(described: t.Mapping[str, t.Any]) -> str:
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclasses.dataclass(frozen=True)
class Difference:
    """What a redeploy does with each node: keep it (perhaps resized), rerun it,
    undeploy it."""

    kept: frozenset[str]
    rerun: frozenset[str]
    #: nodes of the last deploy that the template no longer has
    gone: frozenset[str]
    #: rerun node -> why (the report line)
    why: t.Mapping[str, str]
    #: kept node -> the instance count its template now gives (it changed)
    resized: t.Mapping[str, int] = dataclasses.field(default_factory=dict)


def difference(topology: Topology, prints: t.Mapping[str, str],
               stored: t.Mapping[str, t.Any], repair: t.Collection[str],
               on_a_cloud: bool = False) -> Difference:
    """Which nodes a redeploy of ``topology`` (its ``prints``) keeps, given the model
    the last deploy kept (``stored``: its ``tosca`` section) and the nodes ``laguna
    check`` found drifted (``repair``); ``on_a_cloud``: every machine is a server of
    the environment's cloud (``--cloud``)."""
    old_prints = stored.get("fingerprints") or {}
    instances = stored.get("instances") or {}
    counts = stored.get("counts") or {}
    why: dict[str, str] = {}
    for name in topology.nodes:
        states = [str(r.get("state")) for r in instances.values()
                  if isinstance(r, dict) and r.get("node") == name]
        if name not in old_prints:
            why[name] = "new" if not states else "no fingerprint kept"
        elif old_prints[name] != prints[name]:
            why[name] = "changed"
        elif name in repair:
            why[name] = "drifted (laguna check)"
        elif not states or any(s != "started" for s in states):
            why[name] = "not started by the last deploy"
    resized: dict[str, int] = {}
    moved = True
    while moved:
        moved = False
        for name, node in topology.nodes.items():
            if name in why:
                continue
            count = node.instances
            if name not in resized and name in counts and counts[name] != count:
                if is_machine(node) and on_cloud(node, on_a_cloud):
                    # a cloud's servers are not added or released one by one
                    why[name] = "its instance count changed"
                else:
                    resized[name] = count
                moved = True
                continue
            # a node reruns with its hosts and the targets of its requirements (a
            # resized one: instance i relates to instance i mod n of a target)
            for requirement in node.requirements:
                if requirement.target in why or requirement.target in resized:
                    why[name] = f"{requirement.target} " + (
                        "reruns" if requirement.target in why else "was resized")
                    resized.pop(name, None)
                    moved = True
                    break
    rerun = frozenset(why)
    gone = frozenset(str(r.get("node")) for r in instances.values()
                     if isinstance(r, dict) and r.get("node") not in topology.nodes)
    return Difference(frozenset(topology.nodes) - rerun, rerun, gone, why, resized)
