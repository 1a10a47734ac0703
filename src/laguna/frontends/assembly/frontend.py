"""The assembly-descriptor front end: intents as deploy, action and undeploy.

``laguna deploy DESCRIPTOR`` is createAssembly (of an existing assembly, the
repair of what ``laguna check`` found drifted: :meth:`AssemblyFrontend.redeploy`);
``laguna intent NAME VERB`` runs as an action of the environment (method = the
verb) and ``intent NAME delete`` as its undeploy. The environment's model is the assembly's instance store
(see :func:`new_model`); the deployment layer keeps it and hands it back.

Typed options travel in :attr:`PrepareOptions.settings` under keys no
property can have (property names hold no ``.``): ``laguna.inputs`` (a JSON
object) and ``laguna.state`` (intendedState).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
import typing as t
from pathlib import Path

import yaml

from laguna.deploy.context import RunContext
from laguna.deploy.errors import SETTING_UNKNOWN, Rejected, error_lines, rejection
from laguna.deploy.inputs import InputsFileError, read_inputs_file
from laguna.deploy.frontend import Blueprint, Outcome, PrepareOptions, listed
from laguna.deploy.result import CONDITION, Component, ErrorInfo, destroyed_lines, shown
from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.catalog import Catalog, package_of
from laguna.frontends.assembly.descriptor import Descriptor, load_descriptor
from laguna.frontends.assembly.drivers import DRIVERS, Driver
from laguna.frontends.assembly.engine import ACTIVE, GOALS, RANK, Engine, Runtime
from laguna.frontends.assembly.names import instance_name_problem
from laguna.frontends.assembly.sources import (
    PackageCache,
    digest,
    kept_packages,
    layered_catalog,
)
from laguna.frontends.assembly.topology import Node, Topology
from laguna.frontends.assembly.watching import Held, Pass, condition, run_pass, settings_of
from laguna.frontends.marks import is_assembly

LANGUAGE = "assembly"
INPUTS_KEY = "laguna.inputs"
STATE_KEY = "laguna.state"
LIBS_KEY = "laguna.libs"


#: where a descriptor given as data is written (in the cache) and what its spans name
DATA_FILE = "Definitions/lm/assembly.yaml"
DATA_SOURCE = "<descriptor given as data>"
MODEL_INVALID = "model_invalid"


def _rejected(error: e.DescriptorError) -> Rejected:
    return rejection(error.problems)


def _placed(error: e.DescriptorError, label: str) -> e.DescriptorError:
    """``error`` with the places inside a descriptor given as data (lines of a text
    the caller never wrote) replaced by the descriptor's name."""
    return e.DescriptorError([
        e.problem(p.kind, f"{label}: {p.message}") if p.span is not None
        and p.span.source == DATA_SOURCE else p for p in error.problems])


def _cache(workdir: Path | None) -> PackageCache | None:
    return PackageCache.of_workdir(Path(workdir) / ".laguna") if workdir is not None else None


