"""Deploying a topology on this machine, with the semantics of seed 003 (how
Cloudsoft AMP runs TOSCA).

- Every node instance runs in its own thread, so nodes deploy in parallel.
  ``DependsOn`` orders nothing; ``HostedOn`` holds a node back until its host
  is started; AMP's ``RequiresRunning`` holds it back until the target is
  started, and a ``BlockUntilRunning`` operation until its target is;
  get_attribute and get_operation_output wait until the value is truthy, as
  the get_attribute mode says (:mod:`.blocking`).
- An operation is ``sh <primary>`` with its inputs exported, run in the
  working directory, in a session of its own (so that undeploy can end every
  process it left behind); the variables it exported are its outputs.
- The first failure fails the deploy: waits end, no new operation starts. A
  wait told to abort when its target is on fire fails its own node as well.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import dataclasses
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import typing as t
import uuid
from pathlib import Path

from laguna.frontends.tosca import blocking, functions, values
from laguna.frontends.tosca.machines import (Fleet, Executor, NotDelivered,
                                            compute_image)
from laguna.frontends.tosca.placement import is_machine, on_cloud
from laguna.frontends.tosca.model import Node, Operation, Requirement, Topology
from laguna.hosts.drift import working_on

STANDARD_OPERATIONS = ("create", "configure", "start")
#: the node states the progress view is told of (each is a commit of every component's
#: state: the short-lived created/configuring/configured are left out; stopping,
#: deleting and deleted come from day-2 actions and workflows)
REPORTED_STATES = frozenset({"creating", "starting", "started", "error", "stopping",
                             "deleting", "deleted"})
#: attributes a Compute on this machine has
LOCAL_ADDRESS = "127.0.0.1"
#: environment variables a shell sets itself; never outputs
_SHELL_VARIABLES = frozenset({"PWD", "OLDPWD", "SHLVL", "_", "LAGUNA_OUTPUTS"})
_WRAPPER = 'trap "env -0 > \\"\\$LAGUNA_OUTPUTS\\"" EXIT; . "$0"'


class Reporter(t.Protocol):
    def report(self, level: str, text: str, object_id: str | None = None) -> None: ...
    def component(self, object_id: str, type: str, name: str, state: str) -> None: ...


class DeployFailed(LagunaError):
    """An operation failed (or the deploy was stopped by another failure)."""

    code = "LAG-E1544"

    def __init__(self, message: str, details: t.Mapping[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = dict(details or {})


class Stopped(LagunaError):
    """Another instance failed; this one gives up."""

    code = "LAG-E1545"


@dataclasses.dataclass
class Instance:
    """One instance of a node template."""

    node: Node
    index: int
    id: str
    state: str = "initial"
    attributes: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    #: (interface, operation) -> exported variables
    outputs: dict[tuple[str, str], dict[str, str]] = dataclasses.field(default_factory=dict)
    #: sessions of the processes its operations started
    sessions: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Where:
    """What SELF, SOURCE and TARGET mean in one evaluation."""

    self: Instance | None
    source: Instance | None = None
    target: Instance | None = None


class Runtime:
    """One deploy (or the plan of one) of a topology."""

    def __init__(self, topology: Topology, workdir: Path, logs: Path, reporter: Reporter,
                 timeout: float = 600.0, blocking: bool = True,
                 environ: t.Mapping[str, str] | None = None,
                 machines: Fleet | None = None,
                 settings: t.Mapping[str, t.Any] | None = None,
                 all_on_cloud: bool = True) -> None:
        self.topology = topology
        self.workdir = workdir
        self.logs = logs
        self.reporter = reporter
        self.timeout = timeout
        self.environ = dict(os.environ if environ is None else environ)
        self.cond = threading.Condition()
        self.failure: DeployFailed | None = None
        self.blocking = blocking
        #: the get_attribute mode: the topology's metadata, overridden by ``settings``
        #: (``--set``, checked by the front end)
        self.waits = blocking_settings(topology.metadata, settings or {})
        #: called with each new process session (to keep them where undeploy finds them)
        self.on_session: t.Callable[[int], None] | None = None
        #: Compute instances that are servers of a cloud (--cloud, locations): each
        #: on the cloud of its location, else on the environment's
        self.machines = machines
        #: every machine is a server of ``machines``' cloud (--cloud), else only
        #: those with a location (locations.py)
        self.all_on_cloud = all_on_cloud
        #: instance id -> the cloud host it is (Compute instances provisioned there)
        self.hosts: dict[str, str] = {}
        run = uuid.uuid4().hex[:8]
        self.instances: dict[str, list[Instance]] = {}
        for name, node in topology.nodes.items():
            self.instances[name] = [
                Instance(node, i, name if node.instances == 1 else f"{name}.{i}")
                for i in range(node.instances)]
            for instance in self.instances[name]:
                instance.attributes.update({
                    "tosca_id": f"{run}-{instance.id}", "tosca_name": name,
                    "entity.id": f"{run}-{instance.id}"})

    # -- deploy ----------------------------------------------------------------------------
    def deploy(self, keep: t.Collection[str] = ()) -> None:
        """Run every instance's lifecycle but those of the instances ``keep`` names (a
        redeploy keeps them as they are: started); raise DeployFailed at the first
        failure."""
        self.logs.mkdir(parents=True, exist_ok=True)
        if self.machines is not None:
            self._provision(self.machines)
        threads = [threading.Thread(target=self._guarded, args=(instance,),
                                    name=f"tosca-{instance.id}", daemon=True)
                   for group in self.instances.values() for instance in group
                   if instance.id not in keep]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.failure is not None:
            raise self.failure

    def _provision(self, machines: Fleet) -> None:
        computes = [i for group in self.instances.values() for i in group
                    if self._is_machine(i.node) and on_cloud(i.node, self.all_on_cloud)]
        if not computes and not machines.stacks:
            return
        try:
            addresses = machines.provision(
                [i.id for i in computes],
                {i.id: compute_image(i.node.properties, i.node.capabilities)
                 for i in computes},
                {i.id: i.node.location for i in computes})
        except Exception as exc:
            clouds = sorted({i.node.location or machines.default for i in computes}) or \
                [machines.default]
            raise DeployFailed(f"the {' and '.join(clouds)} cloud"
                               f"{'s' if len(clouds) > 1 else ''} could not start the "
                               f"Compute hosts: {exc}")
        for instance in computes:
            found = addresses[instance.id]
            self.hosts[instance.id] = machines.resource(instance.id)
            instance.attributes.update({
                "private_address": found[0], "public_address": found[0],
                "networks": {"private": {"network_name": "private", "addresses": found}},
                "ports": {}})

    def _is_machine(self, node: Node) -> bool:
        return is_machine(node)

    def executor(self, instance: Instance) -> Executor:
        """Where ``instance``'s operations run: the cloud host at the bottom of its
        hosting chain, else this machine."""
        current, seen = instance, set()
        while current.node.hosts and current.id not in seen:
            seen.add(current.id)
            current = self.peer(current, current.node.hosts[0])
        if self.machines is not None and current.id in self.hosts:
            return self.machines.executor(current.id)
        return self.orchestrator()

    def _guarded(self, instance: Instance) -> None:
        try:
            self._lifecycle(instance)
        except Stopped:
            pass
        except DeployFailed as failure:
            self._set_state(instance, "error", failure)
        except Exception as exc:  # a bug must not leave the others waiting
            self._set_state(instance, "error", DeployFailed(
                f"{instance.id}: {type(exc).__name__}: {exc}"))

    def _lifecycle(self, instance: Instance) -> None:
        node = instance.node
        self._latch(instance, "lifecycle")
        for host in node.hosts:
            self._wait_started(instance, self.peer(instance, host), blocking.Hold(),
                               f"node {instance.id}: hosted on {host}")
        for requirement in node.requirements:
            if requirement.requires_running:
                self._requires_running(instance, requirement)
        if self._is_machine(node) and instance.id not in self.hosts:
            # AMP's localhost location: a Compute without its own create is this machine
            self._set_attributes(instance, {"private_address": LOCAL_ADDRESS,
                                            "public_address": LOCAL_ADDRESS,
                                            "networks": {}, "ports": {}})
        self._latch(instance, "create")
        self._step(instance, "creating", "create", "created")
        self._latch(instance, "configure")
        self._set_state(instance, "configuring")
        for requirement in node.requirements:
            peer = self.peer(instance, requirement.target)
            for name in ("pre_configure_source", "pre_configure_target"):
                self._relationship_op(instance, peer, requirement, name)
        self._run(instance, self._op(node, "Standard", "configure"))
        for requirement in node.requirements:
            peer = self.peer(instance, requirement.target)
            for name in ("post_configure_source", "post_configure_target"):
                self._relationship_op(instance, peer, requirement, name)
        self._set_state(instance, "configured")
        self._latch(instance, "start")
        self._set_state(instance, "starting")
        self._run(instance, self._op(node, "Standard", "start"))
        self._check_running(instance)
        for requirement in node.requirements:
            peer = self.peer(instance, requirement.target)
            for name in ("add_target", "add_source"):
                self._relationship_op(instance, peer, requirement, name)
        self._set_state(instance, "started")

    def _latch(self, instance: Instance, point: str) -> None:
        """AMP's latches of ``instance``'s node held at ``point`` of its lifecycle:
        each value evaluated, so a get_attribute (attributeWhenReady) in it waits
        until the value is ready, as the get_attribute mode says."""
        for phase, value in instance.node.latches.items():
            if blocking.LATCHES[phase] == point:
                functions.evaluate(value, Resolve(self, Where(instance)))
                self.reporter.report("info", f"node {instance.id}: latch.{phase} released",
                                     instance.node.name)

    def _requires_running(self, instance: Instance, requirement: Requirement) -> None:
        peer = self.peer(instance, requirement.target)
        what = f"node {instance.id}: requirement {requirement.name} (RequiresRunning)"
        properties = {key: functions.evaluate(value, Resolve(self, Where(instance, instance,
                                                                          peer)))
                      for key, value in requirement.properties.items()}
        try:
            hold = blocking.hold_of(properties)
        except ValueError as exc:
            raise DeployFailed(f"{what}: {exc}", {"node": instance.node.name}) from None
        self._wait_started(instance, peer, hold, what)

    def _wait_started(self, instance: Instance, peer: Instance, hold: blocking.Hold,
                      what: str) -> None:
        """Until ``peer`` is started, as ``hold`` says."""
        def on_fire() -> str | None:
            if hold.abort_if_on_fire and peer.state == "error":
                return f"{peer.id} is in error (abort_if_on_fire)"
            return None

        self.wait(lambda: peer.state == "started",
                  f"{what}: waiting for {peer.id} to be started", hold.timeout, on_fire,
                  {"node": instance.node.name, "target": peer.node.name})

    def _step(self, instance: Instance, during: str, operation: str, after: str) -> None:
        self._set_state(instance, during)
        self._run(instance, self._op(instance.node, "Standard", operation))
        self._set_state(instance, after)

    def _op(self, node: Node, interface: str, name: str) -> Operation | None:
        return node.interfaces.get(interface, {}).get(name)

    def _relationship_op(self, source: Instance, target: Instance, requirement: Requirement,
                         name: str) -> None:
        self._run(source, requirement.operations.get(name), Where(source, source, target),
                  label=f"{requirement.name}->{target.id}")

    def _check_running(self, instance: Instance) -> None:
        operation = self._op(instance.node, "CheckRunning", "check_running")
        if operation is None or operation.primary is None:
            # a built-in implementation is done once it returns
            self._run(instance, operation)
            return
        period = values.scalar("scalar-unit.time", str(operation.inputs.get("period", "1m")))
        period = period if period is not None else 60.0
        delay, deadline = 0.05, time.monotonic() + self.timeout
        while True:
            code, exported = self._execute(instance, operation, Where(instance), check=False)
            if code == 0 and exported.get("IS_RUNNING", "true").strip().lower() != "false":
                return
            if time.monotonic() + delay > deadline:
                raise DeployFailed(f"node {instance.id}: CheckRunning.check_running did not "
                                   f"report running within {self.timeout:g} s",
                                   {"node": instance.node.name})
            with self.cond:
                if self.failure is not None:
                    raise Stopped()
                self.cond.wait(delay)
            delay = min(delay * 2, period)

    # -- day 2 (actions and workflows run these on a reopened deploy) ----------------------
    def deploy_instance(self, instance: Instance) -> None:
        """One instance's whole deploy lifecycle (a workflow's ``delegate: deploy``)."""
        self._lifecycle(instance)

    def run_operation(self, instance: Instance, operation: Operation, check: bool = True,
                      target: Instance | None = None, on: Executor | None = None
                      ) -> tuple[int, dict[str, str]]:
        """Run one operation of ``instance`` (its outputs recorded); with ``check``, a
        non-zero exit raises DeployFailed; with ``target``, a relationship operation of
        ``instance`` (the source) to ``target``; with ``on``, there rather than where
        ``instance``'s operations run."""
        where = Where(instance) if target is None else Where(instance, instance, target)
        return self._execute(instance, operation, where, check=check, on=on)

    def orchestrator(self) -> LocalExecutor:
        """This machine, in the working directory (TOSCA's ORCHESTRATOR)."""
        return LocalExecutor(self.workdir, self.environ)

    def set_state(self, instance: Instance, state: str) -> None:
        """Move ``instance`` to a TOSCA node state (and tell the progress view)."""
        self._set_state(instance, state)

    # -- operations ------------------------------------------------------------------------
    def _run(self, instance: Instance, operation: Operation | None,
             where: Where | None = None, label: str = "") -> None:
        if operation is None:
            return
        if operation.builtin is not None:
            self._builtin(instance, operation, where or Where(instance), label)
        elif operation.primary is not None:
            self._execute(instance, operation, where or Where(instance), label=label)

    def _inputs(self, operation: Operation, where: Where) -> dict[str, t.Any]:
        """The operation's inputs, evaluated (get_attribute ones wait; such a wait, not
        a check made beforehand, is what notices another failure, so that a reader told
        to abort when its target is in error always does)."""
        return {key: functions.evaluate(value, Resolve(self, where))
                for key, value in operation.inputs.items()}

    def _builtin(self, instance: Instance, operation: Operation, where: Where,
                 label: str) -> None:
        """AMP's NoOp (only its inputs are evaluated, so that get_attribute inputs hold
        the node back) and BlockUntilRunning (wait for the target input, else the
        relationship's target, to be started)."""
        inputs = self._inputs(operation, where)
        what = f"{operation.interface}.{operation.name}" + (f" ({label})" if label else "")
        if operation.builtin == blocking.NOOP:
            self.reporter.report("info", f"{what}: no-op", instance.node.name)
            return
        what = f"{what} (BlockUntilRunning)"
        details = {"node": instance.node.name, "operation": f"{operation.interface}."
                                                            f"{operation.name}"}
        target = inputs.get("target")
        try:
            peer = Resolve(self, where).instance(target) if target is not None else \
                where.target
            hold = blocking.hold_of(inputs)
        except (LookupError, ValueError) as exc:
            raise DeployFailed(f"node {instance.id}: {what}: {exc}", details) from None
        if peer is None:
            raise DeployFailed(f"node {instance.id}: {what}: no target input", details)
        self.reporter.report("info", f"{what}: waits for {peer.id} to be started",
                             instance.node.name)
        self._wait_started(instance, peer, hold, f"node {instance.id}: {what}")

    def _execute(self, instance: Instance, operation: Operation, where: Where,
                 check: bool = True, label: str = "", on: Executor | None = None
                 ) -> tuple[int, dict[str, str]]:
        inputs = self._inputs(operation, where)
        with self.cond:
            if self.failure is not None:
                raise Stopped()     # no new operation starts
        assert operation.primary is not None
        what = f"{operation.interface}.{operation.name}" + (f" ({label})" if label else "")
        self.reporter.report("info", f"{what}: sh {operation.primary}", instance.node.name)
        log = self.logs / f"{instance.id}.{operation.interface}.{operation.name}.log"
        # the log grows with each run (check polls, day-2 actions): the error shows this one
        before = log.stat().st_size if log.exists() else 0

        def started(session: int) -> None:
            with self.cond:
                if session not in instance.sessions:
                    instance.sessions.append(session)
            if self.on_session is not None:
                self.on_session(session)

        executor = on or self.executor(instance)
        artifacts = deliveries(instance.node, executor)
        try:
            with working_on(instance.node.name):    # on a host: drift is the node's
                code, exported = executor.run(
                    operation.primary, operation.dependencies, inputs, log, self.timeout,
                    started, artifacts=artifacts)
        except NotDelivered as failed:
            name = next((name for name, delivery in zip(instance.node.artifacts, artifacts)
                         if delivery == (failed.source, failed.dest)), failed.source.name)
            raise DeployFailed(
                f"node {instance.id}: {what} failed: artifact {name} could not be written "
                f"at {failed.dest} on host {failed.host}: {failed.reason}",
                {"node": instance.node.name, "operation": what, "artifact": name,
                 "host": failed.host, "path": failed.dest, "output": failed.reason}) from None
        if code != 0 and check:
            output = tail(log, before)
            raise DeployFailed(
                f"node {instance.id}: {what} failed: sh {operation.primary} exited with "
                f"{code}", {"node": instance.node.name, "operation": what, "exit_code": code,
                            "output": output})
        self._record_outputs(instance, operation, exported, where)
        return code, exported

    def _record_outputs(self, instance: Instance, operation: Operation,
                        exported: dict[str, str], where: Where) -> None:
        if not exported and not operation.outputs:
            return
        updates = {f"{operation.interface_type}.{operation.name}.{key}": value
                   for key, value in exported.items()}
        targets: dict[int, tuple[Instance, dict[str, t.Any]]] = {}
        for variable, mapping in operation.outputs.items():
            if variable not in exported or not isinstance(mapping, list) or len(mapping) < 2:
                continue
            holder = {"SELF": where.self, "SOURCE": where.source,
                      "TARGET": where.target}.get(str(mapping[0]), where.self)
            if holder is None:
                continue
            targets.setdefault(id(holder), (holder, {}))[1][str(mapping[1])] = \
                exported[variable]
        with self.cond:
            instance.outputs.setdefault((operation.interface, operation.name), {}).update(
                exported)
            instance.attributes.update(updates)
            for holder, attributes in targets.values():
                holder.attributes.update(attributes)
            self.cond.notify_all()

    # -- state -----------------------------------------------------------------------------
    def _set_state(self, instance: Instance, state: str,
                   failure: DeployFailed | None = None) -> None:
        """``instance`` is in ``state``; with ``failure``, that is the deploy's failure
        unless there is one already (in one step, so that a wait that aborts when its
        target is in error never fails the deploy before its target does)."""
        with self.cond:
            if failure is not None and self.failure is None:
                self.failure = failure
            instance.state = state
            instance.attributes["state"] = state
            node_state = self.node_state(instance.node.name)
            self.cond.notify_all()
        node = instance.node
        if state in REPORTED_STATES:
            self.reporter.component(node.name, node.type, node.name, node_state)

    def set_attributes(self, instance: Instance, attributes: t.Mapping[str, t.Any]) -> None:
        """Set attributes of ``instance`` (a workflow's outputs mapped onto them)."""
        self._set_attributes(instance, attributes)

    def _set_attributes(self, instance: Instance, attributes: t.Mapping[str, t.Any]) -> None:
        with self.cond:
            instance.attributes.update(attributes)
            self.cond.notify_all()

    def node_state(self, name: str) -> str:
        """A node's state: ``error`` when an instance failed, else its least advanced
        instance's."""
        from laguna.frontends.tosca.grammar import NODE_STATES
        states = [i.state for i in self.instances[name]]
        if "error" in states:
            return "error"
        return min(states, key=NODE_STATES.index) if states else "initial"

    def peer(self, instance: Instance, node: str) -> Instance:
        """The instance of ``node`` that ``instance`` relates to (index modulo count)."""
        group = self.instances[node]
        return group[instance.index % len(group)]

    def wait(self, ready: t.Callable[[], bool], what: str, limit: float | None = None,
             gives_up: t.Callable[[], str | None] | None = None,
             details: t.Mapping[str, t.Any] | None = None) -> None:
        """Until ``ready()``. DeployFailed when ``gives_up()`` gives a reason (asked
        before another failure stops this wait) or after ``limit`` seconds (no limit of
        its own: the deploy's timeout); Stopped when another instance failed."""
        bound = self.timeout if limit is None else min(limit, self.timeout)
        deadline = time.monotonic() + bound
        # a reason to give up may come with time alone (wait_unless_down): look often
        poll = 1.0 if gives_up is None else 0.05
        with self.cond:
            while not ready():
                reason = gives_up() if gives_up is not None else None
                if reason is not None:
                    raise DeployFailed(f"{what}: {reason}", details)
                if self.failure is not None:
                    raise Stopped()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeployFailed(f"{what}: gave up after {bound:g} s", details)
                self.cond.wait(min(left, poll))

    # -- results ---------------------------------------------------------------------------
    def outputs(self) -> dict[str, t.Any]:
        """The topology's outputs (not waiting for values that are not there)."""
        self.blocking = False
        result: dict[str, t.Any] = {}
        for name, output in self.topology.outputs.items():
            try:
                result[name] = functions.evaluate(output["value"], Resolve(self, Where(None)))
            except (KeyError, IndexError, TypeError, LookupError):
                result[name] = None
        return result

    def properties(self, node: Node) -> dict[str, t.Any]:
        resolve = Resolve(self, Where(self.instances[node.name][0]))
        self.blocking = False
        return {key: _json(functions.evaluate(value, resolve))
                for key, value in node.properties.items()}

    def attributes(self, instance: Instance) -> dict[str, t.Any]:
        self.blocking = False
        resolve = Resolve(self, Where(instance))
        found = {key: _json(value) for key, value in instance.attributes.items()}
        for key, value in instance.node.attributes.items():
            if key not in instance.attributes:
                try:
                    found[key] = _json(functions.evaluate(value, resolve))
                except (KeyError, IndexError, TypeError, LookupError):
                    found[key] = None
        return found


