"""The TOSCA front end: service templates and CSARs deployed through laguna.deploy.

``prepare`` validates the whole blueprint (every problem at once; nothing
runs when there is one); ``deploy`` runs it with :mod:`.runtime`; the model
kept after a deploy holds what ``undeploy`` needs (each instance's stop and
delete operations with their inputs resolved, and the process sessions its
operations started), so undeploy works without the blueprint. A redeploy goes
by difference (:mod:`.difference`): the nodes unchanged since the last deploy
are kept as they are, the others undeployed and run again.
"""

from __future__ import annotations

import dataclasses
import datetime
import graphlib
import json
import hashlib
import shutil
import tempfile
import typing as t
from pathlib import Path

import yaml

from laguna.deploy.context import RunContext, StoredState
from laguna.deploy.errors import NOT_DEPLOYED, Rejected, rejection as problems_rejection
from laguna.deploy.frontend import Blueprint, Outcome, PrepareOptions, listed
from laguna.deploy.inputs import InputsFileError, read_inputs_file
from laguna.deploy.result import CONDITION, Action, ActionArgument, Component, ErrorInfo
from laguna.deploy.workdir import STATE_DIR
from laguna.frontends.marks import is_tosca
from laguna.frontends.tosca import (actions, blocking, difference, functions, locations,
                                    policies, scaling)
from laguna.frontends.tosca.deployed import kept_instances, restore
from laguna.frontends.tosca.documents import CsarError, locate
from laguna.frontends.tosca.grammar import RUNNING_STATES
from laguna.frontends.tosca.model import Operation, Topology
from laguna.frontends.tosca.placement import THIS_MACHINE, is_machine, placements
from laguna.frontends.tosca.remote import Fetcher
from laguna.frontends.tosca.problems import (CSAR_INVALID, INVALID_TEMPLATE, OPERATION_FAILED,
                                            UNKNOWN_OPERATION, Problems)
from laguna.frontends.tosca.machines import Executor, Fleet
from laguna.frontends.tosca.runtime import DeployFailed, LocalExecutor, Runtime, end_sessions
from laguna.frontends.tosca.csar import CatalogImports
from laguna.frontends.tosca.runtime import Reporter as RuntimeReporter
from laguna.frontends.tosca.topology import load_topology
from laguna.frontends.tosca.watching import (Held, Memory, Pass, run_checks, unhealed,
                                            watched_condition)
from laguna.frontends.tosca.types import is_function
from laguna.frontends.tosca.workflows import WORKFLOW_OBJECT, WorkflowRun
from laguna.errors import LagunaError
from laguna.source import Diagnostic
from laguna.hosts.choice import HERE, KINDS

if t.TYPE_CHECKING:
    from laguna.cloud.base import Cloud
    from laguna.hosts.resources import AgentFactory

LANGUAGE = "tosca"


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The payload of a TOSCA blueprint."""

    topology: Topology
    path: Path
    inputs: dict[str, t.Any]
    cloud: str | None = None
    #: what fetched its URLs (its cache serves the deploy's second reading)
    fetcher: Fetcher | None = None
    #: ``--set`` wait settings (blocking.SETTING_KEYS)
    settings: dict[str, str] = dataclasses.field(default_factory=dict)
    #: where its ``catalog:NAME`` imports came from
    catalog: CatalogImports | None = None


#: whether a path is a TOSCA blueprint (read without importing this module)
recognises = is_tosca


def read_inputs(options: PrepareOptions) -> dict[str, t.Any]:
    """Input values: ``--inputs FILE`` (a YAML map), then ``--set`` pairs (YAML scalars)
    other than the wait settings (:func:`wait_settings`)."""
    inputs: dict[str, t.Any] = {}
    if options.inputs is not None:
        try:
            inputs.update(read_inputs_file(options.inputs))
        except InputsFileError as error:
            raise Rejected(INVALID_TEMPLATE, str(error)) from None
    for key, text in options.settings.items():
        if key in blocking.SETTING_KEYS:
            continue
        try:
            inputs[key] = yaml.safe_load(text) if text else ""
        except yaml.YAMLError:
            inputs[key] = text
    return inputs


def wait_settings(options: PrepareOptions) -> dict[str, str]:
    """The ``--set`` pairs that are wait settings (AMP's global
    ``brooklyn.tosca.get_attribute_mode``); Rejected when one is wrong."""
    found = {key: text for key, text in options.settings.items()
             if key in blocking.SETTING_KEYS}
    for _key, message in blocking.setting_problems(found):
        raise Rejected(INVALID_TEMPLATE, f"--set {message}")
    return found


def validate(path: Path, options: PrepareOptions) -> tuple[Topology | None, Problems]:
    """The topology at ``path`` with the inputs ``options`` give, and every problem."""
    return load_topology(path, read_inputs(options), fetcher=fetcher_for(options),
                         catalog=catalog_for(options))


#: why a template given as data (the API's) fetches nothing
DATA_REFUSAL = ("a template given as data fetches no URLs (deploy it from a file or CSAR "
                "with the command line)")


def catalog_for(options: PrepareOptions) -> CatalogImports:
    """The catalog ``catalog:NAME`` imports read: the store the options give (if it
    holds CSARs), unpacked into the working directory's cache."""
    return CatalogImports.of_workdir(
        None if options.workdir is None else options.workdir / STATE_DIR, options.catalog)


