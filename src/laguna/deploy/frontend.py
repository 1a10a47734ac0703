"""What a blueprint language implements to deploy through laguna.

A front end turns a blueprint (a MuranoPL object model, a TOSCA service
template, an assembly descriptor) into work on the cloud and the agents. The
deployment layer owns everything else: the store, the environment's lock and
states, reports, the CLI and the JSON shape. Front ends never touch the store.

Flow of ``laguna deploy PATH``::

    registry.recognise(path)            -> Frontend (or model_invalid)
    frontend.prepare(path, options)     -> Blueprint (or raises Rejected)
    frontend.deploy(blueprint, context) -> Outcome (reports go to context.reporter)

``action`` and ``undeploy`` work from the environment's stored state
(``context.stored``: the last model and the packages it used), so they need
no path and no ``-l``.

Built-in front ends are registered explicitly by :func:`default_registry`;
third parties add theirs through the entry-point group ``laguna.frontends``
(the entry point is a Frontend, or a callable returning one).
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t
from importlib import metadata
from pathlib import Path

from laguna.deploy.context import RunContext, StoredPackage, StoredState
from laguna.deploy.result import Action, Component, ErrorInfo
from laguna.packages.source import PackageSource

ENTRY_POINT_GROUP = "laguna.frontends"


@dataclasses.dataclass(frozen=True)
class PrepareOptions:
    """What the command line says about the blueprint."""

    #: ``-l`` entries: folders of packages, package folders or zips
    libs: tuple[Path, ...] = ()
    #: ``--set key=value`` pairs, values as given (strings)
    settings: t.Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: ``--name``; None when not given
    name: str | None = None
    #: the catalog of packages to draw from after ``libs`` (the API's store, the
    #: CLI's for assembly descriptors); None: the service's, else the front end's default
    catalog: PackageSource | None = None
    #: the working directory's root (set by the service), for front ends that
    #: check a blueprint against what the workdir holds before anything runs
    workdir: Path | None = None
    #: ``--inputs FILE``: input values (TOSCA: a YAML map; assembly descriptors: a
    #: JSON object); None when not given
    inputs: Path | None = None
    #: ``--cloud``: where servers come from: ``local``, ``containers``, ``ssh`` (the
    #: environment's cloud, kept for later commands: laguna.hosts.choice), or
    #: ``here`` (TOSCA: operations on this machine, no server; its default, None)
    cloud: str | None = None
    #: ``--inventory FILE``: the ssh cloud's servers
    inventory: Path | None = None
    #: the blueprint must stand on its own (``laguna validate``): what a deploy would
    #: still look for in the environment's stored packages is refused now
    complete: bool = False
    #: the keys of ``settings`` given with ``--set`` (None: all of them): a key the
    #: blueprint does not have is refused; assembly descriptors ignore undeclared
    #: ``--input`` properties, as their specification says, and check only these
    set_keys: frozenset[str] | None = None


@dataclasses.dataclass(frozen=True)
class Blueprint:
    """A blueprint a front end accepted: ready to run, nothing run yet."""

    language: str
    #: where it came from (shown to users)
    source: str
    #: the model as it will be deployed: JSON data, kept as the deployment's description
    model: t.Mapping[str, t.Any]
    #: the packages it uses; the environment keeps them for later commands
    packages: tuple[StoredPackage, ...] = ()
    #: the environment name the blueprint suggests, used when --name is not given
    name: str | None = None
    #: the front end's own data (loaded classes, parsed templates); opaque here
    payload: object = None
    #: the id the environment gets if this deploy creates it (chosen by the front
    #: end, which may have used it already: a first deploy can then run what
    #: ``prepare`` built); None: the store picks one
    environment_id: str | None = None


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a front end reports at the end of an operation."""

    ok: bool
    #: the serialised model after the run; None keeps the stored one
    model: t.Mapping[str, t.Any] | None = None
    outputs: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    #: every component after the run, with its state; None: those stored, updated
    #: by the states the run announced (``reporter.component``)
    components: t.Mapping[str, Component] | None = None
    error: ErrorInfo | None = None
    #: dry runs: the stack templates and agent plans sent, in order
    plan: t.Sequence[t.Mapping[str, t.Any]] | None = None
    #: a deploy: the packages the run used, which the environment keeps (they may
    #: come from the stored ones when no ``-l`` was given); None: the blueprint's.
    #: An action (an assembly's upgrade): the packages it keeps now; None: unchanged
    packages: t.Sequence[StoredPackage] | None = None
    #: an action: what the method returned, as JSON data
    result: t.Any = None
    #: dry runs: the ids of stored components the blueprint gives other values
    #: (they are changed, not created); those it leaves alone are not listed
    changed: t.Collection[str] = ()
    #: a watch pass (:class:`Watcher`): when the environment next needs watching
    #: (its earliest check or policy); None: nothing of it is watched
    watch_due: datetime.datetime | None = None
    #: a watch pass that changed nothing (no state, no attribute, no policy acted):
    #: it leaves no deployment in the environment's history
    quiet: bool = False


