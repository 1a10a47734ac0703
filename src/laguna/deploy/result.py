"""The one result shape every blueprint language prints.

``deploy``, ``status`` and ``action`` (``--json``) print a :class:`Result`;
``deployments`` a list of :class:`DeploymentView`; ``environments`` a list of
:class:`EnvironmentView`. The shapes are the contract with scripts: keys are
always present, in this order, and times are UTC ISO 8601 with a ``Z``.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t

if t.TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.table import Table
    from rich.text import Text

# rich is imported where something is rendered: the JSON outputs (laguna status
# --json, laguna environments -o json) do not load it

from laguna.deploy.errors import DeployError, Rejected, error_lines, problems_of

#: ``status`` values of a result
OK = "ok"
FAILED = "failed"
REJECTED = "rejected"

#: report levels
INFO = "info"
WARNING = "warning"
ERROR = "error"
LEVELS = (INFO, WARNING, ERROR)

Json = dict[str, t.Any]


def iso(moment: datetime.datetime | None) -> str | None:
    """``moment`` as UTC ISO 8601 with a Z; naive times are taken as UTC
    (SQLite hands back what it was given without the zone)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    text = moment.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds")
    return text.replace("+00:00", "Z")


@dataclasses.dataclass(frozen=True)
class Report:
    """A status report an object made: ``object`` is the reporting object's id."""

    level: str
    text: str
    time: datetime.datetime
    object: str | None = None

    def to_json(self) -> Json:
        return {"level": self.level, "text": self.text, "time": iso(self.time),
                "object": self.object}

    def line(self, who: str | None = None) -> str:
        """The report as one line; ``who``: how to name its object (else its id)."""
        who = who or self.object
        where = f" {who}" if who else ""
        return f"{iso(self.time)} {self.level}{where}: {self.text}"


#: a component detail any language may set: what watching last found wrong with the
#: component (``{"time": ISO time, "text": ...}``); human output shows it under the
#: components table, JSON in the component
CONDITION = "condition"


@dataclasses.dataclass(frozen=True)
class Component:
    """What the progress view and ``components`` show of one deployed object."""

    type: str
    name: str
    state: str
    #: what a language adds in JSON after type, name and state (TOSCA: properties,
    #: attributes, instances); kept in the store with the component
    details: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict, compare=False)

    def to_json(self) -> Json:
        data: Json = {"type": self.type, "name": self.name, "state": self.state}
        data.update({k: v for k, v in self.details.items() if k not in data})
        return data

    def title(self) -> str:
        """How human output names the object: ``name (type)``."""
        return f"{self.name} ({self.type})"

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> Component:
        details = {k: v for k, v in data.items() if k not in ("type", "name", "state")}
        return cls(type=str(data["type"]), name=str(data["name"]), state=str(data["state"]),
                   details=details)


@dataclasses.dataclass(frozen=True)
class ErrorInfo:
    """Why an operation failed or was rejected.

    ``details`` holds what the language can say beyond the message (the
    failing object and method, a MuranoPL stack trace, script output); it is
    printed under ``error`` only when it has something.
    """

    kind: str
    message: str
    details: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> Json:
        # the code its human line shows (docs/ERRORS.md): one vocabulary in both
        data: Json = {"kind": self.kind, "code": problems_of(self)[0].code,
                      "message": self.message}
        data.update(self.details)
        return data

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> ErrorInfo:
        details = {k: v for k, v in data.items() if k not in ("kind", "code", "message")}
        return cls(kind=str(data["kind"]), message=str(data["message"]), details=details)


def shown(value: t.Any) -> str:
    """A value as the human outputs print it (``status``, ``outputs``, error
    details): text as it is, nothing (None) as ``-``, anything else as JSON;
    ``--json`` keeps the types."""
    import json

    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


#: what a dry run would do to a component
CREATE = "create"
CHANGE = "change"
DESTROY = "destroy"
_SIGNS = {CREATE: "+", CHANGE: "~", DESTROY: "-"}


