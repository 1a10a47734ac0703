"""The use cases of the deployment layer: what the CLI (and later the API) calls.

Every operation on an environment goes the same way (see docs/DEPLOY.md):

1. the front end prepares the blueprint (``deploy`` only); a refusal is a
   ``rejected`` result and nothing is written;
2. one transaction: find or create the environment, finish a deployment whose
   process died (:meth:`Service._recover`), ask the admission rules, claim the
   environment (``acquired_by``), add a ``running`` deployment;
3. the front end runs; its reports are committed one by one (StoreReporter);
   a front end that refuses here, before running anything (an unknown class,
   an unknown action), leaves no trace: step 2 is undone (:meth:`Service._undo`);
4. one transaction: the deployment's end, the environment's new state, model,
   outputs, components and packages; the claim is released.

A dry run does step 1 and 3 only, against recording resources, and writes nothing.
"""

from __future__ import annotations

import dataclasses
import inspect
import datetime
import json
import logging
import tempfile
import typing as t
from pathlib import Path

from sqlalchemy.orm import Session

from laguna.deploy import errors
from laguna.deploy.actions import check
from laguna.deploy.context import (
    Resources,
    ResourcesFactory,
    RunContext,
    StoredPackage,
    StoredState,
    Timeouts,
    no_resources,
)
from laguna.deploy.drift import DriftMarks, DriftReport
from laguna.deploy.drift import report as drift_report
from laguna.deploy.events import DeploymentFinished, DeploymentStarted, EventSink, discard
from laguna.deploy.frontend import (
    ActionLister,
    Blueprint,
    Frontend,
    FrontendRegistry,
    Outcome,
    PrepareOptions,
    StoreActionLister,
    Watcher,
)
from laguna.deploy.owner import Liveness, ProcessLiveness, ProcessOwner, current_owner
from laguna.deploy.readonly import kept_actions
from laguna.deploy.reporter import MemoryReporter, StoreReporter
from laguna.deploy.result import (
    DESTROY,
    ERROR,
    FAILED,
    OK,
    REJECTED,
    Action,
    Component,
    DeploymentList,
    DeploymentView,
    EnvironmentList,
    EnvironmentView,
    ErrorInfo,
    Report,
    Result,
    plan_changes,
)
from laguna.deploy.states import (
    INTERRUPTED_COMPONENT,
    RUNNING,
    UNFINISHED_COMPONENT_STATES,
    DeploymentState,
    EnvironmentState,
    Operation,
    Proposal,
    admit,
    finished,
)
from laguna.deploy.workdir import Workdir
from laguna.errors import LagunaError
from laguna.hosts.choice import CloudRequest, choose
from laguna.packages.source import PackageSource
from laguna.store import environments as repo
from laguna.store.db import Database
from laguna.store.models import DeploymentRecord, EnvironmentRecord, StatusReport

log = logging.getLogger(__name__)

Clock = t.Callable[[], datetime.datetime]
#: when a watch pass that failed is tried again
WATCH_RETRY = datetime.timedelta(minutes=1)


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


@dataclasses.dataclass(frozen=True)
class _Started:
    """What step 2 hands to steps 3 and 4."""

    frontend: Frontend
    deployment_id: str
    stored: StoredState
    previous: EnvironmentState
    #: whether this operation created the environment (a refusal then deletes it)
    created: bool = False
    #: the environment's packages before the operation added the blueprint's
    packages_before: tuple[tuple[str, str, bytes], ...] = ()