def fetcher_for(options: PrepareOptions) -> Fetcher:
    """URLs are fetched into the working directory's cache (``.laguna/tosca-fetched``),
    else (``laguna validate``) into a temporary folder made on the first fetch."""
    if options.workdir is not None:
        return Fetcher(options.workdir / STATE_DIR / "tosca-fetched")
    return Fetcher(None, temporary=True)


def _data_entry(data: t.Mapping[str, t.Any], options: PrepareOptions) -> Path:
    """The file a template given as data is read from. It is kept under the working
    directory by the hash of its text, since actions and undeploy read the deployed
    blueprint again from its path; the same template is written once."""
    text = yaml.safe_dump(dict(data), sort_keys=False)
    if options.workdir is None:
        folder = Path(tempfile.mkdtemp(prefix="laguna-tosca-"))
    else:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        folder = options.workdir / STATE_DIR / "tosca-data" / digest
        folder.mkdir(parents=True, exist_ok=True)
    entry = folder / "service.yaml"
    if not entry.exists():
        entry.write_text(text, encoding="utf-8")
    return entry


def rejection(problems: Problems, base: Path | None = None) -> Rejected:
    """One Rejected for every problem: the first one's kind, every one in the message
    (one a line) and under ``problems``."""
    return problems_rejection([_under(p, base) for p in problems.sorted()])


def _under(problem: Diagnostic, base: Path | None) -> Diagnostic:
    """``problem`` with its file under ``base``; a problem of the CSAR as a whole
    (its file is the archive's own name) names the archive as the user gave it."""
    if base is None:
        return problem
    if problem.span is not None and problem.kind == CSAR_INVALID \
            and problem.span.source == base.name:
        return dataclasses.replace(problem, span=dataclasses.replace(problem.span,
                                                                     source=str(base)))
    return problem.under(str(base))


def _shown_under(path: Path) -> Path | None:
    """Where the files of the blueprint at ``path`` are, as the user wrote it: its
    problems name their files (relative to the template's folder or the CSAR's
    root) under it, as the other languages do."""
    base = path if path.is_dir() or path.suffix.lower() in (".csar", ".zip") else path.parent
    return None if str(base) in ("", ".") else base