@dataclasses.dataclass(frozen=True)
class Change:
    """One line of a dry run's plan: a component the deploy would create,
    change or destroy (``object``: its id)."""

    action: str
    object: str
    name: str
    type: str

    def to_json(self) -> Json:
        return {"action": self.action, "object": self.object, "name": self.name,
                "type": self.type}


def plan_changes(before: t.Mapping[str, Component], after: t.Mapping[str, Component],
                 changed: t.Collection[str] = ()) -> list[Change]:
    """What a deploy does to the components: those only ``after`` it are created,
    those only ``before`` destroyed, those in both changed when the front end
    says the blueprint changes them (``changed``), else left alone."""
    created = [Change(CREATE, k, c.name, c.type) for k, c in after.items() if k not in before]
    altered = [Change(CHANGE, k, c.name, c.type) for k, c in after.items()
               if k in before and k in changed]
    destroyed = [Change(DESTROY, k, c.name, c.type) for k, c in before.items()
                 if k not in after]
    return created + altered + destroyed


def plan_summary(changes: t.Sequence[Change]) -> Json:
    """The counts of a dry run's plan and its lines, as ``--json`` adds them."""
    return {**{action: sum(1 for c in changes if c.action == action)
               for action in (CREATE, CHANGE, DESTROY)},
            "changes": [c.to_json() for c in changes], "applied": False}


def _render_changes(changes: t.Sequence[Change]) -> t.Iterator[Text]:
    from rich.text import Text
    width = max((len(c.name) for c in changes), default=0)
    for change in changes:
        yield Text(f"{_SIGNS[change.action]} {change.action:<8}{change.name:<{width}}  "
                   f"({change.type})")
    counts = plan_summary(changes)
    yield Text(f"Plan: {counts[CREATE]} to create, {counts[CHANGE]} to change, "
               f"{counts[DESTROY]} to destroy. Nothing was applied (dry run).")


def destroyed_lines(destroyed: t.Sequence[Change]) -> t.Iterator[Text]:
    """What an undeploy destroyed, by name and type, and how many."""
    from rich.text import Text
    width = max((len(c.name) for c in destroyed), default=0)
    for change in destroyed:
        yield Text(f"destroyed {change.name:<{width}}  ({change.type})")
    yield Text(f"{len(destroyed)} destroyed")


@dataclasses.dataclass(frozen=True)
class ActionArgument:
    """An argument an action takes: ``type`` is what the language says of its
    values (a MuranoPL contract, a TOSCA type), empty when it says nothing."""

    name: str
    required: bool = False
    type: str = ""

    def to_json(self) -> Json:
        return {"name": self.name, "required": self.required, "type": self.type}

    def usage(self) -> str:
        """``name`` when it must be given, ``[name]`` when it may."""
        return self.name if self.required else f"[{self.name}]"


@dataclasses.dataclass(frozen=True)
class Action:
    """An action of a deployed object, named by ``object`` (its id),
    ``object_name`` and ``object_type``; ``open``: it also takes arguments it
    does not name (MuranoPL's KwArgs)."""

    object: str
    object_name: str
    object_type: str
    name: str
    arguments: tuple[ActionArgument, ...] = ()
    open: bool = False

    def to_json(self) -> Json:
        return {"object": self.object, "object_name": self.object_name,
                "object_type": self.object_type, "name": self.name,
                "arguments": [a.to_json() for a in self.arguments], "open": self.open}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> Action:
        return cls(object=str(data["object"]), object_name=str(data["object_name"]),
                   object_type=str(data["object_type"]), name=str(data["name"]),
                   arguments=tuple(ActionArgument(str(a["name"]), bool(a["required"]),
                                                  str(a.get("type") or ""))
                                   for a in data.get("arguments") or ()),
                   open=bool(data.get("open")))