class Resolve:
    """Evaluates functions for one operation of one instance."""

    def __init__(self, runtime: Runtime, where: Where) -> None:
        self.runtime = runtime
        self.where = where

    def instance(self, ref: object) -> Instance:
        """The instance ``ref`` (SELF, SOURCE, TARGET, HOST or a node name) means here."""
        where, runtime = self.where, self.runtime
        if ref == "SELF" and where.self is not None:
            return where.self
        if ref == "SOURCE" and where.source is not None:
            return where.source
        if ref == "TARGET" and where.target is not None:
            return where.target
        if ref == "HOST" and where.self is not None:
            hosts = where.self.node.hosts
            if not hosts:
                raise LookupError(f"{where.self.id} has no host")
            return runtime.peer(where.self, hosts[0])
        if ref in runtime.instances:
            if where.self is not None:
                return runtime.peer(where.self, ref)
            return runtime.instances[ref][0]
        raise LookupError(f"unknown node {ref!r}")

    def input(self, name: str) -> t.Any:
        return self.runtime.topology.inputs[name]

    def property(self, ref: str, path: list[t.Any]) -> t.Any:
        instance = self.instance(ref)
        node = instance.node
        first = path[0]
        if first in node.capabilities and len(path) > 1:
            value: t.Any = node.capabilities[first]["properties"].get(path[1])
            rest = path[2:]
        else:
            value = node.properties.get(first)
            rest = path[1:]
        value = functions.evaluate(value, Resolve(self.runtime, Where(instance)))
        return _dig(value, rest)

    def attribute(self, ref: str, path: list[t.Any]) -> t.Any:
        instance = self.instance(ref)
        runtime = self.runtime

        def read() -> t.Any:
            first = path[0]
            node = instance.node
            if first in instance.attributes:
                return _dig(instance.attributes[first], path[1:])
            if first in node.capabilities and len(path) > 1:
                capability = node.capabilities[first]
                value = capability["attributes"].get(path[1],
                                                     capability["properties"].get(path[1]))
                return _dig(value, path[2:])
            if first in node.attributes:
                return _dig(functions.evaluate(node.attributes[first],
                                               Resolve(runtime, Where(instance))), path[1:])
            if first in node.properties:
                return _dig(functions.evaluate(node.properties[first],
                                               Resolve(runtime, Where(instance))), path[1:])
            return None

        if not runtime.blocking or runtime.waits.mode == "no_wait":
            return read()
        found: list[t.Any] = []

        def ready() -> bool:
            found[:] = [read()]
            return functions.truthy(found[0])

        self._wait(ready, f"get_attribute {ref} {'.'.join(map(str, path))}", instance)
        return found[0]

    def _wait(self, ready: t.Callable[[], bool], what: str, holder: Instance) -> None:
        """Wait for a value of ``holder`` as the get_attribute mode says."""
        settings, where = self.runtime.waits, self.where
        down_since: list[float] = []

        def gives_up() -> str | None:
            if settings.mode == "wait_unless_on_fire" and holder.state == "error":
                return f"{holder.id} is in error (wait_unless_on_fire)"
            if settings.mode != "wait_unless_down" or \
                    holder.state in blocking.STARTING_STATES:
                down_since.clear()
                return None
            now = time.monotonic()
            if not down_since:
                down_since.append(now)
            if now - down_since[0] >= settings.down_wait:
                return (f"{holder.id} is {holder.state}, not starting, and the value stayed "
                        f"unset for {settings.down_wait:g} s (wait_unless_down)")
            return None

        who = f"node {where.self.id}: " if where.self is not None else ""
        self.runtime.wait(ready, who + what, gives_up=None if settings.mode == "wait_always"
                          else gives_up, details={"node": where.self.node.name}
                          if where.self is not None else None)

    def operation_output(self, ref: str, interface: str, operation: str, name: str) -> t.Any:
        instance = self.instance(ref)

        def read() -> t.Any:
            return instance.outputs.get((interface, operation), {}).get(name)

        if not self.runtime.blocking or self.runtime.waits.mode == "no_wait":
            return read()
        self._wait(lambda: functions.truthy(read()),
                   f"get_operation_output {ref} {interface}.{operation}.{name}", instance)
        return read()

    def artifact(self, ref: str, name: str) -> t.Any:
        """Where the artifact is on the host the node's operations run on."""
        instance = self.instance(ref)
        node = instance.node
        return self.runtime.executor(instance).place(node.name, node.artifacts[name],
                                                     node.deploy_paths.get(name))

    def nodes_of_type(self, type_name: str) -> list[str]:
        return [n.name for n in self.runtime.topology.nodes.values()
                if n.is_a(type_name) or n.type == type_name]