class AssemblyFrontend:
    """Assembly and resource descriptors (IBM CP4NA's), on laguna's deployment layer."""

    language = LANGUAGE

    def __init__(self, driver: Driver | None = None, *, confined: bool = False) -> None:
        self.driver = driver
        #: scripts run only on servers of the environment's cloud, never on this
        #: machine (the API's engine deploys assemblies so)
        self.confined = confined

    # -- the Frontend protocol -----------------------------------------------------------
    def recognises(self, path: Path) -> bool:
        return is_assembly(path)

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        name = options.name or path.stem
        try:
            catalog = layered_catalog(_cache(options.workdir), options.libs,
                                      store=options.catalog)
            descriptor, catalog = self.load(path, [], catalog)
            _check_settings(descriptor, options)
            return self._prepared(name, descriptor, catalog, options, str(path),
                                  _inputs(options.settings, options.inputs),
                                  options.settings.get(STATE_KEY, ACTIVE))
        except e.DescriptorError as error:
            raise _rejected(error) from None

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        """An assembly given as data (the API's): ``{"descriptor": NAME or a descriptor
        body, "inputs": {...}, "state": STATE}``; types come from the ``-l`` folders,
        then the catalog store. Problems in a body name it in place of file:line."""
        unknown = sorted(set(data) - {"descriptor", "inputs", "state"})
        if unknown:
            raise Rejected(MODEL_INVALID, f"an assembly given as data has no key "
                           f"{unknown[0]!r} (it takes descriptor, inputs and state)")
        inputs = data.get("inputs", {})
        if not isinstance(inputs, dict):
            raise Rejected(e.INVALID_PROPERTY_VALUE, "inputs must be a JSON object")
        state = data.get("state", ACTIVE)
        if options.workdir is None or options.name is None:
            raise Rejected(MODEL_INVALID, "an assembly given as data needs an environment "
                           "name and a working directory")
        cache = _cache(options.workdir)
        assert cache is not None
        wanted = data.get("descriptor")
        label = None
        try:
            catalog = layered_catalog(cache, options.libs, store=options.catalog)
            if isinstance(wanted, str):
                descriptor, catalog = self.load(catalog.path_of(wanted), [], catalog)
            elif isinstance(wanted, dict):
                text = yaml.safe_dump(wanted, sort_keys=False, allow_unicode=True)
                label = f"{wanted.get('name', 'the descriptor')} (given as data)"
                folder = cache.written(f"data-{digest(text.encode())}",
                                       {DATA_FILE: text.encode()})
                descriptor, catalog = self.load(folder / DATA_FILE, [], catalog, DATA_SOURCE)
            else:
                raise Rejected(MODEL_INVALID, "descriptor must be a descriptor name "
                               "(assembly::NAME::VERSION) or a descriptor body (an object)")
            return self._prepared(options.name, descriptor, catalog, options, "the API",
                                  inputs, state)
        except e.DescriptorError as error:
            raise _rejected(error if label is None else _placed(error, label)) from None

    def _prepared(self, name: str, descriptor: Descriptor, catalog: Catalog,
                  options: PrepareOptions, source: str, inputs: dict[str, t.Any],
                  state: t.Any) -> Blueprint:
        """Everything checked now, so that a refusal writes nothing."""
        why = instance_name_problem(name)
        if why is not None:
            raise Rejected(e.INVALID_ASSEMBLY_NAME, why)
        if state not in GOALS:
            raise Rejected(e.INVALID_INTENT, f"intended state {state!r} is not Installed, "
                           "Inactive or Active")
        model = new_model(name, descriptor, options.libs, inputs, state)
        if options.workdir is not None:
            # (assembly_exists is the run's to say: the environment exists then)
            snapshots = Path(options.workdir) / ".laguna" / "assemblies"
            runtime = Runtime(copy.deepcopy(model), lambda: _snapshots(snapshots, name))
            root = Topology(catalog, runtime).build(descriptor, name, inputs)
            try:
                settings_of(root.properties)
            except ValueError as bad:
                raise Rejected(e.INVALID_PROPERTY_VALUE, f"{descriptor.name}: {bad}") from None
        return Blueprint(language=LANGUAGE, source=source, model=model, name=name,
                         packages=kept_packages(catalog), payload=(descriptor, catalog))

    def summarize(self, blueprint: Blueprint) -> list[tuple[str, str]]:
        descriptor, _catalog = t.cast(tuple[Descriptor, Catalog], blueprint.payload)
        given = blueprint.model.get("inputs") or {}
        return [
            ("descriptor", descriptor.name),
            ("components", listed([f"{name} ({comp.type})"
                                   for name, comp in descriptor.composition.items()])),
            ("inputs", listed([f"{name}={given[name]}" if name in given else name
                               for name in descriptor.properties])),
            ("intended state", str(blueprint.model.get("intended_state"))),
        ]

    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        stored = context.stored.model
        descriptor, catalog = t.cast(tuple[Descriptor, Catalog], blueprint.payload)
        if stored is not None and stored.get("state") is not None:
            return self.redeploy(blueprint, context, stored, descriptor, catalog)
        model = copy.deepcopy(dict(blueprint.model))
        intent = _Intent(self, context, model, catalog)
        root = intent.build(descriptor, model["inputs"])
        return intent.execute(lambda engine: engine.converge(None, root, model["intended_state"]),
                              root)

    def redeploy(self, blueprint: Blueprint, context: RunContext,
                 stored: t.Mapping[str, t.Any], descriptor: Descriptor,
                 catalog: Catalog) -> Outcome:
        """``laguna deploy`` of an existing assembly: with the descriptor (name and
        version), inputs and intended state it holds, the instances the last ``laguna
        check`` found drifted (``context.repair``) are healed as the heal intent heals
        one, the others left alone; with none drifted nothing runs. Anything else is
        refused, as CP4NA's createAssembly of an existing name: the upgrade and
        change-state intents change a deployed assembly."""
        name = context.stored.name
        model = copy.deepcopy(dict(stored))
        wanted = blueprint.model
        same = (wanted["descriptor"], wanted["inputs"], wanted["intended_state"]) == (
            model["descriptor"], model["inputs"], model["intended_state"])
        drifted = set(context.repair) & set(model.get("instances") or {})
        if not same:
            raise Rejected(e.ASSEMBLY_EXISTS, f"assembly {name!r} exists with another "
                           "descriptor, inputs or intended state (the upgrade and "
                           "change-state intents change them; a deploy of the same ones "
                           "repairs what `laguna check` found drifted)")
        if not drifted and model["state"] != model["intended_state"]:
            # a deploy that ran nothing would call a Failed assembly deployed
            raise Rejected(e.ASSEMBLY_EXISTS, f"assembly {name!r} exists and is "
                           f"{model['state']}, not {model['intended_state']} (the "
                           "heal and change-state intents move it; a deploy repairs only "
                           "what `laguna check` found drifted)")
        intent = _Intent(self, context, model, catalog)
        root = intent.build(descriptor, model["inputs"])
        # in the tree's order; a nested assembly's heal reinstalls it whole, its
        # instances with it
        targets = [node for node in root.walk() if node.name in drifted
                   and not any(up.name in drifted for up in _ancestors(node))]

        def repair(engine: Engine) -> None:
            engine.pairs = _pairs(root)
            for node in targets:
                context.reporter.report("info", f"{node.name}: drifted (laguna check): "
                                        "healing", node.name)
                engine.heal(node)
            engine.refresh_all(root)
        # with nothing drifted no script runs; the state is the instances' as after a heal
        return intent.execute(repair, root, computed=True)

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        stored = context.stored.model
        if stored is None or stored.get("state") is None:
            raise Rejected(e.ASSEMBLY_NOT_FOUND, f"no assembly named {context.stored.name!r}")
        model = copy.deepcopy(dict(stored))
        given = [Path(p) for p in json.loads(arguments.get(LIBS_KEY, "[]"))]
        catalog, current = self.stored_catalog(context, model, given)
        if given:
            model["catalog"] = [str(p) for p in given]
        intent = _Intent(self, context, model, catalog)
        goal = str(model["intended_state"])
        if method == "upgrade":
            descriptor = current
            if arguments.get("descriptor"):
                try:
                    descriptor, _ = self.load(Path(arguments["descriptor"]), [], catalog)
                except e.DescriptorError as error:
                    raise _rejected(error) from None
                model["descriptor"] = descriptor.name
            old = intent.build(current, model["inputs"])
            inputs = {**model["inputs"], **_inputs(
                {k[len("input."):] if k.startswith("input.") else k: v
                 for k, v in arguments.items() if k.startswith("input.") or k == INPUTS_KEY})}
            model["inputs"] = inputs
            new = intent.build(descriptor, inputs)
            return intent.execute(lambda engine: engine.converge(old, new, goal), new)
        root = intent.build(current, model["inputs"])
        if method == "change-state":
            target = arguments.get("state", "")
            if target not in GOALS:
                raise Rejected(e.INVALID_INTENT, f"intended state {target!r} is not Installed, "
                               "Inactive or Active")
            model["intended_state"] = target

            def change(engine: Engine) -> None:
                engine.converge(None, root, target)
                engine.lower_tree(root, _rank(target))
            return intent.execute(change, root)
        if method in ("scale-out", "scale-in"):
            component = arguments.get("component", "")
            entry = current.composition.get(component)
            if entry is None or entry.cluster is None:
                raise Rejected(e.INVALID_INTENT, f"{component!r} is not a cluster component "
                               f"of {current.name}")
            key = f"{context.stored.name}__{component}"
            size = len(root.children.get(component, []))
            limits = intent.cluster_limits(root, component)
            low, high, step = limits
            wanted = size + step if method == "scale-out" else size - step
            if (high is not None and wanted > high) or wanted < low:
                raise Rejected(e.SCALE_LIMIT_EXCEEDED, f"{method} of {component!r} to {wanted} "
                               f"leaves [{low}, {high if high is not None else ''}]")
            model["clusters"][key] = wanted
            new = intent.build(current, model["inputs"])
            return intent.execute(lambda engine: engine.converge(root, new, goal), new)
        if method == "heal":
            wanted_name = arguments.get("instance", "")
            target_node = next((n for n in root.walk() if n.name == wanted_name), None)
            if target_node is None:
                raise Rejected(e.INVALID_INTENT, f"no component instance {wanted_name!r} in "
                               f"assembly {context.stored.name!r}")

            def heal(engine: Engine) -> None:
                engine.pairs = _pairs(root)
                engine.heal(target_node)
                engine.refresh_all(root)
            # a heal moves one instance: the others stay where earlier intents left them
            return intent.execute(heal, root, computed=True)
        raise Rejected(e.INVALID_INTENT, f"unknown intent {method!r}")

    def undeploy(self, context: RunContext) -> Outcome:
        stored = context.stored.model
        if stored is None:
            return Outcome(ok=True, model=None, components={})
        model = copy.deepcopy(dict(stored))
        catalog, current = self.stored_catalog(context, model, [])
        intent = _Intent(self, context, model, catalog)
        root = intent.build(current, model["inputs"])

        def delete(engine: Engine) -> None:
            engine.pairs = _pairs(root)
            engine.lower_tree(root, -1)
        outcome = intent.execute(delete, root, deleting=True)
        if outcome.ok:
            intent.forget()
        return outcome

    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        """One watch pass (:mod:`.watching`): the due Integrity checks of Active
        instances, a failed one's instance Broken and, when the assembly asks
        (``autoHeal``), healed. Reports are kept only when the pass changed
        something; the assembly's state is left as the last intent set it."""
        stored = context.stored.model
        if stored is None or stored.get("state") is None or not stored.get("instances"):
            return Outcome(ok=True, quiet=True)
        model = copy.deepcopy(dict(stored))
        held = Held(context.reporter)
        catalog, current = self.stored_catalog(context, model, [])
        intent = _Intent(self, dataclasses.replace(context, reporter=held), model, catalog)
        root = intent.build(current, model["inputs"])
        memory: dict[str, str] = dict((model.get("watch") or {}).get("due") or {})
        try:
            settings = settings_of(root.properties)
        except ValueError as bad:
            # the descriptor was checked at deploy; a catalog's newer copy may differ
            held.report("error", f"{current.name}: {bad}")
            held.release()
            return Outcome(ok=False, error=ErrorInfo(e.INVALID_PROPERTY_VALUE, str(bad)))
        this = Pass(now, settings, period)
        state = model["state"]

        def work(engine: Engine) -> None:
            engine.pairs = _pairs(root)
            run_pass(engine, root, memory, this)
            engine.refresh_all(root)
        outcome = intent.execute(work, root, computed=True)
        # a pass moves instances, not the assembly: its state stays the last intent's
        model["state"] = state
        model["watch"] = {"due": memory}
        if this.changed or not outcome.ok:
            held.release()
        intent.snapshot()
        # a script that failed outside a check (a Cease while an instance broke, a
        # reinstall) fails the pass: recorded as such, the environment's state kept
        return dataclasses.replace(
            outcome, model=model, components=components(model), packages=None,
            watch_due=min(this.dues) if this.dues else None,
            quiet=not this.changed and outcome.ok)

    # -- helpers ---------------------------------------------------------------------------
    def load(self, path: Path, libs: list[str], catalog: Catalog | None = None,
             source: str | None = None) -> tuple[Descriptor, Catalog]:
        """The descriptor file at ``path``, above every other of ``catalog``."""
        if catalog is None:
            catalog = Catalog(Path(p) for p in libs)
        if not path.is_file():
            raise e.fail(e.DESCRIPTOR_NOT_FOUND, f"{path}: no such descriptor file")
        descriptor, problems = load_descriptor(path.resolve(), source=source)
        if descriptor is None or any(p.kind == e.INVALID_DESCRIPTOR_NAME for p in problems):
            raise e.DescriptorError(problems)
        # the rest are reported with the topology's problems, all at once
        descriptor.problems = problems
        descriptor.package = package_of(descriptor.path)
        catalog.add(descriptor)
        return descriptor, catalog

    def stored_catalog(self, context: RunContext, model: t.Mapping[str, t.Any],
                       given: list[Path]) -> tuple[Catalog, Descriptor]:
        """The catalog of an intent on a stored assembly (sources.py's layers) and the
        assembly's descriptor as the environment knows it."""
        try:
            catalog = layered_catalog(
                PackageCache.of_workdir(context.state_dir.parent), given,
                context.stored.packages, [Path(p) for p in model.get("catalog", [])],
                context.catalog)
            name = str(model["descriptor"])
            if name not in catalog.names() and model.get("descriptor_path"):
                # an environment deployed before environments kept their descriptors
                return catalog, self.load(Path(model["descriptor_path"]), [], catalog)[0]
            return catalog, catalog.get(name)
        except e.DescriptorError as error:
            raise _rejected(error) from None

    def driver_for(self, context: RunContext) -> Driver:
        """The given driver, else the shell driver, placing instances whose
        deploymentLocation is local-cloud on servers of the run's cloud; a dry run
        records the scripts it would run and runs none."""
        if self.driver is not None:
            return self.driver
        if context.dry_run:
            from laguna.frontends.assembly.drivers import RecordingDriver
            return RecordingDriver()
        from laguna.frontends.assembly.drivers import ShellDriver
        from laguna.frontends.assembly.hosts import PlacingDriver
        from laguna.hosts.resources import Resources
        shell = DRIVERS["shell"]()
        assert isinstance(shell, ShellDriver)

        def resources() -> Resources:
            return context.resources
        return PlacingDriver(shell, resources, context.stored.name, context.timeouts.agent,
                             confined=self.confined)