class ToscaFrontend:
    """laguna's built-in TOSCA Simple Profile 1.3 front end."""

    language = LANGUAGE

    def recognises(self, path: Path) -> bool:
        return recognises(path)

    def __init__(self, fetch_for_data: bool = False) -> None:
        #: whether templates given as data (the API's) may fetch URLs
        self.fetch_for_data = fetch_for_data

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        return self._prepare(path, options, fetcher_for(options))

    def _prepare(self, path: Path, options: PrepareOptions, fetcher: Fetcher,
                 confined: bool = False) -> Blueprint:
        inputs = read_inputs(options)
        settings = wait_settings(options)
        catalog = catalog_for(options)
        topology, problems = load_topology(path, inputs, fetcher=fetcher, confined=confined,
                                           catalog=catalog)
        if problems or topology is None:
            raise rejection(problems, None if confined else _shown_under(path))
        if options.cloud not in (None, HERE, *KINDS):
            raise Rejected(INVALID_TEMPLATE, f"--cloud {options.cloud}: expected here (this "
                           f"machine) or a cloud ({', '.join(KINDS)})")
        model = {"tosca": {"source": str(path.resolve()), "inputs": _json(topology.inputs),
                           "topology": topology.summary(),
                           "cloud": options.cloud or "here"}}
        return Blueprint(language=LANGUAGE, source=str(path), model=model, name=topology.name,
                         payload=Prepared(topology, path.resolve(), inputs, options.cloud,
                                          fetcher=fetcher, settings=settings,
                                          catalog=catalog))

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        entry = _data_entry(data, options)
        if self.fetch_for_data:
            return self._prepare(entry, options, fetcher_for(options))
        # a request names no file of this machine, and no URL: it has no folder of its own
        return self._prepare(entry, options, Fetcher(None, refusal=DATA_REFUSAL),
                             confined=True)

    # -- deploy ----------------------------------------------------------------------------
    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        prepared = t.cast(Prepared, blueprint.payload)
        topology = prepared.topology
        home = _home(context)
        # a redeploy without --cloud runs where the environment was deployed
        cloud = prepared.cloud or _stored_cloud(context.stored)
        model = dict(blueprint.model)
        model["tosca"] = {**model["tosca"], "cloud": cloud or HERE}
        if context.dry_run:
            return Outcome(ok=True, model=model, plan=_redeploy_plan(topology, cloud, context),
                           components={name: Component(node.type, name, "initial",
                                                       {"instances": node.instances})
                                       for name, node in topology.nodes.items()})
        # AMP's per-node locations put their machines on the cloud each names,
        # whatever the environment's other machines are (locations.py): each cloud
        # named is opened before anything runs (or a redeploy undeploys anything)
        why = locations.refusal(topology.nodes.values(), lambda kind: _unopened(context, kind))
        if why is not None:
            raise Rejected("cloud_error", why)
        stored = (context.stored.model or {}).get("tosca") or {}
        prints = difference.fingerprints(topology, cloud or HERE)
        located = bool(locations.located(topology.nodes.values()))
        machines = _machines(context, stored) \
            if on_cloud(cloud) or located or stored.get("stack") else None
        # a redeploy by difference: what the last deploy made and this one keeps
        # stays as it is; the rest goes before anything runs
        change = difference.difference(topology, prints, stored, context.repair,
                                       on_cloud(cloud))
        kept_records = _take_down(context, home, stored, change, machines)
        if topology.csar:
            # keep the CSAR where undeploy finds its scripts, whatever happens to PATH
            kept = home / "csar"
            if kept.resolve() != topology.root.resolve():
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(topology.root, kept)
            reloaded, problems = load_topology(kept, prepared.inputs,
                                               fetcher=prepared.fetcher,
                                               catalog=prepared.catalog)
            if reloaded is None:
                raise rejection(problems)
            topology = reloaded
        runtime = Runtime(topology, _workdir(context), home / "logs", context.reporter,
                          timeout=context.timeouts.agent, machines=machines,
                          settings=prepared.settings, all_on_cloud=on_cloud(cloud))
        runtime.on_session = _session_keeper(home)
        keep = _keep(runtime, kept_records, change, context.reporter)
        error: ErrorInfo | None = None
        try:
            runtime.deploy(keep=keep)
        except DeployFailed as failure:
            error = ErrorInfo(OPERATION_FAILED, failure.message, failure.details)
            context.reporter.report("error", failure.message, failure.details.get("node"))
        model["tosca"] = {**model["tosca"], "instances": kept_instances(runtime),
                          "order": undeploy_order(topology),
                          "fingerprints": prints,
                          "counts": {name: node.instances
                                     for name, node in topology.nodes.items()},
                          "stack": _main_stack(machines),
                          "stacks": dict(machines.stacks) if machines is not None else {}}
        return Outcome(ok=error is None, model=model, outputs=runtime.outputs(),
                       components=components(runtime), error=error)

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        """A node operation (OBJECT: a node template or instance, METHOD:
        INTERFACE.OPERATION) or an imperative workflow (OBJECT: ``workflow``, METHOD:
        its name) on the deployed topology: see :mod:`.actions`, :mod:`.workflows`."""
        runtime = self._reopen(context)
        result: t.Any = None
        error: ErrorInfo | None = None
        stored = context.stored.model or {}
        flows: dict[str, t.Any] = dict(stored["tosca"].get("workflow_outputs") or {})
        try:
            policy = _policy_of(runtime, object_id, arguments)
            if policy is not None:
                size = _checked(lambda: policies.resize_size(runtime, policy, method,
                                                             arguments))
                result = {"policy": policy,
                          "resized": _checked(lambda: policies.resize_action(
                              runtime, policy, size))}
            elif _is_workflow(runtime, object_id, method):
                run = WorkflowRun(runtime)
                steps = run.run(method, arguments)
                result = {"workflow": method, "steps": steps, "outputs": run.outputs}
                flows[method] = run.outputs
            else:
                result = {"instances": actions.run(runtime, object_id, method, arguments)}
        except actions.ActionRefused as refused:
            raise Rejected(refused.kind, refused.message) from None
        except actions.ActionFailed as failure:
            error = ErrorInfo(failure.kind, failure.message, failure.details)
            context.reporter.report("error", failure.message, failure.details.get("node"))
        except DeployFailed as failure:     # a resize whose new instance failed
            error = ErrorInfo(OPERATION_FAILED, failure.message, failure.details)
            context.reporter.report("error", failure.message, failure.details.get("node"))
        model = {**stored, "tosca": {**stored["tosca"], "instances": kept_instances(runtime),
                                     "workflow_outputs": flows}}
        # each workflow's outputs of its last successful run, beside the topology's
        # (which win a clash of names): laguna status and outputs show them
        outputs = {f"workflow.{flow}.{key}": value for flow, found in flows.items()
                   for key, value in found.items()}
        return Outcome(ok=error is None, model=model,
                       outputs={**outputs, **runtime.outputs()},
                       components=components(runtime), error=error, result=result)

    # -- watching (laguna watch, the worker's watch job) -------------------------------
    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        """One watch pass: the due checks, then the policies (:mod:`.watching`,
        :mod:`.policies`); reports are kept only when the pass changed something."""
        stored = (context.stored.model or {}).get("tosca") or {}
        if not stored.get("instances"):
            return Outcome(ok=True, quiet=True)
        held = Held(context.reporter)
        runtime = self._reopen(context, held)
        runtime.blocking = False
        memory = Memory.of(stored.get("watch"))
        this = Pass(now, period)
        run_checks(runtime, memory, this)
        policies.run_policies(runtime, memory, this)
        unhealed(runtime, this)
        if this.changed:
            held.release()
        model = {**(context.stored.model or {}),
                 "tosca": {**stored, "instances": kept_instances(runtime),
                           "watch": memory.to_json()}}
        return Outcome(ok=True, model=model, outputs={**_workflow_outputs(stored),
                                                      **runtime.outputs()},
                       components=components(runtime),
                       watch_due=min(this.dues) if this.dues else None,
                       quiet=not this.changed)

    def summarize(self, blueprint: Blueprint) -> list[tuple[str, str]]:
        topology = blueprint.model["tosca"]["topology"]
        nodes = topology.get("nodes") or {}
        return [
            ("nodes", listed([f"{name} ({node['type']})" for name, node in nodes.items()])),
            ("instances", str(sum(int(node.get("instances") or 0) for node in nodes.values()))),
            ("inputs", listed(list(topology.get("inputs") or []))),
            ("outputs", listed(list(topology.get("outputs") or []))),
            ("workflows", listed(list(topology.get("workflows") or []))),
        ]

    # -- actions, listed and checked before they run -----------------------------------
    def actions(self, stored: StoredState, state_dir: Path) -> list[Action] | None:
        runtime = _stored_runtime(stored, state_dir)
        return _listed_actions(runtime) if runtime is not None else None

    def check_action(self, stored: StoredState, state_dir: Path, target: str, method: str,
                     arguments: t.Mapping[str, str]) -> str:
        """What :meth:`action` refuses before it runs anything, asked before the
        deployment layer writes anything; instance states are the run's to judge."""
        runtime = _stored_runtime(stored, state_dir)
        if runtime is None:
            return target
        try:
            policy = _policy_of(runtime, target, arguments)
            if policy is not None:
                _checked(lambda: policies.resize_size(runtime, policy, method, arguments))
                for node in runtime.topology.policies[policy].get("targets") or []:
                    _checked(lambda: scaling.check_resizable(runtime, str(node)))
                return policy
            if _is_workflow(runtime, target, method):
                WorkflowRun(runtime).check(method, arguments)
            else:
                for instance in actions.instances_of(runtime, target):
                    actions.operation_of(instance, method)
        except actions.ActionRefused as refused:
            listed = _listed_actions(runtime)
            owner = WORKFLOW_OBJECT if _is_workflow(runtime, target, method) \
                else _node_of(runtime, target)
            meant = [a for a in listed if a.object == owner]
            raise Rejected(refused.kind, refused.message,
                           {"actions": [a.to_json() for a in meant or listed]}) from None
        return target

    def _reopen(self, context: RunContext, reporter: RuntimeReporter | None = None
                ) -> Runtime:
        """A Runtime of the deployed topology, in the state the last run left it."""
        stored = (context.stored.model or {}).get("tosca") or {}
        if not stored.get("instances"):
            raise Rejected(NOT_DEPLOYED, f"environment {context.stored.name!r} has no "
                           "deployed TOSCA topology to run an action on")
        home = _home(context)
        topology, problems = load_topology(
            _deployed_source(stored, home), stored.get("inputs") or {},
            catalog=_kept_catalog(context.state_dir))
        if topology is None or problems:
            raise rejection(problems)
        machines = _machines(context, stored) if stored.get("stack") or stored.get("stacks") \
            else None
        runtime = Runtime(topology, _workdir(context), home / "logs",
                          reporter if reporter is not None else context.reporter,
                          timeout=context.timeouts.agent, machines=machines)
        runtime.on_session = _session_keeper(home)
        restore(runtime, stored["instances"], context.stored.components)
        return runtime

    # -- undeploy --------------------------------------------------------------------------
    def undeploy(self, context: RunContext) -> Outcome:
        home = _home(context)
        stored = (context.stored.model or {}).get("tosca") or {}
        instances: dict[str, t.Any] = stored.get("instances") or {}
        order: list[str] = stored.get("order") or list(instances)
        workdir = _workdir(context)
        machines = _machines(context, stored) \
            if stored.get("stack") or stored.get("stacks") or on_cloud(stored.get("cloud")) \
            else None
        local = LocalExecutor(workdir, _environ())
        failed: list[str] = []
        states: dict[str, str] = {}     # node -> its state at the end
        ended: dict[str, str] = {}      # instance -> its state at the end
        for node in order:
            for key, instance in instances.items():
                if instance["node"] != node:
                    continue
                failure = _stop_delete(context, home, key, instance, machines, local)
                if failure is not None:
                    failed.append(failure)
                    ended[key] = "error"
                ended.setdefault(key, "deleted")
            states[node] = "error" if any(ended.get(k) == "error" for k, i in
                                          instances.items() if i["node"] == node) else "deleted"
            context.reporter.component(node, instances_type(instances, node), node,
                                       states[node])
        # what an interrupted deploy started, and whatever left its process group
        every = [s for i in instances.values() for s in i["sessions"]]
        end_sessions([*every, *_read_sessions(home / "sessions.json")], scan=True)
        if machines is not None:
            # the hosts go with their processes (the cloud ends what they started)
            machines.delete()
        (home / "sessions.json").unlink(missing_ok=True)
        result = {key: Component(c.type, c.name, states.get(key, "deleted"),
                                 _ended(c.details, ended))
                  for key, c in context.stored.components.items()}
        if failed:
            message = "; ".join(failed)
            context.reporter.report("error", message)
            return Outcome(ok=False, components=result,
                           error=ErrorInfo(OPERATION_FAILED, message))
        return Outcome(ok=True, components=result, outputs={})


