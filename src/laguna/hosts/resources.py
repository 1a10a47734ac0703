"""What one operation on an environment uses to reach its servers.

:class:`Resources` holds the environment's :class:`~laguna.cloud.base.Cloud`
and an :data:`AgentFactory`: the transport to the agent of a host the cloud
answered (:func:`agent_client` for real runs, :func:`recording_agent` for dry
runs). The deployment layer hands them to the front ends unchanged.

The cloud is the environment's default one; a front end that places some
servers elsewhere (TOSCA's per-node locations) asks :meth:`Resources.on` for
the cloud of that kind, opened when first asked for and configured as the
environment keeps it (the ssh cloud's inventory).
"""

from __future__ import annotations

import dataclasses
import typing as t

# the cloud's modules only when used: the deployment layer imports this one
if t.TYPE_CHECKING:
    from laguna.agent.transport import AgentTransport
    from laguna.cloud.base import Cloud, Host

#: the transport to the agent of a host
AgentFactory = t.Callable[["Host"], "AgentTransport"]
#: the cloud of a kind (``local``, ``containers``, ``ssh``); CloudUnavailable or
#: CloudError when it cannot be opened here
CloudOpener = t.Callable[[str], "Cloud"]


@dataclasses.dataclass(frozen=True)
class Resources:
    """The cloud and agents one operation uses (None where nothing is wired in:
    front ends that need none, and tests)."""

    cloud: Cloud | None = None
    agents: AgentFactory | None = None
    #: the cloud's kind (``local``, ``containers``, ``ssh``; ``recording`` for dry
    #: runs), for messages; None when unknown
    kind: str | None = None
    #: the environment's clouds of other kinds, opened when first asked for;
    #: None: only ``cloud`` is wired in
    others: CloudOpener | None = dataclasses.field(default=None, compare=False)

    def on(self, kind: str | None) -> Cloud | None:
        """The cloud of ``kind`` (None, or the default's kind: ``cloud``); None when
        no cloud of that kind is wired in. CloudUnavailable or CloudError when it
        cannot be opened."""
        if kind is None or kind == self.kind:
            return self.cloud
        return self.others(kind) if self.others is not None else None


def agent_client(host: Host) -> AgentTransport:
    """An :class:`~laguna.agent.AgentClient` to ``host``'s agent (HTTP, signed with
    its secret); HostUnavailable when the host has none running."""
    if not host.agent_url or not host.agent_secret:
        from laguna.hosts.errors import HostUnavailable
        raise HostUnavailable(f"the agent of {host.server_name} is not running",
                              stack=host.stack, resource=host.name)
    from laguna.agent.client import AgentClient
    return AgentClient(host.agent_url, host.agent_secret)


def recording_agent(host: Host) -> AgentTransport:
    """A :class:`~laguna.agent.RecordingAgent` standing for ``host``'s agent (dry runs)."""
    from laguna.agent.transport import RecordingAgent
    return RecordingAgent(host.server_name)


#: a step of a cloud told as it happens (an image built, a container started):
#: the run's progress, like every other step
Progress = t.Callable[[str], None]
