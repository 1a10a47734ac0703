"""Whose plans these are, and what of theirs is still on the hosts (drift).

Front ends say which component they are working on (:func:`working_on`, a
context variable, so threads of one run keep theirs apart); every plan sent
meanwhile through :class:`~laguna.hosts.run.Machine` (or
:func:`current_track`) carries it to the agent, which records what the plan
leaves on the host as that component's: processes still running, files written,
addresses listened on (:mod:`laguna.agent.tracking`).

:func:`check_hosts` asks the agent of every host of some stacks what of that is
no longer as it was, as :class:`HostCheck` values; :func:`check_held` does it
for stacks on several clouds, each host through its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import typing as t

from laguna.agent.transport import Track
from laguna.errors import LagunaError

if t.TYPE_CHECKING:
    from laguna.cloud.base import Cloud
    from laguna.hosts.choice import CloudChoice
    from laguna.hosts.resources import AgentFactory, Resources

_component: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "laguna_component", default=None)


@contextlib.contextmanager
def working_on(component: str | None) -> t.Iterator[None]:
    """Plans sent inside are ``component``'s (None: no one's)."""
    token = _component.set(component)
    try:
        yield
    finally:
        _component.reset(token)


def current_track(files: t.Sequence[str] = ()) -> Track | None:
    """The :class:`~laguna.agent.Track` of a plan sent now (with the paths it
    writes, ``files``); None outside :func:`working_on`."""
    component = _component.get()
    return Track(component, tuple(files)) if component is not None else None


@dataclasses.dataclass(frozen=True)
class Difference:
    """One thing a component's plans left on a host that is not as they left it."""

    component: str
    host: str
    kind: str       # process, file, address
    what: str       # "sleep 300 (pid 42)", "/srv/web.conf", "127.0.0.1:8080"
    problem: str    # gone, missing, changed, not listening


@dataclasses.dataclass(frozen=True)
class HostCheck:
    """What the agent of one host answered."""

    host: str
    stack: str
    #: component -> how many processes, files and addresses its plans left here
    tracked: t.Mapping[str, t.Mapping[str, int]] = dataclasses.field(default_factory=dict)
    differences: tuple[Difference, ...] = ()
    #: why the host could not be asked (its agent is down...); None when it answered
    error: str | None = None


def check_hosts(cloud: Cloud, agents: AgentFactory,
                stacks: t.Sequence[str]) -> list[HostCheck]:
    """Ask the agent of every host of ``stacks`` (those the cloud holds) for its drift."""
    held = set(cloud.stacks())
    checks = []
    for stack in stacks:
        if stack not in held:
            continue
        for host in cloud.hosts(stack):
            name = host.server_name
            try:
                transport = agents(host)
                try:
                    answer = transport.drift()
                finally:
                    close = getattr(transport, "close", None)
                    if close is not None:
                        close()
            except LagunaError as error:    # no agent running, unreachable, forged
                checks.append(HostCheck(name, stack, error=str(error)))
                continue
            checks.append(_read(name, stack, answer))
    return checks


def check_held(resources: Resources, choice: CloudChoice) -> list[HostCheck]:
    """:func:`check_hosts` for every stack the environment's ``choice`` records: its
    own on ``resources.cloud`` (the cloud made from that choice), each other through
    the cloud of its kind; a cloud that cannot be opened leaves each of its stacks
    unchecked, saying why."""
    if resources.cloud is None or resources.agents is None:
        return []
    checks = check_hosts(resources.cloud, resources.agents, choice.stacks)
    elsewhere: dict[str, list[str]] = {}
    for stack, kind in choice.elsewhere:
        elsewhere.setdefault(kind, []).append(stack)
    for kind, stacks in elsewhere.items():
        try:
            cloud = resources.on(kind)
        except LagunaError as error:
            checks += [HostCheck(stack, stack, error=f"the {kind} cloud: {error}")
                       for stack in stacks]
            continue
        if cloud is not None:
            checks += check_hosts(cloud, resources.agents, stacks)
    return checks


def _read(host: str, stack: str, answer: t.Mapping[str, t.Any]) -> HostCheck:
    tracked: dict[str, dict[str, int]] = {}
    differences = []
    for component, entry in answer.items():
        if not isinstance(entry, dict):
            continue
        counts = entry.get("tracked") or {}
        tracked[str(component)] = {key: int(counts.get(key) or 0)
                                   for key in ("processes", "files", "addresses")}
        for item in entry.get("drift") or ():
            differences.append(Difference(str(component), host, str(item.get("kind")),
                                          str(item.get("what")), str(item.get("problem"))))
    return HostCheck(host, stack, tracked, tuple(differences))
