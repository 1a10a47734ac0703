"""io.murano.system.Agent and io.murano.system.AgentListener.

``new(sys:Agent, host => <Instance>)``: the agent of one server. ``call`` and
``send`` build an execution plan from a template and a Resources object
(:class:`PlanBuilder`, the original engine's rules) and hand it to the run's
services under the server's host key (``e<environment id>-h<instance id>``,
see :mod:`laguna.corelib.services`); ``callRaw`` and ``sendRaw`` take a built
plan. A result is read as the original read it
(:func:`laguna.agent.reading.result_value`): the v2 ``Body``, the last v1
command's result, or an ``AgentException`` carrying the agent's error.

Plan building (``buildExecutionPlan``) is the host layer's, by the original
engine's rules (:class:`laguna.hosts.plans.PlanBuilder`, the one builder of
plans), with the files of the Resources object's package
(``Resources/scripts/``).
"""

from __future__ import annotations

import typing as t

from laguna.agent.errors import AgentResultError
from laguna.agent.reading import result_value
from laguna.corelib.binding import prop, state
from laguna.corelib.declare import REQUIRED, native
from laguna.corelib.resources import PackageFiles, package_files
from laguna.corelib.services import host_key, services_of
from laguna.hosts.plans import PlanBuilder
from laguna.lang import dispatch
from laguna.lang.errors import DslError
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

AGENT_CLASS = "io.murano.system.Agent"
LISTENER_CLASS = "io.murano.system.AgentListener"
ENVIRONMENT_CLASS = "io.murano.Environment"
DEFAULT_TIMEOUT = 3600   # the original engine's agent_timeout


class AgentException(DslError):
    """The agent reported a failed plan; ``extra`` is the original's exception data.

    ``agent`` (the host key of the agent's queue) and ``plan_name`` (the plan's
    name) say where the failed plan went: a deployment's error names the host,
    and with applications deployed in parallel the last plan sent may be
    another application's."""

    code = "LAG-E0523"
    murano_name = "murano.engine.system.agent.AgentException"

    def __init__(self, info: dict[str, t.Any], agent: str | None = None,
                 plan_name: str | None = None) -> None:
        self.extra = info
        self.agent = agent
        self.plan_name = plan_name
        super().__init__(_message(info))


#: how much of a failed script's stderr its exception's message carries (the end)
STDERR_SHOWN = 2000


def _message(info: dict[str, t.Any]) -> str:
    """What MuranoPL code reads as ``$e.message``: the agent's message, with the
    script's exit code and the end of its stderr when the agent gave them. The
    original engine's message was its whole exception data (a dict's text, stderr
    included); io.murano.applications reports it ("Unable to install X on Y due
    to ..."), and without the stderr the cause was lost."""
    text = str(info.get("message") or "the agent reported an error")
    details = info.get("details")
    if isinstance(details, dict) and details.get("exitCode") is not None:
        text += f" (exit code {details['exitCode']})"
        stderr = str(details.get("stderr") or "").strip()
        if stderr:
            text += ": " + (stderr if len(stderr) <= STDERR_SHOWN
                            else "…" + stderr[-STDERR_SHOWN:])
    return text


def find_owner(obj: MuranoObject | None, class_name: str) -> MuranoObject | None:
    """The nearest object up ``obj``'s owner chain (``obj`` included) of ``class_name``."""
    while obj is not None:
        obj = obj.real_this
        if any(cls.name == class_name for cls in obj.type.ancestry):
            return obj
        obj = obj.owner
    return None


class AgentState:
    """The host-side state of one Agent object."""

    def __init__(self, this: MuranoObject) -> None:
        host = prop(this, "host")
        host_id = host.id if isinstance(host, MuranoObject) else str(host)
        environment = find_owner(host if isinstance(host, MuranoObject) else None,
                                 ENVIRONMENT_CLASS)
        self.queue = host_key(environment.id if environment is not None else "", host_id)
        self.builder = PlanBuilder()


def _location(executor: t.Any, host: t.Any) -> tuple[str | None, str | None]:
    """The stack and resource name of the server an agent belongs to."""
    if not isinstance(host, MuranoObject):
        return None, None
    server = host.real_this.values.get("name")
    try:
        region = executor.call(host, "getRegion")
        stack = prop(region, "stack") if isinstance(region, MuranoObject) else None
        stack_name = prop(stack, "name") if isinstance(stack, MuranoObject) else None
    except Exception:   # a host that is no cloud resource has no stack
        stack_name = None
    return stack_name, server