@t.runtime_checkable
class Frontend(t.Protocol):
    """A blueprint language, as the deployment layer sees it.

    ``prepare`` validates and may raise :class:`~laguna.deploy.errors.Rejected`;
    the other methods report failures in the :class:`Outcome` (``ok=False``,
    ``error.kind``) and raise ``Rejected`` only when nothing ran.
    """

    #: the language's name in results and in the store (``muranopl``, ``tosca``...)
    language: str

    def recognises(self, path: Path) -> bool:
        """Whether ``path`` is a blueprint of this language (cheap: no full parse)."""
        ...

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        """Load and validate ``path``; raise Rejected(kind, message) on any problem."""
        ...

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        """As :meth:`prepare`, for a blueprint given as data (what the API received)."""
        ...

    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        """Deploy, applying the difference from ``context.stored.model`` when there is one."""
        ...

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        """Run an action of an object of the stored model."""
        ...

    def undeploy(self, context: RunContext) -> Outcome:
        """Destroy what the stored model deployed (also after an interrupted deploy)."""
        ...


@t.runtime_checkable
class ActionLister(t.Protocol):
    """What a front end adds to :class:`Frontend` to have its actions listed by
    ``status`` and checked before they run (:mod:`laguna.deploy.actions`)."""

    def actions(self, stored: StoredState, state_dir: Path) -> t.Sequence[Action] | None:
        """The actions the objects of the stored model offer; None when the
        front end cannot tell (no check is made then). ``state_dir``: the
        environment's cloud state folder, as a run's context has it."""
        ...


@t.runtime_checkable
class StoreActionLister(ActionLister, t.Protocol):
    """An :class:`ActionLister` whose list follows from the stored model and
    packages alone (no file of the working directory, no catalog): the service
    keeps the list in the store at the end of each run, and ``laguna status``
    reads it there without loading the language (:mod:`laguna.deploy.readonly`)."""

    #: True: :meth:`actions` reads nothing but its ``stored`` argument
    actions_from_store: bool


@t.runtime_checkable
class ActionChecker(t.Protocol):
    """What a front end whose actions are named in more ways than its list shows
    (TOSCA: a node's instances, an interface by its type's name) adds to check
    an action itself before it runs, instead of :func:`laguna.deploy.actions.resolve`."""

    def check_action(self, stored: StoredState, state_dir: Path, target: str, method: str,
                     arguments: t.Mapping[str, str]) -> str:
        """The object ``target`` names, when ``method`` with ``arguments`` is an action
        it offers; else Rejected (with the actions meant under ``actions``)."""
        ...


@t.runtime_checkable
class Watcher(t.Protocol):
    """What a front end adds to :class:`Frontend` to watch what it deployed:
    ``laguna watch`` and the worker's ``watch`` job call :meth:`watch` when the
    environment's ``watch_due`` time comes, under the environment's claim, as
    any other operation (its reports and component states are recorded)."""

    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        """One pass: the checks and policies due at ``now`` (``period``, in seconds,
        replaces every check's own period); ``Outcome.watch_due`` says when the
        next pass is due, ``Outcome.quiet`` that this one changed nothing."""
        ...


@t.runtime_checkable
class Summarizer(t.Protocol):
    """What a front end adds to :class:`Frontend` to say, for ``laguna
    validate``, what a blueprint would deploy."""

    def summarize(self, blueprint: Blueprint) -> t.Sequence[tuple[str, str]]:
        """``(label, text)`` lines: the blueprint's parts, with counts, and its inputs."""
        ...


def listed(items: t.Sequence[str]) -> str:
    """Items of a summary line: ``(N) a, b``, or ``-`` for none."""
    return f"({len(items)}) {', '.join(items)}" if items else "-"


class FrontendRegistry:
    """The front ends one process knows, by language; asked in registration order."""

    def __init__(self, frontends: t.Iterable[Frontend] = ()) -> None:
        self._frontends: dict[str, Frontend] = {}
        for frontend in frontends:
            self.register(frontend)

    def register(self, frontend: Frontend) -> None:
        if frontend.language in self._frontends:
            raise ValueError(f"a front end for {frontend.language!r} is already registered")
        self._frontends[frontend.language] = frontend

    def get(self, language: str) -> Frontend | None:
        return self._frontends.get(language)

    def recognise(self, path: Path) -> Frontend | None:
        """The first front end that recognises ``path``."""
        for frontend in self._frontends.values():
            if frontend.recognises(path):
                return frontend
        return None

    @property
    def languages(self) -> list[str]:
        return list(self._frontends)

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        """Register the third-party front ends installed under ``group``."""
        for entry in metadata.entry_points(group=group):
            loaded = entry.load()
            frontend = loaded() if callable(loaded) and not isinstance(loaded, Frontend) \
                else loaded
            if not isinstance(frontend, Frontend):
                raise TypeError(f"entry point {entry.name} of {group} is not a Frontend")
            if frontend.language not in self._frontends:
                self.register(frontend)


def default_registry() -> FrontendRegistry:
    """The built-in front ends, then the installed ones (none built in yet)."""
    registry = FrontendRegistry()
    registry.load_entry_points()
    return registry