class Service:
    """Deploy, act on, undeploy and inspect the environments of one working directory."""

    def __init__(self, workdir: Workdir, frontends: FrontendRegistry, *,
                 resources: ResourcesFactory = no_resources,
                 project: str = repo.LOCAL_PROJECT, clock: Clock = utcnow,
                 owner: ProcessOwner | None = None, liveness: Liveness | None = None,
                 timeouts: Timeouts = Timeouts(), database: Database | None = None,
                 catalog: PackageSource | None = None) -> None:
        self.workdir = workdir
        #: the catalog store operations on stored environments may draw from
        self.catalog = catalog
        #: a store shared with the caller (the API's); None: the working directory's,
        #: opened per operation
        self.database = database
        self.frontends = frontends
        self.resources = resources
        # asked once: whether the factory hears the run's progress (the host layer's)
        self._resources_take_progress = _takes_progress(resources)
        self.project = project
        self.clock = clock
        self.owner = owner or current_owner()
        self.liveness = liveness or ProcessLiveness()
        self.timeouts = timeouts

    # -- the use cases -------------------------------------------------------------

    def deploy(self, path: Path, options: PrepareOptions = PrepareOptions(), *,
               dry_run: bool = False, sink: EventSink = discard) -> Result:
        """Deploy the blueprint at ``path`` into an environment (created if new)."""
        fallback = options.name or path.stem
        if not path.exists():
            return self._rejected(fallback, None, ErrorInfo(
                errors.MODEL_INVALID, f"{path} does not exist"))
        frontend = self.frontends.recognise(path)
        if frontend is None:
            return self._rejected(fallback, None, ErrorInfo(
                errors.MODEL_INVALID, f"no blueprint language recognises {path}"))
        if options.workdir is None:
            options = dataclasses.replace(options, workdir=self.workdir.root)
        if options.catalog is None and self.catalog is not None:
            options = dataclasses.replace(options, catalog=self.catalog)
        try:
            blueprint = frontend.prepare(path, options)
        except errors.Rejected as rejected:
            return self._rejected(fallback, frontend.language,
                                  ErrorInfo(rejected.kind, rejected.message, rejected.details))
        name = options.name or blueprint.name or path.stem
        cloud = CloudRequest.of(options.cloud, options.inventory)
        if dry_run:
            return self._dry_run(frontend, blueprint, name, sink, cloud)
        return self._operate(name, Operation.DEPLOY, sink, blueprint=blueprint,
                             frontend=frontend, cloud=cloud)

    def deploy_data(self, name: str, language: str, data: t.Mapping[str, t.Any],
                    options: PrepareOptions = PrepareOptions(), *,
                    dry_run: bool = False, sink: EventSink = discard) -> Result:
        """Deploy a blueprint given as data (the API's) into environment ``name``;
        ``dry_run`` as for :meth:`deploy` (what the API would deploy, checked
        without a cloud: benchmarks/forms_murano_apps.py)."""
        frontend = self.frontends.get(language)
        if frontend is None:
            return self._rejected(name, None, ErrorInfo(
                errors.LANGUAGE_UNAVAILABLE, f"no front end for {language!r} here"))
        # the front end checks the blueprint against the environment it goes into
        options = dataclasses.replace(options, name=options.name or name,
                                      workdir=options.workdir or self.workdir.root,
                                      catalog=options.catalog or self.catalog)
        try:
            blueprint = frontend.prepare_data(data, options)
        except errors.Rejected as rejected:
            return self._rejected(name, language, ErrorInfo(rejected.kind, rejected.message, rejected.details))
        cloud = CloudRequest.of(options.cloud, options.inventory)
        if dry_run:
            return self._dry_run(frontend, blueprint, name, sink, cloud)
        return self._operate(name, Operation.DEPLOY, sink, blueprint=blueprint,
                             frontend=frontend, cloud=cloud)

    def action(self, name: str, object_id: str, method: str,
               arguments: t.Mapping[str, str] | None = None, *,
               sink: EventSink = discard, cloud: CloudRequest | None = None) -> Result:
        """Run ``method`` of object ``object_id`` (an id, or a unique name where the
        front end lists actions) of the environment's deployed model."""
        args = dict(arguments or {})
        try:
            object_id = self._check_action(name, object_id, method, args)
        except errors.Rejected as rejected:
            read = self._read(name)
            return Result(name=name, language=read[1] if read else None, status=REJECTED,
                          state=read[2] if read else None,
                          error=ErrorInfo(rejected.kind, rejected.message, rejected.details))
        return self._operate(name, Operation.ACTION, sink, cloud=cloud,
                             action={"object": object_id, "method": method, "arguments": args})

    def watch(self, name: str, *, period: float | None = None,
              sink: EventSink = discard) -> tuple[Result, datetime.datetime | None]:
        """One pass of watching the environment (:class:`Watcher`): the checks and
        policies due now; the result, and when the next pass is due (None: nothing
        is watched). A pass that changed nothing leaves no deployment behind."""
        result = self._operate(name, Operation.WATCH, sink, watch_period=period)
        return result, self._watch_due(name) if result.status != REJECTED else None

    def _watch_due(self, name: str) -> datetime.datetime | None:
        database = self._open(name)
        try:
            with database.session() as session:
                due = self._find(session, name).watch_due
        except errors.DeployError:
            return None
        finally:
            self._close(database)
        if due is not None and due.tzinfo is None:    # SQLite keeps no zone
            due = due.replace(tzinfo=datetime.timezone.utc)
        return due

    def _check_action(self, name: str, target: str, method: str,
                      arguments: t.Mapping[str, str]) -> str:
        """The id of the object ``target`` names, once the action is known to be
        one it offers with those arguments (Rejected otherwise; nothing is
        written). Environments the admission rules refuse anyway, and front ends
        that list no actions, are left to the operation."""
        deployed = self._deployed(name)
        if deployed is None:
            return target
        frontend, stored = deployed
        return check(frontend, stored, self.workdir.cloud_dir, target, method, arguments)

    def actions(self, name: str) -> t.Sequence[Action] | None:
        """The actions of the environment's deployed objects as its front end
        lists them (None: it lists none); a read only, no recovery, so that the
        API may ask while a deployment runs."""
        return self._actions(name)

    def _actions(self, name: str) -> t.Sequence[Action] | None:
        """The actions of the environment's deployed objects, if its front end lists them."""
        deployed = self._deployed(name)
        if deployed is None or not isinstance(deployed[0], ActionLister):
            return None
        return deployed[0].actions(deployed[1], self.workdir.cloud_dir)

    def _deployed(self, name: str) -> tuple[Frontend, StoredState] | None:
        """The front end and stored state of the environment when it has a model."""
        read = self._read(name)
        if read is None:
            return None
        stored, language, _status = read
        frontend = self.frontends.get(language) if language else None
        if stored.model is None or frontend is None:
            return None
        return frontend, stored

    def undeploy(self, name: str, *, sink: EventSink = discard,
                 cloud: CloudRequest | None = None) -> Result:
        """Destroy what the environment deployed; its history stays. ``cloud``:
        where its servers are, when not where they were deployed (another
        ``--inventory``)."""
        return self._operate(name, Operation.UNDEPLOY, sink, cloud=cloud)

    def forget(self, name: str) -> Result:
        """Delete an environment with nothing deployed, and its history: what a
        first deploy that failed before anything ran leaves behind, or what an
        undeploy left. Anything deployed must be undeployed first."""
        def delete(session: Session, record: EnvironmentRecord) -> Result:
            if record.acquired_by is not None:
                raise errors.Refused(errors.ENVIRONMENT_BUSY,
                                     f"environment {name!r} is busy: deployment "
                                     f"{record.acquired_by} is running")
            # a taken-over environment's resources are Murano's, on OpenStack: forgetting
            # it is the way to let go of it (docs/TAKEOVER.md)
            if record.model is not None and \
                    record.status != EnvironmentState.TAKEN_OVER.value:
                raise errors.Refused(errors.STILL_DEPLOYED,
                                     f"environment {name!r} has a deployment: "
                                     f"undeploy it first (laguna undeploy {name})")
            session.delete(record)
            return Result(name=name, language=record.language, status=OK, state=None)
        return self._on_environment(name, delete)

    def recover(self, name: str) -> None:
        """Finish the environment's run if the process that ran it died (a server
        that starts again finds its dead runs); nothing if it is alive or none ran."""
        self._on_environment(name, lambda session, record: self._result(
            session, record, None))

    def status(self, name: str) -> Result:
        """The environment as the store knows it, after its last deployment, with
        the actions its objects offer when its front end lists them."""
        result = self._on_environment(name, lambda session, record: self._result(
            session, record, repo.last_deployment(session, record.id)))
        if result.status == REJECTED and result.state is None:
            return result
        try:
            actions = self._actions(name)
        except errors.Rejected as rejected:
            # the stored packages no longer load: the status is still worth showing
            log.warning("environment %s: its actions cannot be listed: %s", name,
                        rejected.message)
            actions = None
        return dataclasses.replace(result, actions=actions) if actions is not None else result

    def _on_environment(self, name: str,
                        work: t.Callable[[Session, EnvironmentRecord], Result]) -> Result:
        """``work`` on the environment named ``name``, a dead owner's run recovered
        first, in one transaction; a refusal is a rejected result."""
        try:
            database = self._open(name)
        except errors.DeployError as error:
            return self._rejected(name, None, ErrorInfo(error.kind, error.message))
        try:
            with database.session() as session:
                record = self._find(session, name)
                self._recover(session, record)
                return work(session, record)
        except errors.DeployError as error:
            return self._rejected(name, None, ErrorInfo(error.kind, error.message), database)
        finally:
            self._close(database)

    def deployments(self, name: str) -> DeploymentList:
        """The environment's deployments, oldest first, each with its reports."""
        database = self._open(name)
        try:
            with database.session() as session:
                record = self._find(session, name)
                self._recover(session, record)
                return DeploymentList([
                    _deployment_view(session, deployment)
                    for deployment in repo.list_deployments(session, record.id)])
        finally:
            self._close(database)

    def check(self, name: str) -> DriftReport:
        """Ask the agent of every host of the environment what its components'
        scripts left there that is no longer as they left it (processes, files,
        addresses: docs/DEPLOY.md, "Drift"); the components found drifted are
        kept for the next deploy to repair. EnvironmentNotFound; Refused
        (environment_busy while an operation runs, not_deployed)."""
        database = self._open(name)
        try:
            with database.session() as session:
                record = self._find(session, name)
                self._recover(session, record)
                if record.acquired_by is not None:
                    raise errors.Refused(errors.ENVIRONMENT_BUSY, f"environment {name!r} "
                                         "is busy with another operation")
                if record.model is None:
                    raise errors.Refused(errors.NOT_DEPLOYED,
                                         f"environment {name!r} has nothing deployed")
                stored, language = _stored_state(record), record.language
        finally:
            self._close(database)
        state_dir = self.workdir.cloud_dir
        resources = self.resources(state_dir, stored.environment_id, False)
        checks = []
        if resources.cloud is not None and resources.agents is not None:
            # the agent's client (httpx) only for a check: status stays light
            from laguna.hosts.drift import check_held
            # each host through the cloud that holds it (servers placed elsewhere
            # than the environment's cloud: TOSCA's per-node locations)
            checks = check_held(resources, choose(state_dir, stored.environment_id, None,
                                                  keep=False))
        found = drift_report(name, stored.environment_id, language, stored.components,
                             checks, self.clock())
        DriftMarks(state_dir).keep(stored.environment_id, found.drifted)
        return found

    def environments(self, all_projects: bool = False) -> EnvironmentList:
        """Every environment of the project, by name; ``all_projects``: of every
        project, by project and name."""
        if self.database is None and not self.workdir.has_store():
            return EnvironmentList([], by_project=all_projects)
        database = self._open()
        try:
            with database.session() as session:
                views = []
                for record in repo.list_environments(
                        session, None if all_projects else self.project):
                    self._recover(session, record)
                    views.append(_environment_view(record))
                return EnvironmentList(views, by_project=all_projects)
        finally:
            self._close(database)

    # -- one operation: begin, run, finish -----------------------------------------------

    def _operate(self, name: str, operation: Operation, sink: EventSink, *,
                 blueprint: Blueprint | None = None, frontend: Frontend | None = None,
                 action: dict[str, t.Any] | None = None,
                 cloud: CloudRequest | None = None,
                 watch_period: float | None = None) -> Result:
        try:
            database = self._open(None if operation is Operation.DEPLOY else name)
        except errors.DeployError as error:
            return self._rejected(name, None, ErrorInfo(error.kind, error.message))
        try:
            try:
                started = self._begin(database, name, operation, blueprint, frontend, action)
            except errors.DeployError as error:
                language = frontend.language if frontend is not None else None
                return self._rejected(name, language, ErrorInfo(error.kind, error.message),
                                      database)
            sink(DeploymentStarted(name, started.deployment_id, operation.value, self.clock()))
            reporter = StoreReporter(database, started.stored.environment_id,
                                     started.stored.project, started.deployment_id, name,
                                     sink, self.clock, known=started.stored.components)
            try:
                context = self._context(started.stored, reporter, self.workdir.cloud_dir,
                                        dry_run=False, cloud=cloud)
            except LagunaError as error:
                # the environment's cloud cannot be had (a driver not installed, a
                # switch of cloud refused): refused before anything ran
                outcome = Outcome(ok=False, error=ErrorInfo(errors.CLOUD_ERROR, str(error)))
                outcome, rejected = self._close_reporter(reporter, outcome), True
            else:
                marks = DriftMarks(self.workdir.cloud_dir)
                if operation is Operation.DEPLOY:
                    # what the last check found drifted runs its lifecycle again
                    context = dataclasses.replace(
                        context, repair=marks.get(started.stored.environment_id))
                outcome, rejected = self._run(started.frontend, operation, context,
                                              blueprint, action, watch_period)
                # a deploy repaired the drift, an undeploy removed it; an action
                # or a watch pass did neither
                if outcome.ok and not rejected and operation in (Operation.DEPLOY,
                                                                  Operation.UNDEPLOY):
                    marks.clear(started.stored.environment_id)
                outcome = self._close_reporter(reporter, outcome)
            if rejected:
                return self._undo(database, name, started, outcome, operation)
            if operation is Operation.WATCH and outcome.ok and outcome.quiet \
                    and not reporter.components:
                result = self._quiet(database, name, started, outcome)
                sink(DeploymentFinished(name, started.deployment_id,
                                        DeploymentState.SUCCESS.value, self.clock()))
                return result
            with database.session() as session:
                record = self._finish(session, started, operation, outcome,
                                      blueprint, reporter.components)
                deployment = repo.get_deployment(session, started.deployment_id)
                result = self._result(session, record, deployment)
            if operation is Operation.UNDEPLOY:
                # what the environment had and no longer has
                result = dataclasses.replace(result, destroyed=[
                    change for change in plan_changes(started.stored.components,
                                                      result.components)
                    if change.action == DESTROY])
            if operation is Operation.UNDEPLOY and outcome.components:
                # the environment keeps no components once undeployed; the undeploy's
                # own result still shows what it left of each (deleted)
                result = dataclasses.replace(result, components=dict(outcome.components))
            sink(DeploymentFinished(name, started.deployment_id,
                                    DeploymentState.SUCCESS.value if outcome.ok
                                    else DeploymentState.FAILURE.value, self.clock()))
            return result
        finally:
            self._close(database)

    @staticmethod
    def _close_reporter(reporter: StoreReporter, outcome: Outcome) -> Outcome:
        """Commit the reports still waiting, before the end is recorded; a store
        that failed to keep them fails the run, whose record would be incomplete."""
        try:
            reporter.close()
        except Exception as exc:
            log.exception("the store failed to keep the run's reports")
            return dataclasses.replace(outcome, ok=False, error=ErrorInfo(
                errors.INTERNAL_ERROR,
                f"the store failed to keep the run's reports: {type(exc).__name__}: {exc}"))
        return outcome

    def _begin(self, database: Database, name: str, operation: Operation,
               blueprint: Blueprint | None, frontend: Frontend | None,
               action: dict[str, t.Any] | None) -> _Started:
        now = self.clock()
        # Recovery commits on its own: a refusal below must not undo it.
        created = False
        with database.session() as session:
            if operation is Operation.DEPLOY:
                record = repo.find_environment(session, self.project, name)
                if record is None:
                    created = True
                    record = repo.create_environment(
                        session, self.project, name, EnvironmentState.PENDING.value, now,
                        blueprint.environment_id if blueprint is not None else None)
            else:
                record = self._find(session, name)
            self._recover(session, record)
        with database.session() as session:
            record = self._find(session, name)
            previous = EnvironmentState(record.status)
            admit(Proposal(name, previous, operation, record.acquired_by,
                           record.model is not None, record.language,
                           blueprint.language if blueprint is not None else None,
                           None if self.project == repo.LOCAL_PROJECT else self.project))
            if frontend is None:
                frontend = self._frontend_of(record)
            deployment = DeploymentRecord(
                environment_id=record.id, operation=operation.value,
                state=DeploymentState.RUNNING.value, started=now,
                description=dict(blueprint.model) if blueprint is not None else record.model,
                action=action, owner_host=self.owner.host, owner_pid=self.owner.pid,
                owner_started=self.owner.started)
            repo.add_deployment(session, deployment)
            if not repo.acquire(session, record.id, deployment.id, now):
                raise errors.Refused(errors.ENVIRONMENT_BUSY,
                                     f"environment {name!r} is busy: another deployment "
                                     "claimed it first")
            if operation in RUNNING:
                record.status = RUNNING[operation].value
            record.updated = now
            packages_before = tuple((row.name, row.version, row.archive)
                                    for row in record.package_rows)
            if blueprint is not None:
                # Known from the start, so that an interrupted deploy can be undeployed:
                # the language, and the new packages next to those of the stored model.
                record.language = blueprint.language
                repo.add_packages(session, record, [
                    (p.name, p.version, p.archive) for p in blueprint.packages])
            return _Started(frontend, deployment.id, _stored_state(record), previous,
                            created, packages_before)

    def _run(self, frontend: Frontend, operation: Operation, context: RunContext,
             blueprint: Blueprint | None, action: dict[str, t.Any] | None,
             watch_period: float | None = None) -> tuple[Outcome, bool]:
        """The front end's outcome, and whether it refused before running anything."""
        try:
            if operation is Operation.WATCH:
                if not isinstance(frontend, Watcher):
                    # a language that watches nothing (yet): no pass is due again
                    return Outcome(ok=True, quiet=True), False
                return frontend.watch(context, self.clock(), watch_period), False
            if operation is Operation.DEPLOY:
                assert blueprint is not None
                return frontend.deploy(blueprint, context), False
            if operation is Operation.ACTION:
                assert action is not None
                return frontend.action(context, action["object"], action["method"],
                                       action["arguments"]), False
            return frontend.undeploy(context), False
        except errors.Rejected as rejected:
            return Outcome(ok=False, error=ErrorInfo(rejected.kind, rejected.message, rejected.details)), True
        except KeyboardInterrupt:
            # Ctrl-C: record the end now rather than leave it to the next command's recovery.
            message = f"the {operation.value} was interrupted by the user"
            context.reporter.report(ERROR, message)
            return Outcome(ok=False, error=ErrorInfo(errors.INTERRUPTED, message)), False
        except Exception as exc:  # a front end bug must not leave the environment held
            log.exception("the %s front end failed", frontend.language)
            context.reporter.report(ERROR, f"{type(exc).__name__}: {exc}")
            return Outcome(ok=False, error=ErrorInfo(
                errors.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")), False

    def _undo(self, database: Database, name: str, started: _Started,
              outcome: Outcome, operation: Operation) -> Result:
        """A front end that refused before running anything leaves no trace: the
        deployment record goes, the environment as it was (gone if this operation
        made it), its packages those it had. A refused watch pass is tried again
        later (:data:`WATCH_RETRY`): left due, the worker would queue it again at
        once, every few seconds, for as long as the refusal lasts."""
        with database.session() as session:
            record = _drop_deployment(session, started.deployment_id)
            state: str | None = None
            model = None
            if started.created:
                session.delete(record)
            else:
                record.status = state = started.previous.value
                repo.replace_packages(session, record, started.packages_before)
                if operation is Operation.WATCH and record.watch_due is not None:
                    record.watch_due = self.clock() + WATCH_RETRY
                repo.release(session, record)
                # unchanged by the refusal: front ends report their own state from it
                model = record.model
            session.flush()
        return Result(name=name, language=started.frontend.language, status=REJECTED,
                      state=state, model=model, error=outcome.error)

    def _quiet(self, database: Database, name: str, started: _Started,
               outcome: Outcome) -> Result:
        """A watch pass that changed nothing: its deployment goes (a watch every
        second must not fill the history), the environment as it was, its next
        pass due when the front end says."""
        with database.session() as session:
            record = _drop_deployment(session, started.deployment_id)
            record.status = started.previous.value
            record.watch_due = outcome.watch_due
            # what the pass read is kept (the checks' times and outputs, the next
            # dues): the environment shows its last check, without a history entry
            if outcome.model is not None:
                record.model = dict(outcome.model)
            if outcome.components is not None:
                record.components = {k: c.to_json() for k, c in outcome.components.items()}
            if outcome.outputs:
                record.outputs = dict(outcome.outputs)
            repo.release(session, record)
            session.flush()
            # no deployment of its own: no reports, no error
            return self._result(session, record, None)

    def _finish(self, session: Session, started: _Started, operation: Operation,
                outcome: Outcome, blueprint: Blueprint | None,
                reported: t.Mapping[str, Component]) -> EnvironmentRecord:
        now = self.clock()
        deployment = repo.get_deployment(session, started.deployment_id)
        assert deployment is not None
        record = session.get(EnvironmentRecord, deployment.environment_id)
        assert record is not None
        deployment.state = (DeploymentState.SUCCESS if outcome.ok
                            else DeploymentState.FAILURE).value
        deployment.finished = now
        deployment.result = {
            "outputs": dict(outcome.outputs),
            "error": outcome.error.to_json() if outcome.error is not None else None,
        }
        if operation is Operation.ACTION:
            deployment.result["result"] = outcome.result
        # a watch pass leaves the environment's state: what it found shows in the
        # components (a node on fire), not as a failed deployment of the whole
        record.status = started.previous.value if operation is Operation.WATCH \
            else finished(operation, outcome.ok).value
        if operation is Operation.UNDEPLOY and outcome.ok:
            record.model, record.outputs, record.components = None, {}, {}
        else:
            if outcome.model is not None:
                record.model = dict(outcome.model)
            if outcome.outputs or outcome.ok:
                record.outputs = dict(outcome.outputs)
            if outcome.components is not None:
                record.components = {k: c.to_json() for k, c in outcome.components.items()}
            else:
                record.components = {**record.components,
                                     **{k: c.to_json() for k, c in reported.items()}}
        if operation is Operation.DEPLOY and outcome.ok and blueprint is not None:
            record.language = blueprint.language
            record.version += 1
            used = outcome.packages if outcome.packages is not None else blueprint.packages
            repo.replace_packages(session, record, [
                (p.name, p.version, p.archive) for p in used])
        elif operation is Operation.ACTION and outcome.packages is not None:
            # an action that changed what the environment uses (an upgrade)
            repo.replace_packages(session, record, [
                (p.name, p.version, p.archive) for p in outcome.packages])
        if operation is Operation.WATCH:
            # a pass that failed (a front end's bug, a store that failed) is tried
            # again later rather than ending the watch
            record.watch_due = outcome.watch_due if outcome.ok or outcome.watch_due \
                else now + WATCH_RETRY
        elif record.model is None:
            record.watch_due = None
        elif isinstance(started.frontend, Watcher):
            # what a run deployed or changed is looked at by the next pass at once
            # (the front end then says when its checks are due)
            record.watch_due = now
        repo.release(session, record)
        record.updated = now
        record.actions = self._kept_actions(started.frontend, record)
        session.flush()
        return record

    def _kept_actions(self, frontend: Frontend,
                      record: EnvironmentRecord) -> dict[str, t.Any] | None:
        """The actions of the environment as a run leaves it, kept in the store for
        ``laguna status`` (laguna.deploy.readonly) when its front end lists them from
        the stored state alone; None (not kept: status asks the front end) otherwise."""
        if record.model is None or not isinstance(frontend, StoreActionLister) \
                or frontend.actions_from_store is not True:
            return None
        # the model and packages as the store gives them back (what readers digest)
        model = json.loads(json.dumps(record.model))
        stored = dataclasses.replace(_stored_state(record), model=model)
        try:
            actions = frontend.actions(stored, self.workdir.cloud_dir)
        except Exception:   # noqa: BLE001 - status lists them (or says why) itself
            log.debug("the actions of %s are not kept", record.name, exc_info=True)
            return None
        return kept_actions(actions, model,
                            [(p.name, p.version, p.archive) for p in stored.packages])

    def _dry_run(self, frontend: Frontend, blueprint: Blueprint, name: str,
                 sink: EventSink, cloud: CloudRequest | None = None) -> Result:
        stored = self._read_stored(name) or StoredState(environment_id="dry-run", name=name,
                                                        project=self.project)
        reporter = MemoryReporter(name, sink, self.clock, known=stored.components)
        with tempfile.TemporaryDirectory(prefix="laguna-dry-run-") as scratch:
            try:
                if cloud is not None and stored.environment_id != "dry-run":
                    # what the real deploy would refuse (a switch of cloud), checked
                    # against the environment's kept choice; nothing is kept
                    choose(self.workdir.cloud_dir, stored.environment_id, cloud, keep=False)
                context = self._context(stored, reporter, Path(scratch), dry_run=True,
                                        cloud=cloud)
            except LagunaError as error:
                return self._rejected(name, frontend.language,
                                      ErrorInfo(errors.CLOUD_ERROR, str(error)))
            outcome, rejected = self._run(frontend, Operation.DEPLOY, context, blueprint, None)
        status = REJECTED if rejected else OK if outcome.ok else FAILED
        components = dict(outcome.components if outcome.components is not None
                          else {**stored.components, **reporter.components})
        return Result(
            name=name, language=frontend.language, status=status,
            state=finished(Operation.DEPLOY, outcome.ok).value if not rejected else None,
            outputs=dict(outcome.outputs), components=components,
            reports=list(reporter.reports),
            model=dict(outcome.model) if outcome.model is not None else dict(blueprint.model),
            error=outcome.error, plan=list(outcome.plan or []),
            changes=plan_changes(stored.components, components, outcome.changed))

    # -- helpers --------------------------------------------------------------------

    def _context(self, stored: StoredState, reporter: MemoryReporter, state_dir: Path,
                 dry_run: bool, cloud: CloudRequest | None = None) -> RunContext:
        # the request only when there is one: factories of one cloud take none;
        # the run's progress only to factories that take it (the host layer's)
        extra: dict[str, t.Any] = {}
        if self._resources_take_progress:
            extra["progress"] = lambda text: reporter.report("info", text)
        resources: Resources = (
            self.resources(state_dir, stored.environment_id, dry_run, **extra)
            if cloud is None
            else self.resources(state_dir, stored.environment_id, dry_run, cloud, **extra))
        return RunContext(stored=stored, reporter=reporter, resources=resources,
                          state_dir=state_dir, dry_run=dry_run, timeouts=self.timeouts,
                          catalog=self.catalog)

    def _open(self, name: str | None = None) -> Database:
        """The store; with ``name``, only if it exists (no store: no such environment)."""
        if self.database is not None:
            return self.database
        if name is not None and not self.workdir.has_store():
            raise errors.EnvironmentNotFound(name)
        return self.workdir.open_store()

    def _close(self, database: Database) -> None:
        """Let go of a store this operation opened (a shared one stays open)."""
        if database is not self.database:
            database.dispose()

    def _find(self, session: Session, name: str) -> EnvironmentRecord:
        record = repo.find_environment(session, self.project, name)
        if record is None:
            raise errors.EnvironmentNotFound(name)
        return record

    def _frontend_of(self, record: EnvironmentRecord) -> Frontend:
        frontend = self.frontends.get(record.language) if record.language else None
        if frontend is None:
            raise errors.Refused(
                errors.LANGUAGE_UNAVAILABLE,
                f"environment {record.name!r} was deployed with "
                f"{record.language or 'no blueprint language'}, which has no front end here")
        return frontend

    def _recover(self, session: Session, record: EnvironmentRecord) -> None:
        """Finish a deployment whose process died, as failed, and free the environment."""
        if record.acquired_by is None:
            return
        deployment = repo.get_deployment(session, record.acquired_by)
        if deployment is not None and deployment.state == DeploymentState.RUNNING.value:
            owner = ProcessOwner(deployment.owner_host, deployment.owner_pid,
                                 deployment.owner_started)
            if self.liveness.alive(owner):
                return
            now = self.clock()
            message = (f"the {deployment.operation} was interrupted: its process ({owner}) "
                       "ended before it finished")
            repo.add_report(session, deployment.id, ERROR, message, None, now)
            deployment.state = DeploymentState.FAILURE.value
            deployment.finished = now
            deployment.result = {"outputs": {}, "error": ErrorInfo(
                errors.INTERRUPTED, message).to_json()}
            record.status = finished(Operation(deployment.operation), False).value
            # a component the dead run left at work is not at work any more
            record.components = {
                key: ({**value, "state": INTERRUPTED_COMPONENT}
                      if value.get("state") in UNFINISHED_COMPONENT_STATES else value)
                for key, value in record.components.items()}
            log.warning("environment %s: %s", record.name, message)
        repo.release(session, record)
        record.updated = self.clock()
        session.flush()

    def _read_stored(self, name: str) -> StoredState | None:
        """The stored state of ``name`` without writing anything (dry runs)."""
        read = self._read(name)
        return read[0] if read is not None else None

    def _read(self, name: str) -> tuple[StoredState, str | None, str] | None:
        """The stored state, language and status of ``name``, writing nothing."""
        if self.database is None and not self.workdir.has_store():
            return None
        database = self.database or Database(self.workdir.url)
        try:
            with database.session() as session:
                record = repo.find_environment(session, self.project, name)
                return (_stored_state(record), record.language, record.status) \
                    if record is not None else None
        finally:
            self._close(database)

    def _rejected(self, name: str, language: str | None, error: ErrorInfo,
                  database: Database | None = None) -> Result:
        state = None
        model = None
        if database is not None:
            with database.session() as session:
                record = repo.find_environment(session, self.project, name)
                if record is not None:
                    # the environment as it stays: front ends report their own state
                    # from its model (an assembly's)
                    state, model = record.status, record.model
        return Result(name=name, language=language, status=REJECTED, state=state,
                      model=model, error=error)

    def _result(self, session: Session, record: EnvironmentRecord,
                deployment: DeploymentRecord | None) -> Result:
        error = None
        reports: list[Report] = []
        status = OK
        if deployment is not None:
            reports = [_report(row) for row in repo.list_reports(session, deployment.id)]
            stored_error = (deployment.result or {}).get("error")
            if stored_error is not None:
                error = ErrorInfo.from_json(stored_error)
            if deployment.state == DeploymentState.FAILURE.value:
                status = FAILED
        return Result(
            name=record.name, language=record.language, status=status, state=record.status,
            outputs=dict(record.outputs),
            components={k: Component.from_json(v) for k, v in record.components.items()},
            reports=reports, model=record.model, error=error)


def _drop_deployment(session: Session, deployment_id: str) -> EnvironmentRecord:
    """Delete a deployment (its reports with it); its environment."""
    deployment = repo.get_deployment(session, deployment_id)
    assert deployment is not None
    record = session.get(EnvironmentRecord, deployment.environment_id)
    assert record is not None
    session.delete(deployment)
    return record


def _stored_state(record: EnvironmentRecord) -> StoredState:
    return StoredState(
        environment_id=record.id, name=record.name, project=record.project_id,
        model=record.model,
        packages=tuple(StoredPackage(p.name, p.version, p.archive) for p in record.package_rows),
        outputs=dict(record.outputs),
        components={k: Component.from_json(v) for k, v in record.components.items()})


def _report(row: StatusReport) -> Report:
    return Report(level=row.level, text=row.text, time=row.time, object=row.entity_id)


def _deployment_view(session: Session, deployment: DeploymentRecord) -> DeploymentView:
    stored_error = (deployment.result or {}).get("error")
    return DeploymentView(
        id=deployment.id, operation=deployment.operation, state=deployment.state,
        started=deployment.started, finished=deployment.finished,
        reports=[_report(row) for row in repo.list_reports(session, deployment.id)],
        action=deployment.action,
        error=ErrorInfo.from_json(stored_error) if stored_error is not None else None)


def _environment_view(record: EnvironmentRecord) -> EnvironmentView:
    return EnvironmentView(
        id=record.id, name=record.name, project=record.project_id, language=record.language,
        state=record.status, version=record.version, created=record.created,
        updated=record.updated, acquired_by=record.acquired_by)


def _takes_progress(factory: ResourcesFactory) -> bool:
    """Whether a resources factory takes ``progress=`` (the host layer's does;
    a test's factory of one cloud need not)."""
    try:
        return "progress" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