def blocking_settings(metadata: t.Mapping[str, t.Any], given: t.Mapping[str, t.Any]
                      ) -> blocking.WaitSettings:
    """The wait settings of a deploy: AMP's default, the blueprint's metadata, then the
    deploy's own settings."""
    return blocking.WaitSettings().merged(metadata).merged(given)


def _dig(value: t.Any, path: list[t.Any]) -> t.Any:
    for step in path:
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and -len(value) <= step < len(value):
            value = value[step]
        else:
            return None
    return value


def _json(value: t.Any) -> t.Any:
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def deliveries(node: Node, executor: Executor) -> list[tuple[Path, str]]:
    """Each artifact of ``node`` with its place on the host of ``executor``: TOSCA
    deploys a node's artifacts where its operations run (at ``deploy_path``)."""
    return [(source, executor.place(node.name, source, node.deploy_paths.get(name)))
            for name, source in node.artifacts.items()]


class LocalExecutor:
    """Runs operations on this machine, in the working directory."""

    def __init__(self, workdir: Path, environ: t.Mapping[str, str]) -> None:
        self.workdir = workdir
        self.environ = environ

    def place(self, node: str, source: Path, deploy_path: str | None) -> str:
        """``deploy_path`` (relative to the working directory, the operations' own),
        else the artifact's file where it is: this machine is the host."""
        if deploy_path is None:
            return str(source)
        return str(self.workdir / deploy_path)   # an absolute deploy_path stays itself

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: t.Callable[[int], None] | None = None,
            artifacts: t.Sequence[tuple[Path, str]] = ()) -> tuple[int, dict[str, str]]:
        for source, dest in artifacts:
            if Path(dest) != source:
                Path(dest).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)
        return run_script(primary, inputs, self.workdir, log, timeout, self.environ, started)


