"""Node operations as actions (AMP's effectors) on a deployed topology.

``laguna action ENV OBJECT INTERFACE.OPERATION [--arg K=V]...`` runs one
operation of a node template's every instance (OBJECT is the template's name),
or of one instance (OBJECT is an instance id, ``web.1``), in parallel, on the
topology as the deploy left it. ``--arg`` values override the operation's
inputs (as text: they become environment variables); the outputs are mapped
onto attributes as at deploy and kept.

The Standard operations move the instance through the TOSCA states as a deploy
would (``stop``: stopping -> configured; ``delete``: deleting -> deleted; a
failure: error). ``CheckRunning.check_running`` is the refresh seed 003's
periodic check stands for: it runs once on each instance that is ``started``
or ``error`` and sets it to ``started`` when running, else ``error``.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import concurrent.futures
import dataclasses
import typing as t

from laguna.frontends.tosca.model import Operation
from laguna.frontends.tosca.problems import (
    NOT_RUNNING,
    OPERATION_FAILED,
    UNKNOWN_NODE,
    UNKNOWN_OPERATION,
)
from laguna.frontends.tosca.runtime import DeployFailed, Instance, Runtime, end_sessions

CHECK_RUNNING = "brooklyn.tosca.interfaces.node.lifecycle.CheckRunning"
#: Standard operation -> (state while it runs, state after it)
STANDARD_STATES = {"create": ("creating", "created"), "configure": ("configuring", "configured"),
                   "start": ("starting", "started"), "stop": ("stopping", "configured"),
                   "delete": ("deleting", "deleted")}
STANDARD = "tosca.interfaces.node.lifecycle.Standard"
#: the states in which check_running is expected to find an instance running
EXPECTED_RUNNING = ("started", "error")


class ActionRefused(LagunaError):
    """Nothing ran: the action names something the topology does not have."""

    code = "LAG-E1541"

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclasses.dataclass
class ActionFailed(LagunaError):
    """The action ran and failed (on one or more instances)."""

    code = "LAG-E1542"

    kind: str
    message: str
    details: dict[str, t.Any] = dataclasses.field(default_factory=dict)


def instances_of(runtime: Runtime, object_id: str) -> list[Instance]:
    """The instances OBJECT names: every instance of a node template, or one by id."""
    if object_id in runtime.instances:
        return list(runtime.instances[object_id])
    for group in runtime.instances.values():
        for instance in group:
            if instance.id == object_id:
                return [instance]
    raise ActionRefused(UNKNOWN_NODE, f"topology {runtime.topology.name} has no node template "
                        f"or instance {object_id!r} (nodes: "
                        f"{', '.join(sorted(runtime.instances))}; workflows: `workflow`)")


def operation_of(instance: Instance, method: str) -> Operation:
    """The operation METHOD names on ``instance``'s node, with something to run."""
    node = instance.node
    operation = node.operation(method)
    if operation is None or operation.primary is None:
        known = ", ".join(node.operation_names()) or "none"
        why = "no operation" if operation is None else "nothing to run for"
        raise ActionRefused(UNKNOWN_OPERATION, f"node {node.name} has {why} {method!r} "
                            f"(operations: {known})")
    return operation


def run(runtime: Runtime, object_id: str, method: str,
        arguments: t.Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Run METHOD on the instances OBJECT names; each instance's exported variables.
    Raises ActionRefused before anything runs, ActionFailed after."""
    instances = instances_of(runtime, object_id)
    operations = {i.id: operation_of(i, method) for i in instances}
    # the deploy is over: a value not set now will not be set by waiting
    runtime.blocking = False
    results: dict[str, dict[str, str]] = {}
    failures: list[ActionFailed] = []

    def one(instance: Instance) -> None:
        operation = dataclasses.replace(operations[instance.id],
                                        inputs={**operations[instance.id].inputs,
                                                **arguments})
        try:
            results[instance.id] = _run_one(runtime, instance, operation)
        except ActionFailed as failure:
            failures.append(failure)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(instances))) as pool:
        list(pool.map(one, instances))
    if failures:
        failures.sort(key=lambda f: f.message)
        kind = OPERATION_FAILED if any(f.kind == OPERATION_FAILED for f in failures) \
            else NOT_RUNNING
        raise ActionFailed(kind, "; ".join(f.message for f in failures), failures[0].details)
    return dict(sorted(results.items()))


def _run_one(runtime: Runtime, instance: Instance, operation: Operation) -> dict[str, str]:
    if operation.interface_type == CHECK_RUNNING and operation.name == "check_running":
        return check_running(runtime, instance, operation)
    states = STANDARD_STATES.get(operation.name) if operation.interface_type == STANDARD \
        else None
    if states is not None:
        runtime.set_state(instance, states[0])
    try:
        _, exported = runtime.run_operation(instance, operation)
    except DeployFailed as failure:
        if states is not None:
            runtime.set_state(instance, "error")
        raise ActionFailed(OPERATION_FAILED, failure.message, failure.details) from None
    if states is not None:
        if operation.name == "delete":
            # a deleted instance keeps no process behind
            end_sessions(instance.sessions)
        runtime.set_state(instance, states[1])
    return exported


def check_running(runtime: Runtime, instance: Instance,
                  operation: Operation) -> dict[str, str]:
    """One check of an instance expected to run: ``started`` when the check passes
    (exit 0 and IS_RUNNING not ``false``), else ``error``."""
    if instance.state not in EXPECTED_RUNNING:
        runtime.reporter.report("info", f"CheckRunning.check_running: {instance.id} is "
                                f"{instance.state}, not expected to run: not checked",
                                instance.node.name)
        return {}
    try:
        code, exported = runtime.run_operation(instance, operation, check=False)
    except DeployFailed as failure:     # the check did not run: an artifact not written
        runtime.set_state(instance, "error")
        raise ActionFailed(OPERATION_FAILED, failure.message, failure.details) from None
    flag = exported.get("IS_RUNNING", "true").strip().lower()
    if code == 0 and flag != "false":
        runtime.set_state(instance, "started")
        return exported
    runtime.set_state(instance, "error")
    why = f"exited with {code}" if code != 0 else "reported IS_RUNNING=false"
    message = f"node {instance.id}: CheckRunning.check_running {why}: not running"
    runtime.reporter.report("error", message, instance.node.name)
    raise ActionFailed(NOT_RUNNING, message, {"node": instance.node.name,
                                              "instance": instance.id, "exit_code": code})


def undeploy_instance(runtime: Runtime, instance: Instance) -> None:
    """Standard.stop then Standard.delete of one instance (a workflow's ``delegate:
    undeploy``); the processes its operations started end with it."""
    for name in ("stop", "delete"):
        operation = instance.node.operation(f"Standard.{name}")
        during, after = STANDARD_STATES[name]
        runtime.set_state(instance, during)
        if operation is not None and operation.primary is not None:
            try:
                runtime.run_operation(instance, operation)
            except DeployFailed:
                runtime.set_state(instance, "error")
                raise
        runtime.set_state(instance, after)
    end_sessions(instance.sessions)