def _rank(state: str) -> int:
    from laguna.frontends.assembly.engine import RANK
    return RANK[state]


def _pairs(root: Node) -> list[t.Any]:
    from laguna.frontends.assembly.engine import all_pairs
    return all_pairs(root)


def _ancestors(node: Node) -> t.Iterator[Node]:
    while node.parent is not None:
        node = node.parent
        yield node


def _snapshots(folder: Path, name: str) -> list[dict[str, t.Any]]:
    """The other assemblies of the workdir, as their last intent left them."""
    found = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("name") != name and data.get("state") is not None:
                found.append(data)
    return found


def _check_settings(descriptor: Descriptor, options: PrepareOptions) -> None:
    """``--set`` values are for the descriptor's properties (keys with a dot are
    laguna's own options): one it does not declare is refused, naming them. An
    undeclared ``--input`` is ignored, as the specification has it."""
    keys = options.settings if options.set_keys is None else options.set_keys
    for key in keys:
        if "." not in key and key not in descriptor.properties:
            raise Rejected(SETTING_UNKNOWN, f"--set {key}: {descriptor.name} has no "
                           f"property {key!r}; its properties: "
                           f"{', '.join(sorted(descriptor.properties)) or 'none'}")


def _inputs(settings: t.Mapping[str, str], file: Path | None = None) -> dict[str, t.Any]:
    """``--input`` pairs over the typed values of ``--inputs FILE`` (or, for an
    intent, of the ``laguna.inputs`` argument)."""
    values: dict[str, t.Any] = {k: v for k, v in settings.items() if "." not in k}
    typed = settings.get(INPUTS_KEY)
    if file is not None:
        try:
            return {**read_inputs_file(file), **values}
        except InputsFileError as error:
            raise Rejected(e.INVALID_PROPERTY_VALUE, str(error)) from None
    if typed:
        try:
            data = json.loads(typed)
        except ValueError as error:
            raise Rejected(e.INVALID_PROPERTY_VALUE,
                           f"--inputs must hold a JSON object: {error}") from None
        if not isinstance(data, dict):
            raise Rejected(e.INVALID_PROPERTY_VALUE, "--inputs must hold a JSON object")
        values = {**data, **values}
    return values