def actions_table(actions: t.Iterable[Action], title: str | None = "actions") -> Table:
    """Actions with the object (name and type) each belongs to and its arguments
    (``[name]``: optional; ``...``: takes others too)."""
    from rich.table import Table
    from rich.text import Text
    table = Table("ACTION", "OBJECT", "TYPE", "ARGUMENTS", title=title, title_justify="left",
                  box=None, pad_edge=False, padding=(0, 1, 0, 0))
    for action in actions:
        arguments = [a.usage() for a in action.arguments] + (["..."] if action.open else [])
        # Text cells: `[loud]` is an argument, not rich markup
        table.add_row(Text(action.name), Text(action.object_name), Text(action.object_type),
                      Text(" ".join(arguments) or "-"))
    return table


@dataclasses.dataclass(frozen=True)
class Result:
    """The outcome of ``deploy``/``action``/``undeploy`` or the ``status`` of an environment."""

    name: str
    language: str | None
    status: str
    state: str | None
    outputs: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    components: t.Mapping[str, Component] = dataclasses.field(default_factory=dict)
    reports: t.Sequence[Report] = ()
    model: t.Mapping[str, t.Any] | None = None
    error: ErrorInfo | None = None
    #: dry runs only: the stack templates and agent plans, in order
    plan: t.Sequence[t.Mapping[str, t.Any]] | None = None
    #: ``status`` only, for languages that list them: the actions of the deployed objects
    actions: t.Sequence[Action] | None = None
    #: dry runs only: what the deploy would create, change and destroy
    changes: t.Sequence[Change] | None = None
    #: undeploys only: the components it destroyed
    destroyed: t.Sequence[Change] | None = None

    def to_json(self) -> Json:
        data: Json = {
            "name": self.name,
            "language": self.language,
            "status": self.status,
            "state": self.state,
            "outputs": dict(self.outputs),
            "components": {key: c.to_json() for key, c in self.components.items()},
            "reports": [r.to_json() for r in self.reports],
            "model": self.model,
            "error": self.error.to_json() if self.error is not None else None,
        }
        if self.plan is not None:
            data["plan"] = [dict(step) for step in self.plan]
        if self.actions is not None:
            data["actions"] = [a.to_json() for a in self.actions]
        if self.changes is not None:
            data["plan_summary"] = plan_summary(self.changes)
        if self.destroyed is not None:
            data["destroyed"] = [c.to_json() for c in self.destroyed]
        return data

    @property
    def exit_code(self) -> int:
        return {OK: 0, FAILED: 1}.get(self.status, 2)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text
        if self.changes is not None:
            # a dry run: what would be sent and done, never a state it did not reach
            if self.plan:
                yield from _render_plan(self.plan)
            yield from _render_changes(self.changes)
            yield from self._render_error()
            return
        head = Text(f"environment {self.name}: {self.state or 'not created'}")
        if self.status != OK:
            head.append(f" ({self.status})")
        yield head
        if self.components:
            yield components_table(self.components)
            yield from condition_lines(self.components)
        for key, value in self.outputs.items():
            yield Text(f"output {key}: {shown(value)}")
        if self.plan is not None:
            yield from _render_plan(self.plan)
        if self.actions:
            yield actions_table(self.actions)
        if self.destroyed is not None:
            yield from destroyed_lines(self.destroyed)
        yield from self._render_error()

    def _render_error(self) -> t.Iterator[Text]:
        from rich.text import Text
        if self.error is None:
            return
        for line in error_lines(self.error, Rejected.code if self.status == REJECTED
                                else DeployError.code):
            yield Text(line)
        for key, value in self.error.details.items():
            if key == "problems":
                continue
            text = shown(value)
            if "\n" in text:
                yield Text(f"{key}:")
                yield Text("\n".join(f"  {line}" for line in text.splitlines()))
            else:
                yield Text(f"{key}: {text}")


def condition_lines(components: t.Mapping[str, Component]) -> t.Iterator[Text]:
    """``ID: TIME TEXT`` for each component whose watching found something wrong."""
    from rich.text import Text
    for key, component in components.items():
        found = component.details.get(CONDITION)
        if isinstance(found, dict):
            yield Text(f"{key}: {found.get('time')} {found.get('text')}")