def _redeploy_plan(topology: Topology, cloud: str | None,
                   context: RunContext) -> list[dict[str, t.Any]]:
    """What a deploy would run (:func:`plan`); on an environment already deployed,
    first what a redeploy by difference undeploys (``undeploy`` steps: a node that
    reruns or is gone) and keeps (``kept`` steps), and no operation of a kept node."""
    steps = plan(topology, cloud)
    stored = (context.stored.model or {}).get("tosca") or {}
    if not stored.get("instances"):
        return steps
    change = difference.difference(topology, difference.fingerprints(topology, cloud or HERE),
                                   stored, context.repair, on_cloud(cloud))
    instances = stored["instances"].values()
    first: list[dict[str, t.Any]] = [
        {"kind": "undeploy", "node": name, "why": change.why[name]}
        for name in sorted(change.rerun) if any(r.get("node") == name for r in instances)]
    first += [{"kind": "undeploy", "node": name, "why": "no longer in the template"}
              for name in sorted(change.gone)]
    first += [{"kind": "kept", "node": name,
               **({"resized_to": change.resized[name]} if name in change.resized else {})}
              for name in sorted(change.kept)]
    return first + [step for step in steps if step.get("kind") != "operation"
                    or step.get("node") not in change.kept]


def _take_down(context: RunContext, home: Path, stored: t.Mapping[str, t.Any],
               change: difference.Difference, machines: Fleet | None
               ) -> dict[str, t.Any]:
    """Stop and delete (as undeploy does) the instances of the last deploy that this
    one does not keep: those of nodes that rerun or are gone, and those a kept node's
    smaller instance count drops (its newest); the records of the instances kept."""
    instances: dict[str, t.Any] = stored.get("instances") or {}
    if not instances:
        return {}
    drop: set[str] = set()
    for name, size in change.resized.items():
        own = sorted((r["index"], key) for key, r in instances.items()
                     if r.get("node") == name and isinstance(r.get("index"), int))
        drop.update(key for _, key in own[size:])
    reporter = context.reporter
    for name in sorted(change.rerun):
        if any(r.get("node") == name for r in instances.values()):
            reporter.report("info", f"node {name}: {change.why[name]}: its instances are "
                            "undeployed, its lifecycle runs again", name)
    for name in sorted(change.gone):
        reporter.report("info", f"node {name}: no longer in the template: undeployed", name)
    order = [str(n) for n in stored.get("order") or []]
    order += sorted({str(r.get("node")) for r in instances.values()} - set(order))
    local = LocalExecutor(_workdir(context), _environ())
    for node in order:
        for key, record in instances.items():
            if record.get("node") != node or not (
                    node in change.rerun or node in change.gone or key in drop):
                continue
            failure = _stop_delete(context, home, key, record, machines, local)
            if failure is not None:
                # its processes are ended whatever its stop said: the new one runs
                reporter.report("warning", f"{failure} (its processes were ended)", node)
            if node in change.gone:
                reporter.component(node, str(record.get("type") or ""), node, "deleted")
    return {key: record for key, record in instances.items()
            if record.get("node") in change.kept and key not in drop}


