"""Imperative workflows (TOSCA 1.3 section 7.3) run on a deployed topology.

``laguna action ENV workflow NAME [--arg INPUT=VALUE]...`` runs workflow NAME.

- Inputs: ``--arg`` values are bound to the workflow's input definitions (a
  ``string`` input takes the text as given, others read it as YAML), defaults
  fill the rest; an unknown name, a missing required input, a value of the
  wrong primitive type or one breaking a constraint refuses the run.
  Activities read them with ``get_input`` (a workflow input hides a topology
  input of the same name).
- Preconditions (condition clauses on each instance of their target) are
  checked before anything runs; one that does not hold refuses the run.
- Steps: a step with no predecessor starts at once. A step runs when every
  step pointing at it (by ``on_success`` or ``on_failure``) has finished, and
  at least one of them took the branch leading to it; otherwise it is skipped
  (and so are the steps only it would lead to). Steps run in parallel as far as
  this allows.
- A step applies to each instance of its target (a node, or a group: each
  member's instances), in parallel; instances its ``filter`` rejects are left
  out. Its activities run in order: ``set_state``, ``call_operation`` (the
  operation's inputs overridden by the activity's), ``delegate`` (``deploy``:
  the instance's declarative deploy lifecycle; ``undeploy``: Standard.stop and
  Standard.delete) and ``inline`` (another workflow, run once per step).
- A step fails when an activity fails on any instance. It then follows its
  ``on_failure`` steps; a step without ``on_failure`` fails the workflow: no new
  step starts, waits end, and the error names the workflow, step, node and
  operation.
- ``operation_host`` says where a step's call_operation runs (SELF, SOURCE, TARGET,
  HOST: where that instance runs; ORCHESTRATOR: this machine).
- A workflow given by an ``implementation`` instead of steps runs it as an
  operation: ``sh <primary>`` on this machine, the workflow's inputs exported.
- Once it succeeded, each of its ``outputs`` is the variable of that name its
  operations exported, set on the node template's attribute it maps to.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import concurrent.futures
import dataclasses
import threading
import typing as t

import yaml

from laguna.frontends.tosca import conditions, functions, values
from laguna.frontends.tosca.actions import ActionFailed, ActionRefused, undeploy_instance
from laguna.frontends.tosca.machines import Executor
from laguna.frontends.tosca.model import SHELL_SCRIPT, ExternalWorkflow, Operation
from laguna.frontends.tosca.problems import (
    CONSTRAINT_VIOLATION,
    MISSING_REQUIRED,
    OPERATION_FAILED,
    PRECONDITION_FAILED,
    TYPE_MISMATCH,
    UNKNOWN_INPUT,
    UNKNOWN_WORKFLOW,
    UNSUPPORTED_WORKFLOW,
)
from laguna.frontends.tosca.runtime import (
    DeployFailed,
    Instance,
    Resolve,
    Runtime,
    Stopped,
    Where,
    tail,
)

#: the OBJECT_ID of ``laguna action`` that names the topology's workflows
WORKFLOW_OBJECT = "workflow"
SUCCEEDED, FAILED, SKIPPED = "succeeded", "failed", "skipped"


@dataclasses.dataclass
class StepFailed(LagunaError):
    """A step's activity failed: what the error says, and where."""

    code = "LAG-E1543"

    message: str
    details: dict[str, t.Any] = dataclasses.field(default_factory=dict)


class WorkflowResolve(Resolve):
    """get_input sees the workflow's inputs first, then the topology's."""

    def __init__(self, runtime: Runtime, where: Where, inputs: t.Mapping[str, t.Any]) -> None:
        super().__init__(runtime, where)
        self.inputs = inputs

    def input(self, name: str) -> t.Any:
        if name in self.inputs:
            return self.inputs[name]
        return super().input(name)


def bind_inputs(workflow: str, definitions: object,
                given: t.Mapping[str, t.Any], text: bool = True) -> dict[str, t.Any]:
    """The workflow's input values: ``given`` (command-line text when ``text``) checked
    against ``definitions``, defaults for the rest."""
    defs = definitions if isinstance(definitions, dict) else {}
    unknown = sorted(set(given) - set(defs))
    if unknown:
        takes = ", ".join(sorted(defs)) or "no inputs"
        raise ActionRefused(UNKNOWN_INPUT, f"workflow {workflow} has no input "
                            f"{', '.join(map(repr, unknown))} (it takes: {takes})")
    bound: dict[str, t.Any] = {}
    for key, definition in defs.items():
        spec = definition if isinstance(definition, dict) else {"default": definition}
        type_name = str(spec.get("type") or "string")
        if key in given:
            value = given[key]
            if text and type_name != "string" and isinstance(value, str):
                value = _yaml(value)
        elif "default" in spec:
            value = spec["default"]
        elif spec.get("required", True):
            raise ActionRefused(MISSING_REQUIRED, f"workflow {workflow}: input {key} needs a "
                                f"value (--arg {key}=...)")
        else:
            continue
        if type_name in values.PRIMITIVES:
            why = values.check_primitive(type_name, value)
            if why is not None:
                raise ActionRefused(TYPE_MISMATCH, f"workflow {workflow}: input {key}: {why}")
        for clause in spec.get("constraints") or []:
            why = values.check_constraint(clause, type_name, value)
            if why is not None:
                raise ActionRefused(CONSTRAINT_VIOLATION,
                                    f"workflow {workflow}: input {key}: {why}")
        bound[str(key)] = value
    return bound