def _run(executor: t.Any, this: MuranoObject, agent: AgentState, plan: dict[str, t.Any],
         timeout: t.Any, wait: bool) -> t.Any:
    seconds = (DEFAULT_TIMEOUT if timeout is None else float(timeout)) if wait else 0
    stack, server = _location(executor, prop(this, "host"))
    result = services_of(executor).agent_execute(agent.queue, plan, seconds,
                                                 stack=stack, server=server)
    if not wait:
        return None
    try:
        return result_value(result)
    except AgentResultError as error:
        raise AgentException(error.info, agent.queue, plan.get("Name")) from None


def bind_agent(cls: MuranoClass) -> None:
    def agent_of(this: MuranoObject) -> AgentState:
        return state(this, AgentState)

    def build(executor: t.Any, this: MuranoObject, template: t.Any,
              resources: t.Any) -> dict[str, t.Any]:
        owner = resources.type if isinstance(resources, MuranoObject) else None
        files = (package_files(executor, _resources_package(resources))
                 if owner is not None else None)
        if files is None:
            raise DslError("an execution plan needs a Resources object to read files from")
        return agent_of(this).builder.build(dispatch.thaw(template), files)

    def call(executor: t.Any, this: MuranoObject, frame: t.Any, template: t.Any,
             resources: t.Any, timeout: t.Any = None) -> t.Any:
        plan = build(executor, this, template, resources)
        return _run(executor, this, agent_of(this), plan, timeout, True)

    def send(executor: t.Any, this: MuranoObject, frame: t.Any, template: t.Any,
             resources: t.Any) -> None:
        plan = build(executor, this, template, resources)
        _run(executor, this, agent_of(this), plan, None, False)

    def call_raw(executor: t.Any, this: MuranoObject, frame: t.Any, plan: t.Any,
                 timeout: t.Any = None) -> t.Any:
        return _run(executor, this, agent_of(this), dispatch.thaw(plan), timeout, True)

    def send_raw(executor: t.Any, this: MuranoObject, frame: t.Any, plan: t.Any) -> None:
        _run(executor, this, agent_of(this), dispatch.thaw(plan), None, False)

    def wait_ready(executor: t.Any, this: MuranoObject, frame: t.Any,
                   timeout: t.Any = 100) -> None:
        plan = {"FormatVersion": "2.0.0", "Body": "return", "Scripts": {}}
        agent = agent_of(this)
        plan = agent.builder.build(plan, PackageFiles(_no_files, "(none)"))
        _run(executor, this, agent, plan, timeout, True)

    def is_ready(executor: t.Any, this: MuranoObject, frame: t.Any,
                 timeout: t.Any = 100) -> bool:
        try:
            wait_ready(executor, this, frame, timeout)
        except AgentException:
            return False
        return True

    def build_execution_plan(executor: t.Any, this: MuranoObject, frame: t.Any,
                             template: t.Any, resources: t.Any) -> dict[str, t.Any]:
        return build(executor, this, template, resources)

    native(cls, "call", call, [("template", REQUIRED), ("resources", REQUIRED), ("timeout", None)])
    native(cls, "send", send, [("template", REQUIRED), ("resources", REQUIRED)])
    native(cls, "callRaw", call_raw, [("plan", REQUIRED), ("timeout", None)])
    native(cls, "sendRaw", send_raw, [("plan", REQUIRED)])
    native(cls, "isReady", is_ready, [("timeout", 100)])
    native(cls, "waitReady", wait_ready, [("timeout", 100)])
    native(cls, "prepare", lambda executor, this, frame: None, [])
    native(cls, "queueName", lambda executor, this, frame: agent_of(this).queue, [])
    native(cls, "signingKey", lambda executor, this, frame, linePrefix="": "",
           [("linePrefix", "")])
    native(cls, "buildExecutionPlan", build_execution_plan,
           [("template", REQUIRED), ("resources", REQUIRED)])


def _no_files(path: str) -> bytes:
    raise FileNotFoundError(path)


def _resources_package(resources: MuranoObject) -> MuranoClass:
    """The class whose package a Resources object reads: the one that created it."""
    for part in resources.parts_created():
        if isinstance(part.extension, MuranoClass):
            return part.extension
    return resources.type


def bind_listener(cls: MuranoClass) -> None:
    """AgentListener: replies come back through the services, so the listener only
    names its queue; start, stop, subscribe and unsubscribe do nothing."""
    def queue_name(executor: t.Any, this: MuranoObject, frame: t.Any) -> str:
        return f"-execution-results-{str(prop(this, 'name', '')).lower()}"

    native(cls, "queueName", queue_name, [])
    for name, args in (("start", []), ("stop", []),
                       ("subscribe", [("messageId", REQUIRED), ("event", REQUIRED)]),
                       ("unsubscribe", [("messageId", REQUIRED)])):
        native(cls, name, lambda executor, this, frame, **values: None, args)

