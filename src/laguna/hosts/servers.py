"""Plain servers of one stack: what TOSCA's Compute instances and descriptors'
``local-cloud`` instances become on the environment's cloud.

A :class:`ServerStack` keeps the stack's template as the cloud holds it and
adds or removes one ``OS::Nova::Server`` (``name`` its resource name) at a
time, or provisions several in one push; the servers are the cloud's
:class:`~laguna.cloud.base.Host` objects, each reached as a
:class:`~laguna.hosts.run.Machine` through the run's agent factory.
"""

from __future__ import annotations

import typing as t

from laguna.cloud.base import Cloud, Host
from laguna.cloud.errors import CloudError
from laguna.hosts.resources import AgentFactory
from laguna.hosts.run import Machine

TEMPLATE_VERSION = "2015-10-15"
SERVER_TYPE = "OS::Nova::Server"


class ServerStack:
    """The servers of stack ``stack`` on ``cloud``."""

    def __init__(self, cloud: Cloud, agents: AgentFactory, stack: str) -> None:
        self.cloud = cloud
        self.agents = agents
        self.stack = stack

    def provision(self, names: t.Sequence[str],
                  properties: t.Mapping[str, t.Mapping[str, t.Any]] | None = None
                  ) -> dict[str, Host]:
        """The stack is servers ``names``, made in one push (others go); each host.
        ``properties`` by name: a server's own (``image``, ``flavor``)."""
        given = properties or {}
        template = {"heat_template_version": TEMPLATE_VERSION,
                    "resources": {name: server(name, **given.get(name, {}))
                                  for name in names}}
        self.cloud.push_stack(self.stack, template)
        return {name: self.host(name) for name in names}

    def ensure(self, name: str, **properties: t.Any) -> Host:
        """Server ``name``: the one there is, else a new one beside the stack's
        others (one push), with ``properties`` (``image``, ``flavor``)."""
        found = self.find(name)
        if found is not None:
            return found
        template = self.template()
        template["resources"][name] = server(name, **properties)
        self.cloud.push_stack(self.stack, template)
        return self.host(name)

    def release(self, name: str) -> None:
        """Server ``name`` goes (the stack with its last server)."""
        if self.stack not in self.cloud.stacks():
            return
        template = self.template()
        if template["resources"].pop(name, None) is None:
            return
        if template["resources"]:
            self.cloud.push_stack(self.stack, template)
        else:
            self.cloud.delete_stack(self.stack)

    def delete(self) -> None:
        """Every server of the stack goes."""
        self.cloud.delete_stack(self.stack)

    def find(self, name: str) -> Host | None:
        """The host called ``name`` (resource or server name); None if none."""
        if self.stack not in self.cloud.stacks():
            return None
        return self.cloud.find_host(self.stack, name)

    def host(self, name: str) -> Host:
        found = self.find(name)
        if found is None:
            raise CloudError(f"no server {name}", stack=self.stack, resource=name)
        return found

    def machine(self, name: str) -> Machine:
        """Server ``name`` with the transport to its agent."""
        host = self.host(name)
        return Machine(host, self.agents(host))

    def template(self) -> dict[str, t.Any]:
        """A copy of the stack's template (an empty one when there is no stack)."""
        current = self.cloud.get_template(self.stack) if self.stack in self.cloud.stacks() \
            else None
        template = dict(current or {"heat_template_version": TEMPLATE_VERSION})
        template["resources"] = dict(template.get("resources") or {})
        return template


def server(name: str, **properties: t.Any) -> dict[str, t.Any]:
    """The resource of a plain server called ``name``; ``properties`` that are
    None are left out (the cloud's defaults)."""
    given = {k: v for k, v in properties.items() if v is not None}
    return {"type": SERVER_TYPE, "properties": {"name": name, **given}}