def components_table(components: t.Mapping[str, Component], title: str | None = None,
                     ids: bool = True) -> Table:
    """Components by id (``ids``: with it shown), with type, name and state."""
    from rich.table import Table
    columns = ("ID", "TYPE", "NAME", "STATE") if ids else ("NAME", "TYPE", "STATE")
    table = Table(*columns, title=title, title_justify="left", box=None,
                  pad_edge=False, padding=(0, 1, 0, 0))
    for key, component in components.items():
        if ids:
            table.add_row(key, component.type, component.name, component.state)
        else:
            table.add_row(component.name, component.type, component.state)
    return table


def _render_plan(plan: t.Sequence[t.Mapping[str, t.Any]]) -> t.Iterator[Text]:
    import json

    from rich.text import Text

    for number, step in enumerate(plan, 1):
        if step.get("kind") == "agent":
            yield Text(f"--- {number}: agent plan for {step.get('host')}")
            body = step.get("plan")
        elif "template" not in step and step.get("kind") not in (None, "stack"):
            # a front end's own step (TOSCA: an operation), shown whole
            yield Text(f"--- {number}: {step.get('kind')}")
            body = dict(step)
        else:
            yield Text(f"--- {number}: stack template")
            body = step.get("template")
        yield Text(json.dumps(body, indent=2, sort_keys=True))


@dataclasses.dataclass(frozen=True)
class DeploymentView:
    """One entry of an environment's history."""

    id: str
    operation: str
    state: str
    started: datetime.datetime
    finished: datetime.datetime | None
    reports: t.Sequence[Report] = ()
    action: t.Mapping[str, t.Any] | None = None
    error: ErrorInfo | None = None

    def to_json(self) -> Json:
        return {
            "id": self.id,
            "operation": self.operation,
            "state": self.state,
            "started": iso(self.started),
            "finished": iso(self.finished),
            "action": dict(self.action) if self.action is not None else None,
            "error": self.error.to_json() if self.error is not None else None,
            "reports": [r.to_json() for r in self.reports],
        }

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text
        what = self.operation
        if self.action is not None:
            what += f" {self.action.get('object')}.{self.action.get('method')}"
        yield Text(f"{self.id} {what} {self.state} {iso(self.started)} -> "
                   f"{iso(self.finished) or '...'}")
        for report in self.reports:
            yield Text(f"  {report.line()}")
        if self.error is not None:
            for line in error_lines(self.error):
                yield Text(f"  {line}")


@dataclasses.dataclass(frozen=True)
class EnvironmentView:
    """One line of ``laguna environments``."""

    id: str
    name: str
    project: str
    language: str | None
    state: str
    version: int
    created: datetime.datetime
    updated: datetime.datetime
    acquired_by: str | None = None

    def to_json(self) -> Json:
        return {"id": self.id, "name": self.name, "project": self.project,
                "language": self.language, "state": self.state, "version": self.version,
                "created": iso(self.created), "updated": iso(self.updated),
                "acquired_by": self.acquired_by}


@dataclasses.dataclass(frozen=True)
class EnvironmentList:
    """Every environment of a project (or, ``by_project``, of every project, the
    project named beside each), rendered as a table."""

    environments: t.Sequence[EnvironmentView]
    by_project: bool = False

    def to_json(self) -> list[Json]:
        return [e.to_json() for e in self.environments]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.table import Table
        from rich.text import Text
        if not self.environments:
            yield Text("no environments")
            return
        columns = ("NAME", "LANGUAGE", "STATE", "VERSION", "UPDATED")
        table = Table(*(("PROJECT",) if self.by_project else ()), *columns, box=None,
                      pad_edge=False, padding=(0, 1, 0, 0))
        for env in self.environments:
            table.add_row(*((env.project,) if self.by_project else ()), env.name,
                          env.language or "-", env.state, str(env.version),
                          iso(env.updated))
        yield table


@dataclasses.dataclass(frozen=True)
class DeploymentList:
    """An environment's history, oldest first."""

    deployments: t.Sequence[DeploymentView]

    def to_json(self) -> list[Json]:
        return [d.to_json() for d in self.deployments]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text
        if not self.deployments:
            yield Text("no deployments")
        for deployment in self.deployments:
            yield deployment
