"""The MuranoPL front end: object models and packages deployed through laguna.deploy.

One run (deploy, action or undeploy) is one executor, as one task of the
original engine was: the model is loaded with the stored objects as
``ObjectsCopy`` (objects gone from the model are destroyed by the garbage
collector), the environment's applications are deployed (or the action
runs), and the model is serialised back with its Out values and attributes.
The core library's natives reach the cloud and the agents through
:class:`~laguna.frontends.muranopl.services.CloudServices`.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import dataclasses
import typing as t
import uuid
from pathlib import Path

from laguna.corelib.services import NoServices, attach
from laguna.deploy.context import RunContext, StoredState
from laguna.deploy.errors import CLASS_NOT_FOUND, MODEL_INVALID, Rejected
from laguna.deploy.frontend import Blueprint, Outcome, PrepareOptions, listed
from laguna.deploy.result import Action, Component
from laguna.errors import LagunaError
from laguna.frontends.muranopl import model as models
from laguna.frontends.muranopl import redeploy
from laguna.frontends.muranopl.actions import object_name, stored_actions
from laguna.frontends.muranopl.errors import error_info, kind_and_message, problems_of
from laguna.frontends.muranopl.packages import registry_for, used_packages
from laguna.frontends.muranopl.services import CloudServices
from laguna.hosts.drift import working_on
from laguna.lang.actions import invoke_action
from laguna.lang.classes import ClassRegistry
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.functions.murano import PSELECT_THREADS
from laguna.lang.objects import MuranoObject
from laguna.lang.serializer import serialize_result
from laguna.lang.types import PropertyUsage, TypeRef
from laguna.packages.package import load_package
from laguna.packages.source import PackageSource

if t.TYPE_CHECKING:
    from laguna.cloud.base import Host

LANGUAGE = "muranopl"
APPLICATION_CLASS = "io.murano.Application"


class TrialLoad:
    """The objects ``prepare`` loaded to check a model, as the environment it
    named would get them: the first deploy of that environment runs them
    rather than load the same model again (about a twelfth of its work)."""

    def __init__(self, executor: Executor, root: MuranoObject, environment_id: str,
                 name: str) -> None:
        self.executor = executor
        self.root: MuranoObject | None = root
        self.environment_id = environment_id
        self.name = name

    def take(self, stored: StoredState) -> MuranoObject | None:
        """The loaded root, once, if ``stored`` is the environment the model was
        loaded for and it holds nothing yet (this deploy created it); else None
        and the run loads the model itself (against the stored one)."""
        root, self.root = self.root, None
        if root is None or stored.model is not None or stored.environment_id != \
                self.environment_id or stored.name != self.name:
            return None
        return root


@dataclasses.dataclass(frozen=True)
class Prepared:
    """The front end's payload of a blueprint: where its packages are."""

    libs: tuple[Path, ...]
    wrapped: bool
    catalog: PackageSource | None = None
    trial: TrialLoad | None = None