def new_model(name: str, descriptor: Descriptor, libs: t.Iterable[Path],
              inputs: t.Mapping[str, t.Any], state: str) -> dict[str, t.Any]:
    """The instance store of an assembly before anything ran (``catalog``: the
    deploy's ``-l`` folders; the descriptors used are kept as the environment's
    packages)."""
    return {"name": name, "descriptor": descriptor.name,
            "catalog": [str(Path(r).resolve()) for r in libs],
            "inputs": dict(inputs), "intended_state": state, "state": None,
            "properties": {}, "instances": {}, "relationships": [], "clusters": {}}


class _Intent:
    """One intent's wiring: topology, runtime, engine; and its outcome."""

    def __init__(self, frontend: AssemblyFrontend, context: RunContext,
                 model: dict[str, t.Any], catalog: Catalog) -> None:
        self.context = context
        self.model = model
        self.catalog = catalog
        self.name = context.stored.name
        self.workdir = context.state_dir.parent.parent
        self.snapshots = context.state_dir.parent / "assemblies"
        self.runtime = Runtime(model, self.others)
        self.driver = frontend.driver_for(context)

    def others(self) -> list[dict[str, t.Any]]:
        return _snapshots(self.snapshots, self.name)

    def build(self, descriptor: Descriptor, inputs: t.Mapping[str, t.Any]) -> Node:
        topology = Topology(self.catalog, self.runtime)
        try:
            return topology.build(descriptor, self.name, inputs)
        except e.DescriptorError as error:
            raise _rejected(error) from None

    def cluster_limits(self, root: Node, component: str) -> tuple[int, int | None, int]:
        from laguna.frontends.assembly.values import resolve
        entry = root.descriptor.composition[component]
        assert entry.cluster is not None
        topology = Topology(self.catalog, self.runtime)
        lookup = topology.lookup(root, None, None)
        c = entry.cluster
        high = resolve(c.maximum_nodes, lookup)
        return (int(resolve(c.minimum_nodes, lookup)),
                int(high) if high is not None else None,
                int(resolve(c.scaling_increment, lookup)))

    def execute(self, work: t.Callable[[Engine], None], root: Node,
                deleting: bool = False, computed: bool = False) -> Outcome:
        """Run ``work``; the assembly's state is then the intended one, or with
        ``computed`` the one its instances hold (:func:`held_state`)."""
        topology = Topology(self.catalog, self.runtime)
        engine = Engine(topology, self.runtime, self.driver, self.workdir,
                        self.context.reporter, self.name)
        self.engine = engine
        error = None
        try:
            work(engine)
            if deleting:
                self.model["state"] = None
                self.model["instances"] = {}
            elif computed:
                self.model["state"] = held_state(self.model)
            else:
                self.model["state"] = self.model["intended_state"]
        except e.TransitionFailed as failed:
            self.context.reporter.report("error", failed.message)
            details = {"output": failed.output} if failed.output else {}
            error = ErrorInfo(e.TRANSITION_FAILED, failed.message, details)
            self.model["state"] = "Failed"
        except e.DescriptorError as problem:
            # found only while running (a value a script reported does not convert)
            error = ErrorInfo(problem.kind, problem.message)
            self.model["state"] = "Failed"
        self.model["properties"] = dict(root.properties)
        self.model["outputs"] = {
            k: root.properties.get(k) for k, p in root.descriptor.properties.items()
            if p.read_only}
        if not deleting or error is not None:
            self.snapshot()
        plan = getattr(self.driver, "plan", None) if self.context.dry_run else None
        return Outcome(ok=error is None, model=self.model, outputs=self.model["outputs"],
                       components=components(self.model), error=error, plan=plan,
                       packages=None if deleting else kept_packages(self.catalog))

    def snapshot(self) -> None:
        self.snapshots.mkdir(parents=True, exist_ok=True)
        data = {"name": self.name, "descriptor": self.model["descriptor"],
                "properties": self.model["properties"], "state": self.model["state"]}
        (self.snapshots / f"{self.name}.json").write_text(json.dumps(data), encoding="utf-8")

    def forget(self) -> None:
        (self.snapshots / f"{self.name}.json").unlink(missing_ok=True)