def run_script(primary: Path, inputs: t.Mapping[str, t.Any], cwd: Path, log: Path,
               timeout: float, environ: t.Mapping[str, str],
               started: t.Callable[[int], None] | None = None) -> tuple[int, dict[str, str]]:
    """``sh primary`` in ``cwd`` with ``inputs`` exported, output appended to ``log``,
    in a session of its own: (exit code, the variables it exported); -1 on timeout."""
    env = dict(environ)
    env.update({key: functions.text(value) for key, value in inputs.items()})
    with tempfile.NamedTemporaryFile(prefix="laguna-tosca-", delete=False) as handle:
        out = Path(handle.name)
    env["LAGUNA_OUTPUTS"] = str(out)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        with log.open("ab") as sink:
            process = subprocess.Popen(
                ["sh", "-c", _WRAPPER, str(primary)], cwd=cwd, env=env,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True)
            if started is not None:
                started(process.pid)
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _end_session(process.pid)
                process.wait()
                code = -1
        return code, _exported(out, env)
    finally:
        out.unlink(missing_ok=True)


def _exported(out: Path, given: t.Mapping[str, str]) -> dict[str, str]:
    """The variables a script exported: those in its final environment that it did not
    get, or got with another value."""
    try:
        data = out.read_bytes()
    except OSError:
        return {}
    exported: dict[str, str] = {}
    for entry in data.split(b"\0"):
        key, equals, value = entry.decode("utf-8", "replace").partition("=")
        if not equals or key in _SHELL_VARIABLES:
            continue
        if given.get(key) != value:
            exported[key] = value
    return exported


