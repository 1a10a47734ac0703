"""The engine behind the API: the work the task queue's workers do.

Three kinds of task, each run by the deployment layer's
:class:`~laguna.deploy.service.Service` on the API's store and the working
directory's local cloud:

- ``deploy``: a configuration session's description is deployed (or, when its
  ``Objects`` is None, the environment is undeployed and then removed, as the
  original deleted an environment); the session ends ``deployed`` or
  ``deploy failure`` (``delete failure``);
- ``action``: an action of an object of the deployed model; its result (or
  exception) becomes the task's result, polled with ``GET .../actions/<task>``.

Front ends and resources come from :class:`EngineWiring`; tests pass their own.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import tempfile
import typing as t
from pathlib import Path

from laguna.api import descriptions
from laguna.engine.blueprints import ASSEMBLY, TOSCA, Named, named, only_application
from laguna.engine.tasks import Handler, StoreTaskQueue, TaskQueue
from laguna.deploy.context import ResourcesFactory
from laguna.deploy.owner import Liveness
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.result import OK, Result
from laguna.deploy.service import Service, utcnow
from laguna.deploy.workdir import Workdir
from laguna.store import environments as environment_store
from laguna.store import sessions as session_store
from laguna.store.db import Database
from laguna.store.models import ConfigurationSession, EnvironmentRecord
from laguna.store.source import ProjectSource, StoreSource

log = logging.getLogger(__name__)

DEPLOY = "deploy"
ACTION = "action"
STATIC_ACTION = "static-action"
#: a watch pass of an environment (laguna.engine.housekeeping's ``watch`` job)
REFRESH = "refresh"
#: the language of what the API deploys: Murano's object models
LANGUAGE = "muranopl"


@dataclasses.dataclass(frozen=True)
class EngineWiring:
    frontends: FrontendRegistry
    resources: ResourcesFactory


def default_wiring() -> EngineWiring:
    """The built-in front ends over each environment's cloud (the local one unless
    the CLI chose another), as the CLI has them, but confined: the API's
    machine runs nobody's scripts, whoever deployed the environment."""
    from laguna.frontends import builtin_frontends
    from laguna.hosts.factory import host_resources
    registry = FrontendRegistry(builtin_frontends(confined=True))
    registry.load_entry_points()
    return EngineWiring(registry, host_resources)


class _Work:
    """What the handlers share: the store, the working directory and the wiring."""

    def __init__(self, workdir: Path, database: Database, wiring: EngineWiring,
                 liveness: Liveness | None) -> None:
        self.workdir = workdir
        self.liveness = liveness
        self.database = database
        self.wiring = wiring
        self.catalog = StoreSource(database)

    def service(self, project: str) -> Service:
        return Service(Workdir(self.workdir), self.wiring.frontends,
                       resources=self.wiring.resources, project=project,
                       database=self.database, liveness=self.liveness)

    def load(self, payload: t.Mapping[str, t.Any]
             ) -> tuple[EnvironmentRecord, ConfigurationSession] | None:
        with self.database.session() as session:
            record = session.get(EnvironmentRecord, payload["environment_id"])
            configuration = session.get(ConfigurationSession, payload["session_id"])
            if record is None or configuration is None:
                return None
            session.expunge(record)
            session.expunge(configuration)
            return record, configuration

    def end_session(self, session_id: str, state: str) -> None:
        with self.database.session() as session:
            configuration = session.get(ConfigurationSession, session_id)
            if configuration is not None:
                configuration.state = state
                configuration.updated = utcnow()

    def lost(self, payload: t.Mapping[str, t.Any]) -> None:
        """The worker died: its session failed, and its environment's run is
        finished as interrupted now (deployment row, unfinished components and
        claim), not left ``running`` until the environment's next operation."""
        with self.database.session() as session:
            record = session.get(EnvironmentRecord, payload.get("environment_id"))
            found = (record.project_id, record.name) if record is not None else None
        if found is not None:
            self.service(found[0]).recover(found[1])
        with self.database.session() as session:
            configuration = session.get(ConfigurationSession, payload.get("session_id"))
            if configuration is not None and configuration.state in (
                    session_store.DEPLOYING, session_store.DELETING):
                configuration.state = session_store.DELETE_FAILURE \
                    if configuration.state == session_store.DELETING \
                    else session_store.DEPLOY_FAILURE
                configuration.updated = utcnow()