def held_state(model: t.Mapping[str, t.Any]) -> str:
    """The assembly's state from its instances: the lowest of Installed, Inactive and
    Active they hold, ``Failed`` when one is off that ladder (Failed, Broken,
    Created); the intended state when it has none."""
    states = [str(r["state"]) for r in model.get("instances", {}).values()]
    if not states:
        return str(model["intended_state"])
    if any(s not in GOALS for s in states):
        return "Failed"
    return min(states, key=RANK.__getitem__)


def components(model: t.Mapping[str, t.Any]) -> dict[str, Component]:
    result = {}
    for name, record in model.get("instances", {}).items():
        found = condition(record)
        result[name] = Component(type=str(record["type"]), name=str(record["component"]),
                                 state=str(record["state"]),
                                 details={CONDITION: found} if found is not None else {})
    return result


def assembly_json(result: t.Any) -> dict[str, t.Any]:
    """The spec page's output object for a :class:`~laguna.deploy.result.Result`."""
    model = result.model if isinstance(result.model, dict) else {}
    error = result.error.to_json() if result.error is not None else None
    if error is not None and error["kind"] in ("environment_not_found", "not_deployed"):
        error["kind"] = e.ASSEMBLY_NOT_FOUND
    instances = model.get("instances", {}) if model.get("state") is not None or \
        result.status != "ok" else {}
    comps = {}
    for name, record in instances.items():
        private = set(record.get("private", []))
        comps[name] = {"state": record["state"], "type": record["type"],
                       "properties": {k: v for k, v in record["properties"].items()
                                      if k not in private}}
        found = condition(record)
        if found is not None:
            # what watching found: the failed Integrity check's time and output
            comps[name][CONDITION] = found
    data: dict[str, t.Any] = {
        "name": result.name, "descriptor": model.get("descriptor"), "language": LANGUAGE,
        "status": result.status, "state": model.get("state"),
        "properties": model.get("properties", {}) if model.get("state") is not None else {},
        "outputs": dict(result.outputs) if model.get("state") is not None else {},
        "components": comps,
        "reports": [r.to_json() for r in result.reports]}
    if error is not None:
        data["error"] = error
    if result.plan is not None:
        data["plan"] = [dict(step) for step in result.plan]
    return data