def tail(log: Path, offset: int = 0, lines: int = 20) -> str:
    """The last ``lines`` lines written to ``log`` after byte ``offset``."""
    try:
        with log.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _end_session(session: int) -> None:
    try:
        os.killpg(session, signal.SIGKILL)
    except OSError:
        pass


def session_processes(sessions: t.Collection[int], field: int = 3) -> list[int]:
    """The live processes of ``sessions`` (from /proc: the session is field 6 of stat;
    ``field=2``: of process groups, field 5)."""
    wanted = set(sessions)
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[0] != "Z" and int(fields[field]) in wanted:
            found.append(int(entry.name))
    return found


def end_sessions(sessions: t.Collection[int], grace: float = 2.0, scan: bool = False) -> None:
    """End every process of ``sessions``: TERM to each session's process group, KILL
    after ``grace`` seconds; with ``scan``, then every process /proc still shows in
    those sessions (one that left its process group)."""
    groups = set(sessions)
    for group in list(groups):
        if not _signal_group(group, signal.SIGTERM):
            groups.discard(group)
    deadline = time.monotonic() + grace
    while groups and time.monotonic() < deadline:
        time.sleep(0.02)
        groups = {g for g in groups if _signal_group(g, 0) and _group_alive(g)}
    for group in groups:
        _signal_group(group, signal.SIGKILL)
    if scan:
        for pid in session_processes(sessions):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to a process group; whether it has a process."""
    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_alive(group: int) -> bool:
    """Whether a group that takes signals has a process that is not a zombie."""
    return bool(session_processes([group], field=2))
