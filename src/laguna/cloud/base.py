"""The interface between a deployment engine and a cloud.

A :class:`Cloud` realises HOT stacks. The engine pushes the whole template of
an environment's stack each time it changes (as Murano's ``HeatStack.push``
did); the cloud creates what is new, removes what is gone, updates what
changed, and answers with the stack's outputs and its hosts. A host is a
server resource with the address its services bind to and the URL of the
agent that runs execution plans on it.

Drivers: :mod:`laguna.cloud.local` (servers are hosts on this machine),
:mod:`laguna.cloud.containers` (servers are podman containers),
:mod:`laguna.cloud.recording` (dry runs). A Heat driver implements the same
protocol with Heat's API and agents reached over a message broker.
"""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path

from laguna.cloud.errors import (CloudError, HostError, IsolationError, StackNotFound,
                                 TemplateError)
from laguna.cloud.hot import Diff
from laguna.cloud.offers import Offer

__all__ = ["Cloud", "CloudError", "Host", "HostError", "IsolationError", "Offer",
           "StackNotFound", "StackResult", "TemplateError"]


@dataclasses.dataclass(frozen=True, slots=True)
class Host:
    """A server of a stack, as the engine sees it."""

    stack: str
    name: str                       # the resource name in the template
    server_name: str                # the server's ``name`` property (or the resource name)
    addresses: tuple[str, ...]      # the first is the one its services bind to
    agent_url: str | None           # None while the agent is not ready (dry runs)
    root: Path | None               # the host's own directory (its HOME); None if remote
    user_data: str | None
    metadata: t.Mapping[str, t.Any]
    resource_id: str
    #: signs requests to the agent and checks its answers; None where no agent
    #: runs (dry runs); kept out of ``repr`` so that it never reaches a log
    agent_secret: str | None = dataclasses.field(default=None, repr=False)

    @property
    def address(self) -> str:
        return self.addresses[0]


@dataclasses.dataclass(frozen=True, slots=True)
class StackResult:
    """The outcome of a push: outputs, hosts and what changed."""

    stack: str
    outputs: t.Mapping[str, t.Any]
    hosts: tuple[Host, ...]
    diff: Diff


@t.runtime_checkable
class Cloud(t.Protocol):
    """What the engine needs of a cloud. All methods are safe to call again."""

    def push_stack(self, stack: str, template: t.Mapping[str, t.Any],
                   parameters: t.Mapping[str, t.Any] | None = None,
                   files: t.Mapping[str, str] | None = None) -> StackResult:
        """Create or update a stack so that it matches ``template``."""
        ...

    def get_template(self, stack: str) -> dict[str, t.Any] | None:
        """The last template pushed successfully, or None if there is no stack."""
        ...

    def stack_outputs(self, stack: str) -> dict[str, t.Any]:
        """The outputs of the last successful push; StackNotFound if none."""
        ...

    def delete_stack(self, stack: str) -> None:
        """Remove every resource of a stack; a missing stack is not an error."""
        ...

    def stacks(self) -> list[str]:
        """The names of the stacks this cloud holds."""
        ...

    def hosts(self, stack: str) -> list[Host]:
        """The servers of a stack, in creation order."""
        ...

    def find_host(self, stack: str, name: str) -> Host | None:
        """A host by resource name or by server name."""
        ...

    def offer(self) -> Offer:
        """What a server of this cloud may name as its flavor, image, key pair,
        availability zone and network (the forms' choices), defaults first."""
        ...