class MuranoPlFrontend:
    """laguna's built-in MuranoPL front end."""

    language = LANGUAGE
    #: its actions are its stored classes' (frontends.muranopl.actions): the service
    #: keeps the list in the store for ``laguna status`` (deploy.frontend.StoreActionLister)
    actions_from_store = True

    # -- blueprint ----------------------------------------------------------------------
    def recognises(self, path: Path) -> bool:
        return models.recognises(path)

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        libs = tuple(options.libs)
        for lib in libs:
            if not lib.exists():
                raise Rejected(MODEL_INVALID, f"-l {lib}: no such file or folder")
        if models.is_package(path):
            model, package_name, libs = self._package_model(path, libs)
            name: t.Any = package_name
            wrapped = True
        else:
            model, wrapped = models.read_model(path)
            root = model["Objects"]
            name = None if wrapped else root.get("name")
        name = name if isinstance(name, str) and name else None
        registry = registry_for(libs)
        model = models.apply_settings(model, options.settings, str(path),
                                      lambda app: _settable(registry, app))
        # the environment's name and id as the service will give them to a new one
        environment_id = uuid.uuid4().hex     # as the store makes ids
        trial = self._trial_load(registry, model, environment_id,
                                 options.name or name or path.stem, options.complete)
        return Blueprint(language=LANGUAGE, source=str(path), model=model,
                         packages=used_packages(registry), name=name,
                         payload=Prepared(libs, wrapped, trial=trial),
                         environment_id=environment_id)

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        """An object model the API received (``{"Objects": ..., "Attributes": ...}``),
        its packages from ``-l`` entries, then the catalog."""
        if not models.looks_like_model(data):
            raise Rejected(MODEL_INVALID, "the data is not an object model")
        model = dict(data)
        registry = registry_for(options.libs, catalog=options.catalog)
        environment_id = uuid.uuid4().hex     # as the store makes ids
        trial = self._trial_load(registry, model, environment_id, options.name or "",
                                 options.complete)
        return Blueprint(language=LANGUAGE, source="the API", model=model,
                         packages=used_packages(registry), name=options.name,
                         payload=Prepared(tuple(options.libs), False, options.catalog,
                                          trial),
                         environment_id=environment_id)

    def _package_model(self, path: Path, libs: tuple[Path, ...]
                       ) -> tuple[dict[str, t.Any], str, tuple[Path, ...]]:
        try:
            package = load_package(path)
        except LagunaError as error:
            found = problems_of(error, str(path))
            raise Rejected(MODEL_INVALID, f"{path}: {error}",
                           {"problems": [p.to_json() for p in found]} if found else None
                           ) from None
        class_name = package.name
        if class_name not in package.class_names():
            raise Rejected(MODEL_INVALID, f"{path}: the package has no class {class_name} "
                           "(an application package's FullName names its application class)")
        application = models.application_object(class_name, {})
        return {"Objects": models.wrap([application])}, path.stem, (path, *libs)

    @staticmethod
    def _trial_load(registry: ClassRegistry, model: t.Mapping[str, t.Any],
                    environment_id: str, name: str, complete: bool = False) -> TrialLoad | None:
        """Load the model without a cloud: a contract the values break or a model
        that does not load is refused before anything runs. A class that is
        missing may be in the environment's stored packages (a redeploy needs
        no ``-l``): the run's own load decides, still before anything runs;
        unless the blueprint must be ``complete`` (``laguna validate``).

        The model is loaded as a new environment ``name`` with id
        ``environment_id`` would load it; the objects are kept for that run."""
        executor = Executor(registry)
        attach(executor, NoServices())
        try:
            root = executor.load_model(
                models.settle_wrapped(dict(model), environment_id, name))
        except Exception as error:  # noqa: BLE001 - an engine error that escaped its conversion
            kind, message, details = kind_and_message(error)
            if kind == CLASS_NOT_FOUND and not complete:
                return None
            raise Rejected(kind, message, details) from None
        finally:
            executor.lifecycle.roots.clear()
        if root is None:
            raise Rejected(MODEL_INVALID, "the model has no objects")
        return TrialLoad(executor, root, environment_id, name)

    # -- operations ---------------------------------------------------------------------
    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        prepared = blueprint.payload if isinstance(blueprint.payload, Prepared) \
            else Prepared((), False)
        stored = context.stored
        trial = prepared.trial
        root = trial.take(stored) if trial is not None else None
        if trial is not None and root is not None:
            run = Run(self, context, trial.executor.classes, trial.executor)
            return run.deploy_loaded(run.adopt(root))
        model = models.settle_wrapped(dict(blueprint.model), stored.environment_id, stored.name)
        registry = registry_for(prepared.libs, stored.packages, prepared.catalog)
        outcome = Run(self, context, registry).deploy(
            redeploy.deployment_model(model, stored.model, context.repair))
        if context.dry_run:
            outcome = dataclasses.replace(outcome,
                                          changed=redeploy.changed_ids(model, stored.model))
        return outcome

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        stored = context.stored
        registry = registry_for((), stored.packages)
        data = redeploy.deployment_model(stored.model or {}, stored.model)
        values = {key: models.parse_value(value) for key, value in arguments.items()}
        return Run(self, context, registry).action(data, object_id, method, values)

    def undeploy(self, context: RunContext) -> Outcome:
        stored = context.stored
        registry = registry_for((), stored.packages)
        return Run(self, context, registry).undeploy(redeploy.removal_model(stored.model))

    def actions(self, stored: StoredState, state_dir: Path) -> list[Action] | None:
        return stored_actions(stored)

    def summarize(self, blueprint: Blueprint) -> list[tuple[str, str]]:
        root = blueprint.model.get("Objects")
        objects = redeploy.index_objects(root)
        applications = root.get("applications") or [] if isinstance(root, dict) and \
            root["?"].get("type") == models.ENVIRONMENT_CLASS else [root]
        prepared = blueprint.payload if isinstance(blueprint.payload, Prepared) else None
        executor = prepared.trial.executor if prepared and prepared.trial else None

        def name(app: dict[str, t.Any]) -> str:
            # as loaded (a name the class defaults) when prepare could load the model
            loaded = executor.objects.get(str(app["?"]["id"])) if executor else None
            return _name_of(loaded) if loaded is not None else \
                object_name(app, str(app["?"]["type"]))
        apps = [app for app in applications if isinstance(app, dict)]
        inputs = []
        for app in apps:
            known = _settable(executor.classes, app) if executor is not None else None
            inputs.append(f"{name(app)}: "
                          f"{', '.join(sorted(known)) if known is not None else '?'}")
        return [
            ("objects", str(len(objects))),
            ("applications", listed([f"{name(app)} ({app['?']['type']})" for app in apps])),
            ("inputs (--set)", "; ".join(inputs) or "-"),
            ("packages", listed([f"{p.name} {p.version}" for p in blueprint.packages])),
        ]


