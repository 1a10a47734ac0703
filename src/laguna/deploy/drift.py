"""Drift: what a deployment made on its hosts that is no longer as it was.

``laguna check NAME`` (``Service.check``, the API's ``GET
/v1/environments/{id}/drift``) asks the agent of every host of the
environment's stacks (the host layer's :func:`~laguna.hosts.drift.check_hosts`)
what each component's lifecycle scripts left there and what of it is gone:
processes no longer running, files missing or changed, addresses no one
listens on. The answer is a :class:`DriftReport`, one entry per component of
the environment, whatever its blueprint language.

The components the last check found drifted are kept (:class:`DriftMarks`, a
file per environment in the cloud's state folder); the next ``laguna deploy`` of the
environment hands them to its front end as ``RunContext.repair``, which runs
their lifecycle again even where the model did not change them, and forgets
them once it succeeds.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import typing as t
from pathlib import Path

from laguna.privacy import private_directory, write_private

if t.TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

    from laguna.deploy.result import Component
    from laguna.hosts.drift import HostCheck

Json = dict[str, t.Any]
FOLDER = "drift"


@dataclasses.dataclass(frozen=True)
class Difference:
    """One thing of a component that is not as its scripts left it."""

    host: str
    kind: str       # process, file, address
    what: str
    problem: str    # gone, missing, changed, not listening

    def to_json(self) -> Json:
        return {"host": self.host, "kind": self.kind, "what": self.what,
                "problem": self.problem}


@dataclasses.dataclass(frozen=True)
class ComponentDrift:
    """A component, what its scripts left on hosts (counts) and what of it drifted."""

    type: str
    name: str
    tracked: t.Mapping[str, int]
    differences: tuple[Difference, ...] = ()

    def to_json(self) -> Json:
        return {"type": self.type, "name": self.name, "tracked": dict(self.tracked),
                "drift": [difference.to_json() for difference in self.differences]}


@dataclasses.dataclass(frozen=True)
class HostState:
    """A host asked: ``error`` says why it could not answer (None: it did)."""

    host: str
    stack: str
    error: str | None = None

    def to_json(self) -> Json:
        return {"host": self.host, "stack": self.stack, "error": self.error}


@dataclasses.dataclass(frozen=True)
class DriftReport:
    """What ``laguna check`` prints (``--json``: :meth:`to_json`)."""

    name: str
    environment_id: str
    language: str | None
    checked: datetime.datetime
    components: t.Mapping[str, ComponentDrift]
    hosts: tuple[HostState, ...] = ()

    @property
    def drifted(self) -> list[str]:
        """The ids of the components with differences."""
        return [key for key, entry in self.components.items() if entry.differences]

    @property
    def unreachable(self) -> list[HostState]:
        return [host for host in self.hosts if host.error is not None]

    @property
    def clean(self) -> bool:
        return not self.drifted and not self.unreachable

    @property
    def exit_code(self) -> int:
        """0: nothing drifted; 1: drift found, or a host that could not be asked."""
        return 0 if self.clean else 1

    def to_json(self) -> Json:
        from laguna.deploy.result import iso
        return {"name": self.name, "id": self.environment_id, "language": self.language,
                "checked": iso(self.checked), "drifted": self.drifted,
                "components": {key: entry.to_json() for key, entry in self.components.items()},
                "hosts": [host.to_json() for host in self.hosts]}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text
        if not self.hosts:
            yield Text(f"environment {self.name}: no hosts to check (its scripts ran "
                       "without an agent)")
            return
        tracked = [key for key, entry in self.components.items()
                   if any(entry.tracked.values())]
        for host in self.unreachable:
            yield Text(f"host {host.host}: not checked: {host.error}")
        for key in self.drifted:
            entry = self.components[key]
            for difference in entry.differences:
                yield Text(f"{entry.name} ({entry.type}): {difference.kind} "
                           f"{difference.what} on {difference.host}: {difference.problem}")
        if self.clean:
            yield Text(f"environment {self.name}: no drift ({len(tracked)} components, "
                       f"{len(self.hosts)} hosts checked)")
        if self.drifted:
            yield Text(f"environment {self.name}: {len(self.drifted)} of {len(tracked)} "
                       "components drifted; `laguna deploy` of its blueprint repairs them")
        if self.unreachable:
            yield Text(f"environment {self.name}: {len(self.unreachable)} of "
                       f"{len(self.hosts)} hosts could not be checked")


def report(name: str, environment_id: str, language: str | None,
           components: t.Mapping[str, Component], checks: t.Sequence[HostCheck],
           checked: datetime.datetime) -> DriftReport:
    """The report of the hosts' answers, for the environment's ``components``
    (what agents track for components the environment no longer has is left out)."""
    entries: dict[str, ComponentDrift] = {}
    for key, component in components.items():
        counts = {"processes": 0, "files": 0, "addresses": 0}
        differences: list[Difference] = []
        for check in checks:
            for field, count in (check.tracked.get(key) or {}).items():
                counts[field] = counts.get(field, 0) + count
            differences += [Difference(d.host, d.kind, d.what, d.problem)
                            for d in check.differences if d.component == key]
        entries[key] = ComponentDrift(component.type, component.name, counts,
                                      tuple(differences))
    return DriftReport(name, environment_id, language, checked, entries,
                       tuple(HostState(c.host, c.stack, c.error) for c in checks))


class DriftMarks:
    """The components each environment's last check found drifted, kept under
    ``state_dir/drift/<environment id>.json`` until a deploy repairs them."""

    def __init__(self, state_dir: Path) -> None:
        self.folder = state_dir / FOLDER

    def get(self, environment_id: str) -> frozenset[str]:
        try:
            data = json.loads((self.folder / f"{environment_id}.json").read_text("utf-8"))
        except (OSError, ValueError):
            return frozenset()
        return frozenset(str(key) for key in data.get("components") or ())

    def keep(self, environment_id: str, components: t.Iterable[str]) -> None:
        """The last check's findings: ``components`` are marked, no others."""
        marked = sorted(set(components))
        if not marked:
            self.clear(environment_id)
            return
        private_directory(self.folder)
        path = self.folder / f"{environment_id}.json"
        partial = path.with_suffix(".partial")
        write_private(partial, json.dumps({"components": marked}).encode("utf-8"))
        partial.replace(path)

    def clear(self, environment_id: str) -> None:
        (self.folder / f"{environment_id}.json").unlink(missing_ok=True)