class DeployHandler:
    #: a deploy (or deletion) whose worker died runs again, as a redeploy after
    #: an interruption does: the environment's run is recovered first
    resumable = True

    def __init__(self, work: _Work) -> None:
        self.work = work

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        loaded = self.work.load(payload)
        if loaded is None:
            return {"error": "the environment or the session is gone"}
        record, configuration = loaded
        service = self.work.service(record.project_id)
        objects = configuration.description.get("Objects")
        if objects is None:
            return self._delete(service, record, configuration)
        model = descriptions.to_engine(configuration.description, record.id)
        store = ProjectSource(self.work.database, record.project_id)
        # Murano deployed a HOT package's template as the model's only
        # application; laguna so deploys a CSAR or an assembly descriptor of the
        # catalog, the application's other properties its inputs
        application = only_application(model)
        blueprint = named(application, store) if application is not None else None
        if blueprint is not None and blueprint.kind == TOSCA:
            result = self._deploy_csar(service, record, blueprint.reference, blueprint.inputs)
        elif blueprint is not None and blueprint.kind == ASSEMBLY:
            result = self._deploy_assembly(record, blueprint, store)
        else:
            result = service.deploy_data(record.name, LANGUAGE, model,
                                         PrepareOptions(catalog=self.work.catalog))
        self.work.end_session(configuration.id, session_store.DEPLOYED if result.status == OK
                              else session_store.DEPLOY_FAILURE)
        return _summary(result)

    def _deploy_csar(self, service: Service, record: EnvironmentRecord, reference: str,
                     inputs: t.Mapping[str, t.Any]) -> Result:
        """The environment's one application is a CSAR of the catalog: its topology
        deployed by the TOSCA front end on the local cloud (docs/TOSCA.md), the
        application's properties as the template's inputs."""
        from laguna.frontends.tosca.csar import CatalogCsarError, CatalogImports, deployable
        from laguna.deploy.errors import MODEL_INVALID
        from laguna.deploy.result import REJECTED, ErrorInfo
        store = ProjectSource(self.work.database, record.project_id)
        catalog = CatalogImports.of_workdir(Workdir(self.work.workdir).state_dir, store)
        try:
            package, version, folder = catalog.folder(reference)
            if not deployable(folder):
                raise CatalogCsarError(f"TOSCA package {package} {version} has no node "
                                       "templates to deploy")
        except CatalogCsarError as error:
            return Result(name=record.name, language="tosca", status=REJECTED, state=None,
                          error=ErrorInfo(MODEL_INVALID, error.message))
        from laguna.frontends.tosca.placement import on_this_machine
        from laguna.frontends.tosca.topology import load_topology
        topology, _problems = load_topology(folder, inputs, catalog=catalog)
        local = on_this_machine(topology) if topology is not None else []
        if local:
            return Result(name=record.name, language="tosca", status=REJECTED, state=None,
                          error=ErrorInfo(MODEL_INVALID, f"{reference}: node "
                                          f"{', '.join(local)} would run its operations on "
                                          "the API's machine; through the API, every node "
                                          "with operations is hosted on a "
                                          "tosca.nodes.Compute"))
        with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="laguna-inputs-") \
                as given:
            json.dump(dict(inputs), given)
            given.flush()
            return service.deploy(folder, PrepareOptions(
                name=record.name, catalog=store, inputs=Path(given.name), cloud="local"))

    def _deploy_assembly(self, record: EnvironmentRecord, descriptor: Named,
                         store: ProjectSource) -> Result:
        """The environment's one application names an assembly descriptor of the
        catalog: the assembly front end deploys it with the application's other
        keys as its properties (docs/DESCRIPTORS.md), its resources' scripts on
        servers of the environment's cloud only (never on the API's machine)."""
        from laguna.frontends.assembly.frontend import AssemblyFrontend
        service = Service(Workdir(self.work.workdir),
                          FrontendRegistry([AssemblyFrontend(confined=True)]),
                          resources=self.work.wiring.resources, project=record.project_id,
                          database=self.work.database, liveness=self.work.liveness)
        return service.deploy_data(
            record.name, ASSEMBLY, {"descriptor": descriptor.reference,
                                    "inputs": descriptor.inputs},
            PrepareOptions(catalog=store))

    def _delete(self, service: Service, record: EnvironmentRecord,
                configuration: ConfigurationSession) -> dict[str, t.Any]:
        if record.model is not None:
            result = service.undeploy(record.name)
            if result.status != OK:
                self.work.end_session(configuration.id, session_store.DELETE_FAILURE)
                return _summary(result)
        with self.work.database.session() as session:
            remaining = session.get(EnvironmentRecord, record.id)
            if remaining is not None:
                session.delete(remaining)
        return {"status": OK, "deleted": record.id}

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        self.work.lost(payload)


