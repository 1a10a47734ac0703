"""The core library's :class:`~laguna.corelib.services.DeploymentServices` over
a :class:`laguna.cloud.Cloud` and the hosts' agents.

- stacks go to the cloud as they are; a :class:`~laguna.cloud.CloudError`
  becomes :class:`CloudFailure` (a MuranoPL exception a class may catch);
- a plan for host key ``e<environment>-h<instance>`` goes to the agent of the
  server whose user data carries that key (LinuxMuranoInstance writes it into
  the agent configuration), through the run's agent factory (the host layer's
  :data:`~laguna.hosts.resources.AgentFactory`: an
  :class:`~laguna.agent.AgentClient` on a real cloud, a recording agent in dry
  runs); no answer in time becomes :class:`AgentTimeoutError`;
- reports go to the deployment's reporter; tracked servers and applications
  become components;
- with ``plan`` (dry runs) each template pushed and each plan sent is
  appended, in order, as the result's ``plan`` entries.
"""

from __future__ import annotations

import threading
import typing as t

from laguna.agent.errors import AgentClientError, AgentPlanRejected, AgentTimeout
from laguna.cloud.base import Host
from laguna.cloud.errors import CloudError, StackNotFound
from laguna.cloud.stacks import copy_data, share_copy
from laguna.corelib.services import RecordingServices
from laguna.deploy.context import Reporter
from laguna.deploy.result import Component
from laguna.hosts.drift import current_track
from laguna.hosts.errors import HostUnavailable
from laguna.hosts.resources import AgentFactory
from laguna.lang.errors import DslError

#: bound on a plan's wait when the MuranoPL code gives none (the original's 3600 s is long)
DEFAULT_AGENT_TIMEOUT = 600.0


class CloudFailure(DslError):
    """The cloud refused or failed a stack operation."""

    code = "LAG-E1021"
    murano_name = "heatclient.exc.HTTPException"

    def __init__(self, error: CloudError) -> None:
        super().__init__(str(error))
        self.resource = error.resource
        self.stack = error.stack
        self.path = error.path


class AgentTimeoutError(DslError):
    """An agent did not answer a plan within its timeout."""

    code = "LAG-E1022"
    murano_name = "murano.common.exceptions.TimeoutException"

    def __init__(self, message: str, host: str) -> None:
        super().__init__(message)
        self.host = host


class AgentUnavailable(DslError):
    """No agent can take a plan (no such server, or it cannot be reached)."""

    code = "LAG-E1023"
    murano_name = "murano.engine.system.agent.AgentException"