class Run:
    """One operation on one environment: one executor, one set of services."""

    def __init__(self, frontend: MuranoPlFrontend, context: RunContext,
                 registry: ClassRegistry, executor: Executor | None = None) -> None:
        self.context = context
        self.registry = registry
        self.plan: list[dict[str, t.Any]] | None = [] if context.dry_run else None
        self.services = CloudServices(
            context.cloud, context.agents or _no_agents, context.reporter, context.stored.environment_id,
            context.stored.name, agent_timeout=context.timeouts.agent, plan=self.plan,
            components=context.stored.components, name_of=self._name_of_id)
        self.executor = executor if executor is not None else Executor(registry)
        attach(self.executor, self.services)
        #: the application (or action target) running when a failure comes
        self.failing: str | None = None
        #: application id -> its state in this run (deploying, deployed, failed)
        self.states: dict[str, str] = {}

    def _name_of_id(self, object_id: str) -> str | None:
        obj = self.executor.objects.get(object_id)
        return _name_of(obj) if obj is not None else None

    # -- the three operations -----------------------------------------------------------
    def deploy(self, data: dict[str, t.Any]) -> Outcome:
        return self.deploy_loaded(self._load(data))

    def deploy_loaded(self, root: MuranoObject | None) -> Outcome:
        return self._finish(root, lambda: self._deploy_applications(root))

    def action(self, data: dict[str, t.Any], object_id: str, method: str,
               arguments: t.Mapping[str, t.Any]) -> Outcome:
        root = self._load(data)
        target = self.executor.objects.get(object_id)
        if target is None:
            raise Rejected(MODEL_INVALID, f"the environment has no object {object_id}")

        returned: list[t.Any] = []

        def run() -> None:
            # the report's object names the target (progress lines show its name)
            self.context.reporter.report("info", f"running action {method}", object_id)
            with working_on(target.real_this.id):
                value = invoke_action(self.executor, target, method, arguments)
            returned.append(serialize_result(value, self.executor))
        outcome = self._finish(root, run, failing=object_id)
        return dataclasses.replace(outcome, result=returned[0] if returned else None)

    def undeploy(self, data: dict[str, t.Any]) -> Outcome:
        stored = self.context.stored
        identities = {stored.environment_id}
        if stored.model and isinstance(stored.model.get("Objects"), dict):
            identities.add(str(stored.model["Objects"]["?"]["id"]))
        try:
            self._load(data)
        except Rejected:
            pass    # the packages cannot load the stored objects: the stacks still go
        self.executor.collect_garbage()
        self.executor.finalize(None)
        error = None
        try:
            cloud = self.context.cloud
            for stack in list(cloud.stacks()) if cloud is not None else []:
                if any(stack == f"murano-{i}" or stack.startswith(f"murano-{i}-")
                       for i in identities):
                    self.services.delete_stack(stack)
        except (MuranoPlError, LagunaError) as failure:
            error = error_info(failure)
        finally:
            self.services.close()
        if error is None:
            self.context.reporter.report("info", "the environment is undeployed")
        return Outcome(ok=error is None, model=None, outputs={}, components={},
                       error=error, plan=self.plan)

    # -- steps ----------------------------------------------------------------------------
    def _load(self, data: dict[str, t.Any]) -> MuranoObject | None:
        try:
            root = self.executor.load_model(data)
        except Exception as error:  # noqa: BLE001 - an engine error that escaped its conversion
            kind, message, details = kind_and_message(error)
            self.services.close()
            raise Rejected(kind, message, details) from None
        if root is not None:
            for object_id in redeploy.removed_ids(data):
                self.context.reporter.report(
                    "info", f"removing {object_id}: it is no longer in the model", object_id)
        return self.adopt(root)

    def adopt(self, root: MuranoObject | None) -> MuranoObject | None:
        """Make ``root`` (loaded by this run's executor) the run's model."""
        if root is not None:
            self.executor.lifecycle.roots.append(root)
        # objects of the stored model that the new one lacks are destroyed now
        self.executor.collect_garbage()
        return root

    def _applications(self, root: MuranoObject | None) -> list[MuranoObject]:
        if root is None:
            return []
        apps = root.real_this.values.get("applications") or ()
        return [app.real_this for app in apps if isinstance(app, MuranoObject)]

    def _deploy_applications(self, root: MuranoObject | None) -> None:
        if root is None:
            return
        method = root.real_this.type.find_method("deploy")
        if method.declaring_type.name != models.ENVIRONMENT_CLASS:
            self.executor.call(root, "deploy")
            return
        applications = self._applications(root)
        if self.plan is not None or len(applications) < 2:
            # a dry run deploys them one by one: its plan keeps one order
            for app in applications:
                self.failing = app.id
                self._deploy_application(app)
            self.failing = None
            return
        # One deadline for all, as long as the time limit of each application
        # deployed one by one in rounds of PSELECT_THREADS would allow.
        rounds = -(-len(applications) // PSELECT_THREADS)
        self.executor.run(lambda: self._deploy_in_parallel(applications),
                          seconds=self.executor.limits.execution_seconds * rounds)

    def _deploy_application(self, app: MuranoObject) -> None:
        """Deploy one application, its state reported before and after."""
        kind, name = app.type.name, _name_of(app)
        reporter = self.context.reporter
        self.states[app.id] = "deploying"
        reporter.component(app.id, kind, name, "deploying")
        with working_on(app.id):    # its plans' processes and files are its own
            self.executor.run(lambda: self.executor.invoke(
                app.type.find_method("deploy"), app, (), {}, None))
        self.states[app.id] = "deployed"
        reporter.component(app.id, kind, name, "deployed")

    def _deploy_in_parallel(self, applications: list[MuranoObject]) -> None:
        """Deploy the applications at once, as the core Environment's
        ``$.applications.pselect($.deploy())`` does (at most PSELECT_THREADS at
        a time): the servers of several start in one push, and each one's
        scripts run while the engine works on the others. Every application
        runs to its end; the first failure in the model's order is the run's,
        the others are reported as errors of their applications."""
        failures: dict[str, BaseException] = {}

        def deploy(app: MuranoObject) -> None:
            try:
                self._deploy_application(app)
            except (MuranoPlError, LagunaError) as failure:
                self.states[app.id] = "failed"
                failures[app.id] = failure

        workers = min(PSELECT_THREADS, len(applications))
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        with self.executor.method_locks.threads():
            # each thread under the run's limits (a copy of this context each)
            futures = [pool.submit(contextvars.copy_context().run, deploy, app)
                       for app in applications]
            try:
                concurrent.futures.wait(futures)
            except BaseException:
                # Ctrl-C: the applications not begun never begin, and those
                # under way stop at their next step rather than deploy on
                for future in futures:
                    future.cancel()
                self.executor.expire()
                raise
            finally:
                pool.shutdown(wait=True)
        for future in futures:
            future.result()     # anything but a deployment's failure is a bug: raised
        failed = [app for app in applications if app.id in failures]
        for app in failed[1:]:
            error = error_info(failures[app.id], agent_hosts=self.services.agent_hosts,
                               failing_object=app.id)
            self.context.reporter.component(app.id, app.type.name, _name_of(app), "failed")
            self.context.reporter.report("error", error.message, app.id)
        if failed:
            self.failing = failed[0].id
            raise failures[failed[0].id]

    def _finish(self, root: MuranoObject | None, work: t.Callable[[], None],
                failing: str | None = None) -> Outcome:
        self.failing = failing
        error = None
        try:
            work()
        except (MuranoPlError, LagunaError) as failure:
            error = error_info(failure, agent_hosts=self.services.agent_hosts,
                               failing_object=self.failing)
            if self.failing is not None:
                app = self.executor.objects.get(self.failing)
                if app is not None:
                    self.states[app.real_this.id] = "failed"
                    self.context.reporter.component(app.id, app.real_this.type.name,
                                                    _name_of(app.real_this), "failed")
            self.context.reporter.report("error", error.message, self.failing)
        outputs = self._outputs(root)
        components = self._components(root, error is None)
        try:
            model = self.executor.finalize(root)
        finally:
            self.services.close()
        if model is not None:
            model = {"Objects": model.get("Objects"), "Attributes": model.get("Attributes") or []}
        if error is None:
            self.context.reporter.report("info", "the deployment finished")
        return Outcome(ok=error is None, model=model, outputs=outputs,
                       components=components, error=error, plan=self.plan,
                       packages=used_packages(self.registry))

    def _outputs(self, root: MuranoObject | None) -> dict[str, t.Any]:
        """Out properties of the applications, as ``<application name>.<property>``."""
        outputs: dict[str, t.Any] = {}
        for app in self._applications(root):
            for cls in app.type.mro:
                for name, spec in cls.properties.items():
                    if spec.usage is PropertyUsage.Out:
                        value = app.values.get(name)
                        if value is not None:
                            outputs.setdefault(f"{_name_of(app)}.{name}", _plain(value))
        return outputs

    def _components(self, root: MuranoObject | None, ok: bool) -> dict[str, Component]:
        components = {}
        for key, value in self.services.components.items():
            obj = self.executor.objects.get(key)
            if obj is not None:
                components[key] = Component(value.type, _name_of(obj), value.state)
        stored = self.context.stored.components
        for app in self._applications(root):
            state = self.states.get(app.id)
            if state is None or state == "deploying":
                # not reached (a failure ended a one-by-one run first; or the
                # environment's own deploy ran): as it was, else as the run ended
                previous = stored.get(app.id)
                state = "deployed" if ok else previous.state if previous else "pending"
            components[app.id] = Component(app.type.name, _name_of(app), state)
        return components


#: the properties whose values an object model gives (the others the object sets itself)
MODEL_USAGES = frozenset({PropertyUsage.In, PropertyUsage.InOut, PropertyUsage.Const})


def _settable(registry: ClassRegistry, app: t.Mapping[str, t.Any]) -> set[str] | None:
    """The properties ``--set`` may give the application ``app`` (a model's
    object); None when its class is not found (yet: the run looks in the
    environment's stored packages too, and says so if it is missing there)."""
    try:
        cls = registry.find_for_model(str(app["?"]["type"]), app["?"])
    except LagunaError:
        return None
    return {name for c in cls.mro for name, prop in c.properties.items()
            if prop.usage in MODEL_USAGES}


def _name_of(obj: MuranoObject) -> str:
    """Its ``name`` property, else the name its model header gives (``?: {name: ...}``,
    as Murano's dashboard wrote it for applications without one), else its class's."""
    for name in (obj.real_this.values.get("name"), obj.real_this.name):
        if isinstance(name, str) and name:
            return name
    return obj.type.name.rsplit(".", 1)[-1]


def _plain(value: t.Any) -> t.Any:
    """An output as JSON data: an object (also inside a list or a map) is its id,
    as the model refers to it; a type is its name; anything else not JSON is text."""
    if isinstance(value, MuranoObject):
        return value.real_this.id
    if isinstance(value, (tuple, list, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, t.Mapping):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, TypeRef):
        return value.type.name
    return str(value)


def _no_agents(host: Host) -> t.NoReturn:
    from laguna.frontends.muranopl.services import AgentUnavailable
    raise AgentUnavailable("this run has no agents")