def _keep(runtime: Runtime, records: t.Mapping[str, t.Any], change: difference.Difference,
          reporter: RuntimeReporter) -> set[str]:
    """Put the kept nodes' instances back as the last deploy left them (a resized
    one with its new instances added, deployed by the run); their ids."""
    restore(runtime, records, {})
    for name, size in change.resized.items():
        group = runtime.instances[name]
        if size > len(group):
            scaling.add_instances(runtime, name, size - len(group))
    kept = set(records)
    for name in sorted(change.kept):
        node = runtime.topology.nodes[name]
        resized = f", resized to {change.resized[name]}" if name in change.resized else ""
        reporter.report("info", f"node {name}: unchanged, kept{resized}", name)
        reporter.component(name, node.type, name, runtime.node_state(name))
    return kept


def _stop_delete(context: RunContext, home: Path, key: str, instance: t.Mapping[str, t.Any],
                 machines: Fleet | None, local: Executor) -> str | None:
    """Standard.stop then Standard.delete of one deployed instance as the model keeps it
    (its operations' inputs resolved when it was deployed: the blueprint may have
    changed since), then the end of every process its operations started; what
    failed (None: nothing)."""
    node = str(instance["node"])
    # an instance a day-2 action or workflow already deleted is not deleted
    # again, and one not running (stopped by an action, never started) is
    # not stopped again: TOSCA's stop takes a node from started
    state = instance.get("state")
    todo = [] if state == "deleted" else ["delete"] \
        if state not in RUNNING_STATES else ["stop", "delete"]
    failures: list[str] = []
    sessions: list[int] = instance["sessions"]
    for operation, during in (("stop", "stopping"), ("delete", "deleting")):
        spec = instance["operations"].get(operation) if operation in todo else None
        if spec and spec.get("primary") and Path(spec["primary"]).is_file():
            context.reporter.component(node, instance["type"], node, during)
            context.reporter.report("info", f"Standard.{operation}: sh "
                                    f"{spec['primary']}", node)
            host = instance.get("host")
            # reached through the cloud that made its host
            executor: Executor = machines.host_executor(host, instance.get("cloud")) \
                if machines is not None and host else local
            code, _ = executor.run(
                Path(spec["primary"]),
                [Path(p) for p in spec.get("dependencies", [])], spec["inputs"],
                home / "logs" / f"{key}.Standard.{operation}.log",
                context.timeouts.agent, sessions.append)
            if code != 0:
                failures.append(f"{key}: Standard.{operation} exited with {code}")
    end_sessions(sessions)
    return "; ".join(failures) or None


