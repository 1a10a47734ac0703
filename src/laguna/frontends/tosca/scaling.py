"""Changing the number of instances of a deployed node: what a Scaling policy's
``resize`` action, an auto-scaler and a replacer do (AMP's ``resize`` effector
of a DynamicCluster and its ``replaceMember``).

A node with N instances grows by new instances, each with a new index and a
new ``tosca_id``, deployed through the whole lifecycle (create, configure,
start, check_running) in parallel; it shrinks by its newest instances, each
stopped and deleted (its processes end with it). The caller keeps the new
instance list in the environment's model (``kept_instances``), so later
actions, watch passes and undeploy see the node as it now is.
"""

from __future__ import annotations

import threading
import typing as t
import uuid

from laguna.errors import LagunaError
from laguna.frontends.tosca.actions import undeploy_instance
from laguna.frontends.tosca.placement import is_machine
from laguna.frontends.tosca.runtime import DeployFailed, Instance, Runtime, Stopped


class ResizeRefused(LagunaError):
    """The node cannot be resized as asked (nothing ran)."""

    code = "LAG-E1550"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_resizable(runtime: Runtime, name: str) -> None:
    """Refuse nodes whose instances are servers of a cloud: their hosts are
    provisioned with the stack at deploy, and the cloud layer has no way yet to
    release one server of it."""
    node = runtime.topology.nodes.get(name)
    if node is None:
        raise ResizeRefused(f"topology {runtime.topology.name} has no node template {name!r}")
    if runtime.machines is not None and is_machine(node):
        raise ResizeRefused(f"node {name} is a Compute on a cloud: its servers cannot be "
                            "added or released one by one yet")


def resize(runtime: Runtime, name: str, size: int) -> tuple[list[str], list[str]]:
    """Make ``name`` have ``size`` instances; the ids added and the ids removed.
    Raises DeployFailed when a new instance fails to deploy (it stays, in error,
    for a later pass or an undeploy to deal with) or an old one fails to stop."""
    check_resizable(runtime, name)
    group = runtime.instances[name]
    if size < 1:
        # the model keeps a node's instances, not its count: a node with none would
        # come back with the topology's count when reopened
        raise ResizeRefused(f"node {name}: a size of {size}: a node keeps at least one "
                            "instance")
    if size > len(group):
        added = grow(runtime, name, size - len(group))
        return [i.id for i in added], []
    # the newest go: they have the highest indexes
    removed = sorted(group, key=lambda i: i.index)[size:]
    for instance in reversed(removed):
        remove(runtime, instance)
    return [], [i.id for i in removed]


def grow(runtime: Runtime, name: str, count: int) -> list[Instance]:
    """``count`` new instances of ``name``, deployed in parallel."""
    added = add_instances(runtime, name, count)
    deploy_all(runtime, added)
    for instance in added:
        # started means its check (if any) passed during the deploy
        runtime.set_attributes(instance, {"service.state": "running", "service.isUp": True})
    return added


def add_instances(runtime: Runtime, name: str, count: int) -> list[Instance]:
    """``count`` new instances of ``name`` (new indexes, new ``tosca_id``), added to
    the node, not deployed yet."""
    node = runtime.topology.nodes[name]
    group = runtime.instances[name]
    run = uuid.uuid4().hex[:8]
    start = max((i.index for i in group), default=-1) + 1
    added = []
    for index in range(start, start + count):
        instance = Instance(node, index, f"{name}.{index}")
        instance.attributes.update({"tosca_id": f"{run}-{instance.id}", "tosca_name": name,
                                    "entity.id": f"{run}-{instance.id}"})
        added.append(instance)
    with runtime.cond:
        group.extend(added)
    return added


def deploy_all(runtime: Runtime, instances: t.Sequence[Instance]) -> None:
    """Each instance's whole lifecycle, in parallel; DeployFailed after, naming the
    first failure (the failed ones are left in ``error``)."""
    failures: list[DeployFailed] = []

    def one(instance: Instance) -> None:
        try:
            runtime.deploy_instance(instance)
        except DeployFailed as failure:
            runtime.set_state(instance, "error")
            failures.append(failure)
        except Stopped:
            runtime.set_state(instance, "error")

    threads = [threading.Thread(target=one, args=(i,), name=f"tosca-{i.id}", daemon=True)
               for i in instances]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def remove(runtime: Runtime, instance: Instance) -> None:
    """Stop and delete ``instance`` and take it out of its node (also when its
    stop fails: it is reported, and the instance is gone from the topology, its
    processes ended)."""
    group = runtime.instances[instance.node.name]
    try:
        undeploy_instance(runtime, instance)
    finally:
        with runtime.cond:
            if instance in group:
                group.remove(instance)
        runtime.reporter.component(instance.node.name, instance.node.type, instance.node.name,
                                   runtime.node_state(instance.node.name) if group
                                   else "deleted")