class CloudServices:
    """DeploymentServices of one run over ``cloud`` and ``agents``."""

    def __init__(self, cloud: t.Any, agents: AgentFactory, reporter: Reporter,
                 environment_id: str, environment_name: str, *,
                 agent_timeout: float = DEFAULT_AGENT_TIMEOUT,
                 plan: list[dict[str, t.Any]] | None = None,
                 components: t.Mapping[str, Component] | None = None,
                 name_of: t.Callable[[str], str | None] = lambda object_id: None) -> None:
        self.cloud = cloud
        self.agents = agents
        self.reporter = reporter
        self.environment_id = environment_id
        self.environment_name = environment_name
        self.agent_timeout = agent_timeout
        self.plan = plan
        self.components: dict[str, Component] = dict(components or {})
        #: the name a component shows (the object's ``name``), None if unknown
        self.name_of = name_of
        #: every stack this run pushed to
        self.stacks: set[str] = set()
        self._transports: dict[tuple[t.Any, ...], t.Any] = {}
        self._transports_lock = threading.Lock()
        #: stack -> its hosts as this run's last push left them (the environment is
        #: held by this run, so nothing else pushes to its stacks meanwhile); kept
        #: while a push runs, as other threads' agents still live on those hosts
        self._hosts: dict[str, tuple[t.Any, ...]] = {}
        #: agent (host key) -> the name of the server it runs on, for each plan
        #: sent (a script failure names the host of its plan)
        self.agent_hosts: dict[str, str] = {}
        self._network = RecordingServices(environment_id, environment_name)
        #: stack -> the template its last plan entry holds
        self._planned: dict[str, dict[str, t.Any]] = {}

    # -- orchestration ------------------------------------------------------------------
    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        if self.plan is not None:
            # the parts equal to the stack's last planned template are shared with it
            last = self._planned.get(name)
            planned = share_copy(template, last)
            self._planned[name] = planned
            self.plan.append({"kind": "stack", "stack": name, "template": planned})
        self.stacks.add(name)
        try:
            result = self.cloud.push_stack(name, template, parameters or None)
        except CloudError as error:
            self._hosts.pop(name, None)     # the cloud's state is what it says now
            raise CloudFailure(error) from error
        self._hosts[name] = tuple(result.hosts)
        return dict(result.outputs)

    def get_template(self, name: str) -> dict[str, t.Any] | None:
        template = self.cloud.get_template(name)
        return t.cast("dict[str, t.Any] | None", template)

    def delete_stack(self, name: str) -> None:
        self._hosts.pop(name, None)
        try:
            self.cloud.delete_stack(name)
        except CloudError as error:
            raise CloudFailure(error) from error

    def stack_outputs(self, name: str) -> dict[str, t.Any]:
        try:
            return dict(self.cloud.stack_outputs(name))
        except StackNotFound:
            return {}

    # -- agents --------------------------------------------------------------------------
    def find_host(self, host_key: str, stack: str | None = None,
                  server: str | None = None) -> t.Any:
        """The server the Instance put at ``server`` of ``stack``, else the one
        whose user data names ``host_key``; None if there is none."""
        if stack is not None and server is not None:
            # the hosts the last push answered, else the cloud's (which reads its state)
            host = next((h for h in self._hosts.get(stack, ())
                         if server in (h.name, h.server_name)), None)
            if host is None:
                try:
                    host = self.cloud.find_host(stack, server)
                except StackNotFound:
                    host = None
            if host is not None:
                return host
        for name in self.cloud.stacks():
            for host in self.cloud.hosts(name):
                if host.user_data and host_key in host.user_data:
                    return host
        return None

    def agent_execute(self, host_key: str, plan: dict[str, t.Any], timeout: float | None,
                      *, stack: str | None = None,
                      server: str | None = None) -> dict[str, t.Any] | None:
        host = self.find_host(host_key, stack, server)
        if host is None and self.plan is not None:
            # A dry run of a redeploy: the server exists in the real cloud, which a
            # recording cloud does not hold; the plan is recorded for it all the same.
            name = server or host_key
            host = Host(stack=stack or "", name=name, server_name=name, addresses=(),
                        agent_url=None, root=None, user_data=None, metadata={},
                        resource_id="")
        if host is None:
            raise AgentUnavailable(f"no server of the environment runs the agent {host_key} "
                                   "(was the instance deployed?)")
        name = host.server_name
        self.agent_hosts[host_key] = name
        if self.plan is not None:
            self.plan.append({"kind": "agent", "host": name, "plan": copy_data(plan)})
        wait = timeout != 0
        seconds = self.agent_timeout if timeout is None else min(float(timeout) or
                                                                 self.agent_timeout,
                                                                 self.agent_timeout)
        transport = self._transport(host)
        try:
            # what the plan leaves on the host is the application's being deployed
            result = transport.execute(plan, seconds, track=current_track())
        except AgentTimeout:
            raise AgentTimeoutError(
                f"the agent of {name} gave no result for plan {plan.get('Name') or plan.get('ID')!r} "
                f"within {seconds:g} seconds", name) from None
        except AgentPlanRejected as error:
            raise AgentUnavailable(f"the agent of {name} refused plan "
                                   f"{plan.get('Name')!r}: {error.message}") from None
        except AgentClientError as error:
            raise AgentUnavailable(f"the agent of {name}: {error}") from None
        return t.cast("dict[str, t.Any]", result) if wait else None

    def _transport(self, host: t.Any) -> t.Any:
        # the secret too: a host rebuilt at the same address has a new one
        key = (host.stack, host.name, host.agent_url, host.agent_secret)
        transport = self._transports.get(key)
        if transport is None:
            with self._transports_lock:     # applications deploy in several threads
                transport = self._transports.get(key)
                if transport is None:
                    try:
                        transport = self._transports[key] = self.agents(host)
                    except HostUnavailable as error:
                        raise AgentUnavailable(error.message) from None
        return transport

    def close(self) -> None:
        with self._transports_lock:
            transports = list(self._transports.values())
            self._transports.clear()
        for transport in transports:
            close = getattr(transport, "close", None)
            if close is not None:
                close()

    # -- networking ------------------------------------------------------------------------
    def network_info(self, query: str, *args: t.Any) -> t.Any:
        """The local cloud has no Neutron to ask: the fixed answers of a recorded
        run (a default router, 10.0.0.0/24, security groups available); the
        cloud records the networks, and hosts get real addresses of their own."""
        return self._network.network_info(query, *args)

    # -- notifications ---------------------------------------------------------------------
    def report(self, object_id: str | None, level: str, text: str,
               details: t.Any = None) -> None:
        self.reporter.report("error" if level == "error" else
                             "warning" if level == "warning" else "info", text, object_id)

    def notify(self, event: str, data: dict[str, t.Any]) -> None:
        instance = str(data.get("instance"))
        if event == "murano.track_instance":
            kind = str(data.get("type_name") or data.get("instance_type") or "")
            previous = self.components.get(instance)
            name = self.name_of(instance) or (previous.name if previous else None)
            component = Component(type=kind, name=name or str(
                data.get("type_title") or kind.rsplit(".", 1)[-1]), state="deployed")
            self.components[instance] = component
            self.reporter.component(instance, component.type, component.name, "deployed")
            unit_count = data.get("unit_count")
            self.reporter.track(
                instance, "application" if data.get("instance_type") == "application"
                else "server", kind,
                None if data.get("type_title") is None else str(data["type_title"]),
                unit_count if isinstance(unit_count, int) else None)
        elif event == "murano.untrack_instance":
            self.components.pop(instance, None)
            self.reporter.untrack(instance)