def _ended(details: t.Mapping[str, t.Any], ended: t.Mapping[str, str]) -> dict[str, t.Any]:
    """A component's details with each instance's state (and ``state`` attribute)
    as the undeploy left it."""
    result = dict(details)
    if isinstance(details.get("instances"), list):
        result["instances"] = [
            {**i, "state": ended.get(str(i.get("id")), "deleted"),
             "attributes": {**(i.get("attributes") or {}),
                            "state": ended.get(str(i.get("id")), "deleted")}}
            for i in details["instances"] if isinstance(i, dict)]
        if result["instances"]:
            result["attributes"] = result["instances"][0]["attributes"]
    return result


def instances_type(instances: t.Mapping[str, t.Any], node: str) -> str:
    return next((str(i["type"]) for i in instances.values() if i["node"] == node), "")


def plan(topology: Topology, cloud: str | None = None) -> list[dict[str, t.Any]]:
    """What a deploy would run: first each Compute instance that becomes a machine
    (this machine, or a server of the cloud ``cloud``: ``local``, ``containers``,
    ``ssh``), then each operation with its node, inputs, the order constraints
    that apply to it and, per instance, the host it runs on."""
    cloudy = on_cloud(cloud)
    steps: list[dict[str, t.Any]] = []
    for name, node in topology.nodes.items():
        if is_machine(node):
            for placement in placements(topology, node, cloudy):
                where = (node.location or cloud) if placement.host != THIS_MACHINE else HERE
                steps.append({"kind": "host", "node": name, "instance": placement.instance,
                              "host": placement.host, "cloud": where})
    for name, node in topology.nodes.items():
        after = [f"{host} started (HostedOn)" for host in node.hosts] + \
            [f"{r.target} started (RequiresRunning, {blocking.hold_text(r.properties)})"
             for r in node.requirements if r.requires_running] + \
            [f"{_ref(call)} (latch.{phase}, before "
             f"{'the lifecycle' if blocking.LATCHES[phase] == 'lifecycle' else blocking.LATCHES[phase]})"
             for phase, value in node.latches.items() for call in _attribute_refs(value)]
        waits = sorted({_ref(v) for op in _all_ops(node) for v in _attribute_refs(op.inputs)})
        runs_on = [p.to_json() for p in placements(topology, node, cloudy)]
        for interface, operation in (("Standard", "create"), ("Standard", "configure"),
                                     ("Standard", "start"), ("CheckRunning", "check_running")):
            op = node.interfaces.get(interface, {}).get(operation)
            if op is None or _implementation(op) is None:
                continue
            steps.append({"kind": "operation", "node": name, "instances": node.instances,
                          "interface": interface, "operation": operation,
                          "implementation": _implementation(op),
                          "inputs": _json(op.inputs), "after": after,
                          "waits_for": [w for w in waits if w] + _blocks(op, topology),
                          "runs_on": runs_on})
        for requirement in node.requirements:
            for op_name, op in requirement.operations.items():
                if _implementation(op) is None:
                    continue
                steps.append({"kind": "operation", "node": name, "instances": node.instances,
                              "interface": op.interface, "operation": op_name,
                              "relationship": f"{requirement.name} -> {requirement.target}",
                              "implementation": _implementation(op),
                              "inputs": _json(op.inputs),
                              "after": after,
                              "waits_for": _blocks(op, topology, requirement.target),
                              "runs_on": runs_on})
    return steps


def _implementation(op: Operation) -> str | None:
    """What an operation runs: its script, or the name of AMP's built-in implementation
    (NoOp, BlockUntilRunning) it is."""
    return str(op.primary) if op.primary is not None else op.builtin


def _blocks(op: Operation, topology: Topology, peer: str | None = None) -> list[str]:
    """What a BlockUntilRunning operation waits for: its target (a get_input of it read
    from the topology's inputs; else the relationship's target, ``peer``) with its
    timeout and abort_if_on_fire."""
    if op.builtin != blocking.BLOCK_UNTIL_RUNNING:
        return []
    target = op.inputs.get("target", peer)
    if isinstance(target, dict) and is_function(target) and "get_input" in target:
        name = target["get_input"]
        target = topology.inputs.get(name[0] if isinstance(name, list) else name, target)
    shown = yaml.safe_dump(target, default_flow_style=True).strip() \
        if isinstance(target, (dict, list)) else str(target)
    return [f"{shown} started (BlockUntilRunning, {blocking.hold_text(op.inputs)})"]


