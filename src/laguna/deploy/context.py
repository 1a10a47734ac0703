"""What a front end gets to run an operation: the environment's stored state,
the cloud and agents, a reporter, the dry-run flag and the timeouts.

The cloud and the agent factory are the host layer's
:class:`~laguna.hosts.Resources`: the deployment layer does not use them, it
only hands them from the :class:`ResourcesFactory` (the environment's cloud
for real runs, a recording cloud for dry runs:
:func:`laguna.hosts.factory.host_resources`) to the front end.
"""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path

from laguna.deploy.result import Component
from laguna.hosts.choice import CloudRequest
from laguna.hosts.resources import AgentFactory, Resources
from laguna.packages.source import PackageSource

if t.TYPE_CHECKING:
    from laguna.cloud.base import Cloud

__all__ = ["CloudRequest", "Reporter", "Resources", "ResourcesFactory", "RunContext",
           "StoredPackage", "StoredState", "Timeouts", "no_resources"]


@dataclasses.dataclass(frozen=True)
class StoredPackage:
    """A package an environment uses, kept whole so later commands need no ``-l``."""

    name: str
    version: str
    archive: bytes


@dataclasses.dataclass(frozen=True)
class StoredState:
    """What the store holds of an environment before the operation."""

    environment_id: str
    name: str
    project: str
    #: the serialised model after the last run; None when nothing was deployed
    model: t.Mapping[str, t.Any] | None = None
    packages: tuple[StoredPackage, ...] = ()
    outputs: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    components: t.Mapping[str, Component] = dataclasses.field(default_factory=dict)


class Reporter(t.Protocol):
    """Where a front end sends what happens; each call is stored before it returns."""

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        """A status report (``info``, ``warning`` or ``error``) made by an object."""
        ...

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        """A deployed object's state changed (``deploying``, ``deployed``, ``failed``...)."""
        ...

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        """An object begins to count in the usage statistics: ``kind`` is
        ``application`` or ``server``; tracking it again updates ``unit_count``."""
        ...

    def untrack(self, object_id: str) -> None:
        """A tracked object is gone: it stops counting (its time is kept)."""
        ...


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """Bounds, in seconds, a front end applies to cloud and agent calls."""

    stack: float = 600.0
    agent: float = 600.0


class ResourcesFactory(t.Protocol):
    """Builds the cloud and agents for an environment: real ones under
    ``state_dir`` or, for a dry run, recording ones that keep nothing.
    ``cloud`` is what the command asked for (``--cloud``, ``--inventory``); it is
    passed only when it asks for something, so factories that serve one cloud
    may leave it out."""

    def __call__(self, state_dir: Path, environment_id: str, dry_run: bool,
                 cloud: CloudRequest | None = None) -> Resources:
        ...


def no_resources(state_dir: Path, environment_id: str, dry_run: bool,
                 cloud: CloudRequest | None = None) -> Resources:
    """No cloud and no agents: for front ends that need none, and tests."""
    return Resources()


@dataclasses.dataclass(frozen=True)
class RunContext:
    """Everything one run of a front end may use."""

    stored: StoredState
    reporter: Reporter
    resources: Resources
    #: the environment's cloud state folder (hosts, agents) in the working directory
    state_dir: Path
    dry_run: bool = False
    timeouts: Timeouts = Timeouts()
    #: the catalog store, for front ends that take packages from it after the
    #: environment's own (assembly descriptors); None when there is none
    catalog: PackageSource | None = None
    #: components the last ``laguna check`` found drifted (deploys only): their
    #: lifecycle runs again even where the blueprint did not change them
    repair: frozenset[str] = frozenset()

    @property
    def cloud(self) -> Cloud | None:
        return self.resources.cloud

    @property
    def agents(self) -> AgentFactory | None:
        return self.resources.agents