class ActionHandler:
    #: an action may not be safe to run twice: one whose worker died fails
    resumable = False

    def __init__(self, work: _Work) -> None:
        self.work = work

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        loaded = self.work.load(payload)
        if loaded is None:
            return {"isException": True,
                    "result": {"message": "the environment or the session is gone"}}
        record, configuration = loaded
        service = self.work.service(record.project_id)
        # the front end reads arguments as the command line gives them: YAML text
        arguments = {str(key): json.dumps(value)
                     for key, value in (payload.get("arguments") or {}).items()}
        result = service.action(record.name, payload["object_id"], payload["method"],
                                arguments)
        ok = result.status == OK
        self.work.end_session(configuration.id, session_store.DEPLOYED if ok
                              else session_store.DEPLOY_FAILURE)
        if ok:
            with self.work.database.session() as session:
                deployment = environment_store.last_deployment(session, record.id)
                value = (deployment.result or {}).get("result") if deployment else None
            return {"isException": False, "result": value}
        error = result.error
        return {"isException": True, "result": {
            "message": error.message if error else "the action failed",
            "details": error.kind if error else None}}

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        self.work.lost(payload)


def _summary(result: Result) -> dict[str, t.Any]:
    return {"status": result.status,
            "error": result.error.to_json() if result.error is not None else None}


def engine_handlers(workdir: Path, database: Database,
                    wiring: EngineWiring | None = None,
                    liveness: Liveness | None = None) -> t.Mapping[str, Handler]:
    """The handler of each kind of task; ``workdir`` holds the local cloud's
    state and each environment's choice of cloud; ``liveness`` tells the
    deployment layer whether another process's run of an environment still
    lives (a distributed worker, holding the environment's lock, knows it
    does not: :class:`~laguna.engine.locks.HeldLock`)."""
    work = _Work(workdir, database, wiring or default_wiring(), liveness)
    handlers: dict[str, Handler] = {DEPLOY: DeployHandler(work), ACTION: ActionHandler(work),
                                    STATIC_ACTION: StaticActionHandler(database),
                                    REFRESH: RefreshHandler(work)}
    return handlers


def engine_queue(workdir: Path, workers: int, database: Database) -> TaskQueue:
    """The embedded engine: ``workers`` threads of this process."""
    return StoreTaskQueue(database, engine_handlers(workdir, database), workers=workers)


class StaticActionHandler:
    """A static action called through ``POST /v1/actions`` when the API runs no
    engine of its own: the route waits for this task's result, as the
    original's API waited on its engine over RPC."""

    #: a static action touches no environment: running it again is harmless
    resumable = True

    def __init__(self, database: Database) -> None:
        self.database = database

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        from laguna.frontends.muranopl.static_actions import (
            StaticActionError,
            call_static_action,
        )
        from laguna.store.source import ProjectSource
        from laguna.yaql.engine import DEFAULT_LIMITS
        try:
            value = call_static_action(
                [ProjectSource(self.database, payload["project_id"])], payload["class_name"],
                payload["method"], payload.get("parameters"), payload.get("package_name"),
                payload.get("class_version"), DEFAULT_LIMITS)
        except StaticActionError as error:
            return {"error": {"kind": error.kind, "message": error.message}}
        return {"result": value}

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        pass


class RefreshHandler:
    """A watch pass of an environment whose watch is due: the deployment layer's
    ``watch`` (its front end's checks and policies; a pass that changed
    something is recorded as a deployment, with its reports and states)."""

    resumable = False

    def __init__(self, work: _Work) -> None:
        self.work = work

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        with self.work.database.session() as session:
            record = session.get(EnvironmentRecord, payload["environment_id"])
            if record is None:
                return {"error": "the environment is gone"}
            project, name = record.project_id, record.name
        result, due = self.work.service(project).watch(name)
        return {"watched": result.status, "changed": bool(result.reports),
                "due": due.isoformat() if due is not None else None}

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        self.work.lost(payload)