def _all_ops(node: t.Any) -> list[t.Any]:
    return [op for ops in node.interfaces.values() for op in ops.values()]


def _attribute_refs(value: t.Any) -> list[t.Any]:
    found: list[t.Any] = []
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in ("get_attribute", "get_operation_output"):
            found.append(value)
        for item in value.values():
            found += _attribute_refs(item)
    elif isinstance(value, list):
        for item in value:
            found += _attribute_refs(item)
    return found


def _ref(call: t.Mapping[str, t.Any]) -> str:
    ((name, args),) = call.items()
    return f"{name} {'.'.join(str(a) for a in args)} truthy" if isinstance(args, list) else ""


def undeploy_order(topology: Topology) -> list[str]:
    """Nodes in undeploy order: dependents and hosted nodes before their targets
    (a DependsOn cycle is broken where it closes)."""
    graph = {name: {r.target for r in node.requirements if r.target in topology.nodes}
             for name, node in topology.nodes.items()}
    order: list[str] = []
    while graph:
        try:
            order += list(graphlib.TopologicalSorter(graph).static_order())
            break
        except graphlib.CycleError as cycle:
            loop = cycle.args[1]
            graph[loop[0]].discard(loop[1])
    seen: list[str] = []
    for name in order:
        if name not in seen:
            seen.append(name)
    return list(reversed(seen))


def components(runtime: Runtime) -> dict[str, Component]:
    """Every node with its state, properties, attributes and instances."""
    result: dict[str, Component] = {}
    for name, node in runtime.topology.nodes.items():
        group = runtime.instances[name]
        instances = [{"id": i.id, "state": i.state, "attributes": runtime.attributes(i)}
                     for i in group]
        details = {"properties": runtime.properties(node),
                   "attributes": instances[0]["attributes"] if instances else {},
                   "instances": instances}
        condition = watched_condition(group)
        if condition is not None:
            details[CONDITION] = condition
        result[name] = Component(node.type, name, runtime.node_state(name), details)
    return result


def on_cloud(cloud: object) -> bool:
    """Whether ``--cloud`` (as given, or kept in the model) puts Compute instances on
    servers of a cloud rather than on this machine."""
    return cloud in KINDS


def _stored_cloud(stored: StoredState) -> str | None:
    """Where the environment's Compute instances were deployed (None: nowhere yet)."""
    cloud = ((stored.model or {}).get("tosca") or {}).get("cloud")
    return str(cloud) if cloud is not None else None


def _machines(context: RunContext, stored: t.Mapping[str, t.Any]) -> Fleet:
    """The servers of Compute instances: on the environment's cloud (``--cloud
    local``, ``containers``, ``ssh``), a located one on its location's; the
    stacks a previous deploy kept (``stored``) keep their names."""
    resources = context.resources
    default = resources.kind or "local"

    def cloud_of(kind: str) -> tuple[Cloud, AgentFactory]:
        cloud = resources.on(kind)
        if cloud is None or resources.agents is None:
            raise Rejected("cloud_error", f"--cloud {kind}: no cloud is wired in here")
        return cloud, resources.agents

    if resources.cloud is None or resources.agents is None:
        raise Rejected("cloud_error", f"--cloud {default}: no cloud is wired in here")
    kept = stored.get("stacks")
    if not isinstance(kept, dict):
        # a model kept before servers could live on several clouds: its one stack
        # is on the environment's cloud
        kept = {default: stored["stack"]} if stored.get("stack") else {}
    return Fleet(cloud_of, default, f"tosca-{context.stored.environment_id[:12]}",
                 {str(k): str(v) for k, v in kept.items()})


def _main_stack(machines: Fleet | None) -> str | None:
    """The model's ``stack``: the one on the environment's cloud, else the first."""
    if machines is None or not machines.stacks:
        return None
    return machines.stacks.get(machines.default) or next(iter(machines.stacks.values()))


def _unopened(context: RunContext, kind: str) -> str | None:
    """Why the ``kind`` cloud cannot be opened for this environment (None: it can)."""
    try:
        cloud = context.resources.on(kind)
    except LagunaError as error:
        return str(error)
    return None if cloud is not None else "no cloud of that kind is wired in here"


def _deployed_source(stored: t.Mapping[str, t.Any], home: Path) -> Path:
    """Where the deployed template is read again: the CSAR kept at deploy (PATH may
    be gone), else the service template's path."""
    kept = home / "csar"
    return kept if kept.is_dir() else Path(stored["source"])


def _is_workflow(runtime: Runtime, object_id: str, method: str) -> bool:
    """Whether ``action OBJECT METHOD`` names a workflow: a node template called
    "workflow" is reached when METHOD is no workflow."""
    return object_id == WORKFLOW_OBJECT and (method in runtime.topology.workflows or
                                             object_id not in runtime.instances)


def _policy_of(runtime: Runtime, object_id: str,
               arguments: t.Mapping[str, str]) -> str | None:
    """The Scaling policy ``action OBJECT`` names (:func:`.policies.scaling_policy`)."""
    return _checked(lambda: policies.scaling_policy(runtime, object_id, arguments))