def _yaml(text: str) -> t.Any:
    try:
        return yaml.safe_load(text) if text else ""
    except yaml.YAMLError:
        return text


class WorkflowRun:
    """Runs the imperative workflows of one reopened deploy."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.workflows: dict[str, t.Any] = runtime.topology.workflows
        #: step name -> how it ended, for the top-level workflow
        self.steps: dict[str, str] = {}
        #: what the workflow's operations exported, the last one's value of each
        self.exported: dict[str, str] = {}
        self.lock = threading.Lock()
        #: the workflow's outputs (TOSCA 1.3 attribute mappings), once it succeeded
        self.outputs: dict[str, str | None] = {}

    def check(self, name: str, arguments: t.Mapping[str, str]
              ) -> tuple[dict[str, t.Any], ExternalWorkflow | None, dict[str, t.Any]]:
        """Workflow ``name``'s body, external implementation and inputs bound to
        ``arguments``; ActionRefused when it cannot run whatever the instances'
        states (the deployment layer asks this before anything is written)."""
        body = self.workflows.get(name)
        if not isinstance(body, dict):
            known = ", ".join(sorted(self.workflows)) or "none"
            raise ActionRefused(UNKNOWN_WORKFLOW, f"topology {self.runtime.topology.name} "
                                f"has no workflow {name!r} (workflows: {known})")
        external = self.runtime.topology.external_workflows.get(name)
        if external is not None and not external.shell:
            named = external.operation.primary or external.artifact_type
            raise ActionRefused(UNSUPPORTED_WORKFLOW, f"workflow {name}: implementation "
                                f"{named} is a {external.artifact_type} artifact; laguna "
                                f"runs only shell scripts ({SHELL_SCRIPT})")
        return body, external, bind_inputs(name, body.get("inputs"), arguments)

    def run(self, name: str, arguments: t.Mapping[str, str]) -> dict[str, str]:
        """Run workflow ``name``; how each of its steps ended. Raises ActionRefused
        before anything runs, ActionFailed when the workflow fails."""
        body, external, inputs = self.check(name, arguments)
        why = self.precondition_unmet(name, body)
        if why is not None:
            raise ActionRefused(PRECONDITION_FAILED, why)
        try:
            if external is not None:
                self._external(name, external, inputs)
            else:
                self.steps = self._graph(name, body, inputs, top=True)
        except StepFailed as failure:
            raise ActionFailed(OPERATION_FAILED, failure.message, failure.details) from None
        self.outputs = self._map_outputs(body.get("outputs"))
        return self.steps

    def _external(self, name: str, external: ExternalWorkflow,
                  inputs: t.Mapping[str, t.Any]) -> None:
        """Run a workflow's implementation as an operation: ``sh <primary>`` on this
        machine, in the working directory, the workflow's inputs exported."""
        runtime = self.runtime
        primary = external.operation.primary
        assert primary is not None
        runtime.reporter.report("info", f"workflow {name}: sh {primary}")
        log = runtime.logs / f"workflow.{name}.log"
        before = log.stat().st_size if log.exists() else 0
        code, exported = runtime.orchestrator().run(
            primary, external.operation.dependencies, inputs, log, runtime.timeout,
            runtime.on_session)
        if code != 0:
            raise StepFailed(f"workflow {name}: sh {primary} exited with {code}",
                             {"workflow": name, "exit_code": code,
                              "output": tail(log, before)})
        with self.lock:
            self.exported.update(exported)

    def _map_outputs(self, outputs: object) -> dict[str, str | None]:
        """Each workflow output: the variable of that name the workflow's operations (or
        its implementation) exported, set on the attribute it maps to on every instance
        of the node template; null when none exported it."""
        found: dict[str, str | None] = {}
        mappings = t.cast(dict[str, list[str]], outputs if isinstance(outputs, dict) else {})
        for name, (node, attribute) in mappings.items():
            value = self.exported.get(str(name))
            found[str(name)] = value
            if value is not None:
                for instance in self.runtime.instances.get(node, []):
                    self.runtime.set_attributes(instance, {attribute: value})
        return found

    def precondition_unmet(self, name: str, body: t.Mapping[str, t.Any]) -> str | None:
        """Why the workflow's preconditions do not hold; None when they do."""
        for precondition in body.get("preconditions") or []:
            for instance in self.targets(str(precondition.get("target"))):
                why = conditions.unmet(precondition.get("condition") or [], instance)
                if why is not None:
                    return f"workflow {name}: precondition on {instance.id} does not hold: " \
                        f"{why}"
        return None

    def targets(self, target: str) -> list[Instance]:
        """The instances of a node template, or of a group's members."""
        if target in self.runtime.instances:
            return list(self.runtime.instances[target])
        members = self.runtime.topology.groups.get(target, {}).get("members") or []
        return [i for member in members for i in self.runtime.instances.get(member, [])]

    # -- the step graph --------------------------------------------------------------------
    def _graph(self, name: str, body: t.Mapping[str, t.Any], inputs: t.Mapping[str, t.Any],
               top: bool = False) -> dict[str, str]:
        steps: dict[str, t.Any] = dict(body.get("steps") or {})
        # step -> (predecessor, whether it leads here on success)
        incoming: dict[str, list[tuple[str, bool]]] = {s: [] for s in steps}
        for step_name, step in steps.items():
            for follower in step.get("on_success") or []:
                incoming[follower].append((step_name, True))
            for follower in step.get("on_failure") or []:
                incoming[follower].append((step_name, False))
        ended: dict[str, str] = {}
        fatal: list[StepFailed] = []
        running: dict[concurrent.futures.Future[None], str] = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(steps))) as pool:
            while True:
                for step_name in self._ready(steps, incoming, ended, running, fatal):
                    future = pool.submit(self._step, name, step_name, steps[step_name],
                                         inputs)
                    running[future] = step_name
                if not running:
                    break
                done, _ = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    step_name = running.pop(future)
                    error = future.exception()
                    ended[step_name] = SUCCEEDED if error is None else FAILED
                    if error is None or steps[step_name].get("on_failure"):
                        continue
                    if isinstance(error, StepFailed):
                        fatal.append(error)
                    elif not isinstance(error, Stopped):
                        fatal.append(StepFailed(f"workflow {name}: step {step_name}: "
                                                f"{type(error).__name__}: {error}"))
                    if top:
                        # waits in the steps still running end; no operation starts
                        with self.runtime.cond:
                            if self.runtime.failure is None:
                                self.runtime.failure = DeployFailed(fatal[0].message)
                            self.runtime.cond.notify_all()
        if fatal:
            raise fatal[0]
        return {s: ended.get(s, SKIPPED) for s in steps}

    def _ready(self, steps: t.Mapping[str, t.Any], incoming: dict[str, list[tuple[str, bool]]],
               ended: dict[str, str], running: t.Mapping[t.Any, str],
               fatal: list[StepFailed]) -> list[str]:
        """The steps to start now; steps no branch leads to are marked skipped."""
        if fatal:
            return []
        ready: list[str] = []
        changed = True
        while changed:
            changed = False
            for step_name in steps:
                if step_name in ended or step_name in running.values() or step_name in ready:
                    continue
                links = incoming[step_name]
                if any(p not in ended for p, _ in links):
                    continue
                if not links or any(ended[p] == (SUCCEEDED if ok else FAILED)
                                    for p, ok in links):
                    ready.append(step_name)
                else:
                    ended[step_name] = SKIPPED
                    changed = True
        return ready

    # -- one step --------------------------------------------------------------------------
    def _step(self, workflow: str, step_name: str, step: t.Mapping[str, t.Any],
              inputs: t.Mapping[str, t.Any]) -> None:
        runtime = self.runtime
        target = str(step.get("target"))
        instances = self.targets(target)
        chosen = [i for i in instances
                  if conditions.unmet(step.get("filter") or [], i) is None]
        runtime.reporter.report("info", f"workflow {workflow}: step {step_name} on "
                                f"{', '.join(i.id for i in chosen) or 'no instance'}", target)
        for activity in step.get("activities") or []:
            ((kind, argument),) = activity.items()
            if kind == "inline":
                self._inline(workflow, step_name, argument, inputs)
                continue
            errors: list[BaseException] = []

            def one(instance: Instance, kind: str = kind, argument: t.Any = argument) -> None:
                try:
                    self._activity(workflow, step_name, step, kind, argument, instance, inputs)
                except (StepFailed, Stopped) as error:
                    errors.append(error)

            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(chosen))) as pool:
                list(pool.map(one, chosen))
            failed = sorted((e for e in errors if isinstance(e, StepFailed)),
                            key=lambda e: e.message)
            if failed:
                raise failed[0]
            if errors:
                raise errors[0]

    def _inline(self, workflow: str, step_name: str, argument: t.Any,
                inputs: t.Mapping[str, t.Any]) -> None:
        name = str(argument.get("workflow") if isinstance(argument, dict) else argument)
        body = self.workflows[name]
        given = argument.get("inputs") or {} if isinstance(argument, dict) else {}
        resolve = WorkflowResolve(self.runtime, Where(None), inputs)
        try:
            bound = bind_inputs(name, body.get("inputs"),
                                {k: functions.evaluate(v, resolve) for k, v in given.items()},
                                text=False)
        except ActionRefused as refused:
            raise StepFailed(f"workflow {workflow}: step {step_name}: inline {name}: "
                             f"{refused.message}") from None
        why = self.precondition_unmet(name, body)
        if why is not None:
            raise StepFailed(f"workflow {workflow}: step {step_name}: inline {name}: {why}")
        self._graph(name, body, bound)

    def _activity(self, workflow: str, step_name: str, step: t.Mapping[str, t.Any],
                  kind: str, argument: t.Any, instance: Instance,
                  inputs: t.Mapping[str, t.Any]) -> None:
        runtime = self.runtime
        where = f"workflow {workflow}: step {step_name}: node {instance.id}"
        if kind == "set_state":
            runtime.set_state(instance, str(argument))
            return
        if kind == "delegate":
            name = str(argument.get("workflow") if isinstance(argument, dict) else argument)
            try:
                if name == "deploy":
                    runtime.deploy_instance(instance)
                else:
                    undeploy_instance(runtime, instance)
            except DeployFailed as failure:
                runtime.set_state(instance, "error")
                raise StepFailed(f"{where}: delegate {name}: {failure.message}",
                                 {**failure.details, "workflow": workflow,
                                  "step": step_name}) from None
            return
        reference = str(argument.get("operation") if isinstance(argument, dict) else argument)
        given = argument.get("inputs") or {} if isinstance(argument, dict) else {}
        relationship = step.get("target_relationship")
        # a relationship step: the operation of each of the instance's relationships
        # of that requirement, with SOURCE the instance and TARGET its peer
        calls = [(instance.node.operation(reference), None)] if relationship is None else [
            (r.operation(reference), self.runtime.peer(instance, r.target))
            for r in instance.node.requirements if r.name == relationship]
        for operation, peer in calls:
            on = self._operation_host(step.get("operation_host"), instance, peer)
            self._call(workflow, step_name, where, reference, operation, instance, peer,
                       given, inputs, on)

    def _operation_host(self, host: object, instance: Instance,
                        peer: Instance | None) -> Executor:
        """Where a call_operation runs (TOSCA 1.3 ``operation_host``): SELF (the default
        of a node step) and SOURCE (of a relationship step) where the step's instance
        runs; TARGET where the relationship's target runs; HOST where the node the
        instance is hosted on runs (the instance itself when hosted on nothing);
        ORCHESTRATOR this machine, in the working directory."""
        runtime = self.runtime
        if host == "ORCHESTRATOR":
            return runtime.orchestrator()
        if host == "TARGET" and peer is not None:
            return runtime.executor(peer)
        if host == "HOST" and instance.node.hosts:
            return runtime.executor(runtime.peer(instance, instance.node.hosts[0]))
        return runtime.executor(instance)

    def _call(self, workflow: str, step_name: str, where: str, reference: str,
              operation: Operation | None, instance: Instance, peer: Instance | None,
              given: t.Mapping[str, t.Any], inputs: t.Mapping[str, t.Any],
              on: Executor) -> None:
        runtime = self.runtime
        if operation is None or operation.primary is None:
            raise StepFailed(f"{where}: operation {reference} has nothing to run",
                             {"workflow": workflow, "step": step_name,
                              "node": instance.node.name, "operation": reference})
        resolve = WorkflowResolve(runtime, Where(instance, instance if peer else None, peer),
                                  inputs)
        overrides = {key: functions.evaluate(value, resolve) for key, value in given.items()}
        operation = dataclasses.replace(operation, inputs={**operation.inputs, **overrides})
        try:
            _, exported = runtime.run_operation(instance, operation, target=peer, on=on)
        except DeployFailed as failure:
            code = failure.details.get("exit_code")
            why = f"sh {operation.primary} exited with {code}" if code is not None \
                else failure.message
            raise StepFailed(f"{where}: operation {reference} failed: {why}",
                             {**failure.details, "workflow": workflow, "step": step_name,
                              "node": instance.node.name, "operation": reference}) from None
        with self.lock:
            self.exported.update(exported)