class AssemblyView:
    """An assembly after an intent, for the terminal: its state, instances, outputs."""

    def __init__(self, result: t.Any) -> None:
        self.data = assembly_json(result)
        #: after a delete: the instances it destroyed
        self.destroyed = getattr(result, "destroyed", None)

    def __rich_console__(self, console: t.Any, options: t.Any) -> t.Iterator[t.Any]:
        from rich.table import Table
        from rich.text import Text
        data = self.data
        descriptor = f" ({data['descriptor']})" if data["descriptor"] else ""
        head = f"assembly {data['name']}{descriptor}: {data['state'] or 'deleted'}"
        yield Text(head if data["status"] == "ok" else f"{head} ({data['status']})")
        if data["components"]:
            table = Table("INSTANCE", "TYPE", "STATE", box=None, pad_edge=False,
                          padding=(0, 1, 0, 0))
            for name, component in data["components"].items():
                table.add_row(name, component["type"], component["state"])
            yield table
            for name, component in data["components"].items():
                found = component.get(CONDITION)
                if found is not None:    # what watching found (docs/DESCRIPTORS.md)
                    yield Text(f"{name}: {found['time']} {found['text']}: "
                               f"{found['output'] or 'no output'}")
        for key, value in data["outputs"].items():
            yield Text(f"output {key}: {shown(value)}")
        if self.destroyed is not None:
            yield from destroyed_lines(self.destroyed)
        error = data.get("error")
        if error is not None:
            for line in error_lines(ErrorInfo.from_json(error), Rejected.code
                                    if data["status"] == "rejected" else None):
                yield Text(line)
            if error.get("output"):
                yield Text(str(error["output"]))