T = t.TypeVar("T")


def _checked(call: t.Callable[[], T]) -> T:
    """``call()``, a policy's or a resize's refusal as the action's refusal."""
    try:
        return call()
    except (policies.PolicyRefused, scaling.ResizeRefused) as refused:
        raise actions.ActionRefused(UNKNOWN_OPERATION, refused.message) from None


def _workflow_outputs(stored: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Each workflow's outputs of its last run, as ``action`` shows them."""
    flows = stored.get("workflow_outputs") or {}
    return {f"workflow.{flow}.{key}": value for flow, found in flows.items()
            for key, value in (found or {}).items()}


def _node_of(runtime: Runtime, object_id: str) -> str:
    """The node template OBJECT (a template or an instance) belongs to; itself if none."""
    for name, group in runtime.instances.items():
        if name == object_id or any(i.id == object_id for i in group):
            return name
    return object_id


class _Silent:
    """The reporter of a Runtime that only answers questions (nothing runs)."""

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        """Nothing runs, so nothing is reported."""

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        """As :meth:`report`."""

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        """As :meth:`report`."""

    def untrack(self, object_id: str) -> None:
        """As :meth:`report`."""


def _stored_runtime(stored: StoredState, state_dir: Path) -> Runtime | None:
    """The deployed topology's instances as a Runtime that runs nothing, to ask
    which actions there are; None when there is none or it no longer loads (the
    run says why)."""
    tosca = (stored.model or {}).get("tosca") or {}
    if not tosca.get("instances"):
        return None
    source = _deployed_source(tosca, state_dir / "tosca" / stored.environment_id)
    if not source.exists():
        return None
    topology, problems = load_topology(source, tosca.get("inputs") or {},
                                       catalog=_kept_catalog(state_dir))
    if topology is None or problems:
        return None
    return Runtime(topology, Path.cwd(), state_dir, _Silent())


def _listed_actions(runtime: Runtime) -> list[Action]:
    """Each node template's operations that have something to run (their inputs
    as optional arguments: --arg overrides them and may add others), then the
    workflows (object ``workflow``) with their inputs."""
    found = []
    for name, node in runtime.topology.nodes.items():
        for reference in node.operation_names():
            operation = node.operation(reference)
            inputs = sorted(operation.inputs) if operation is not None else []
            found.append(Action(object=name, object_name=name, object_type=node.type,
                                name=reference,
                                arguments=tuple(ActionArgument(i) for i in inputs),
                                open=True))
    for flow, body in sorted(runtime.topology.workflows.items()):
        arguments = []
        definitions = body.get("inputs") if isinstance(body, dict) else None
        for key, definition in (definitions if isinstance(definitions, dict) else {}).items():
            spec = definition if isinstance(definition, dict) else {"default": definition}
            arguments.append(ActionArgument(
                str(key), "default" not in spec and spec.get("required", True) is not False,
                str(spec.get("type") or "string")))
        found.append(Action(object=WORKFLOW_OBJECT, object_name=WORKFLOW_OBJECT,
                            object_type="workflow", name=flow, arguments=tuple(arguments)))
    for name, body in runtime.topology.policies.items():
        if body.get("type") in (policies.SCALING, policies.AUTOSCALER):
            found.append(Action(object=name, object_name=name, object_type=str(body["type"]),
                                name=policies.RESIZE,
                                arguments=(ActionArgument("size", True, "integer"),)))
    return found


def _kept_catalog(state_dir: Path) -> CatalogImports:
    """The catalog packages a deployed topology imported, as the working directory's
    cache kept them (an action or undeploy has no store; ``state_dir`` is the
    cloud's folder under ``.laguna``)."""
    for folder in (state_dir, *state_dir.parents):
        if folder.name == STATE_DIR:
            return CatalogImports.of_workdir(folder)
    return CatalogImports.of_workdir(state_dir)


def _home(context: RunContext) -> Path:
    home = context.state_dir / "tosca" / context.stored.environment_id
    home.mkdir(parents=True, exist_ok=True)
    return home


def _workdir(context: RunContext) -> Path:
    """The working directory (operations run in it): the folder holding ``.laguna``."""
    state = context.state_dir
    for parent in state.parents:
        if parent.name == ".laguna":
            return parent.parent
    return Path.cwd()


def _environ() -> dict[str, str]:
    import os
    return dict(os.environ)


def _session_keeper(home: Path) -> t.Callable[[int], None]:
    """Records each process session an operation starts where undeploy finds it, even
    when the run is interrupted."""
    sessions_file = home / "sessions.json"
    sessions: list[int] = _read_sessions(sessions_file)

    def keep(session: int) -> None:
        sessions.append(session)
        sessions_file.write_text(json.dumps(sessions), encoding="utf-8")
    return keep


def _read_sessions(path: Path) -> list[int]:
    try:
        return [int(s) for s in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError):
        return []


def _json(value: t.Any) -> t.Any:
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value if not isinstance(value, str) else str(value)
    return str(value)


__all__ = ["LANGUAGE", "CsarError", "ToscaFrontend", "locate", "plan", "recognises",
           "validate"]
