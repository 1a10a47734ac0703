"""What the core library's native classes need from the world outside MuranoPL.

The natives of io.murano (HeatStack, Agent, StatusReporter, NetworkExplorer ...)
never talk to a cloud or an agent themselves: they call the
:class:`DeploymentServices` of the executor they run in, which host code
attaches with :func:`attach` (the executor's ``host_services`` attribute). The
deployment layer provides a real implementation; this module ships two:

- :class:`NoServices` (the default, used by ``laguna test``): every cloud or
  agent call raises :class:`ServiceUnavailable` naming the MuranoPL method that
  needed it;
- :class:`RecordingServices` (dry runs and tests): records every stack template,
  deletion, execution plan and report in order, invents outputs for what a
  template declares (ids, addresses from 192.0.2.0/24, floating IPs from
  198.51.100.0/24) and answers every plan with an empty success.

Servers are named towards the agent by a *host key*, derived as the original
engine derived a server's agent queue: ``e<environment id>-h<instance id>``,
lower-cased (:func:`host_key`). The Instance classes write that key into the
agent configuration they put in the server's user data, so a cloud maps the
key to the server it started with that user data.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import typing as t

from laguna.agent.results import ResultFactory
from laguna.lang.errors import DslError

HOST_KEY_FORMAT = "e{environment}-h{instance}"


def host_key(environment_id: str, instance_id: str) -> str:
    """The name of a server's agent: ``e<environment id>-h<instance id>``, lower-cased."""
    return HOST_KEY_FORMAT.format(environment=environment_id, instance=instance_id).lower()


class ServiceUnavailable(DslError):
    """A native method needed a cloud or an agent and the run has none."""

    code = "LAG-E0520"
    murano_name = "io.murano.system.ServiceUnavailable"

    def __init__(self, method: str) -> None:
        self.method = method
        super().__init__(f"{method} needs a cloud; run it through `laguna deploy`")


class DeploymentServices(t.Protocol):
    """The cloud, the agents and the notification channel of one deployment."""

    environment_id: str
    environment_name: str

    # -- orchestration (Heat) ---------------------------------------------------------
    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        """Create or update stack ``name``; return its outputs."""

    def get_template(self, name: str) -> dict[str, t.Any] | None:
        """The template of stack ``name`` as the cloud holds it, None if it does not exist."""

    def delete_stack(self, name: str) -> None:
        """Delete stack ``name`` (nothing happens if it does not exist)."""

    def stack_outputs(self, name: str) -> dict[str, t.Any]:
        """The outputs of stack ``name`` ({} if it does not exist)."""

    # -- agents ----------------------------------------------------------------------
    def agent_execute(self, host_key: str, plan: dict[str, t.Any], timeout: float | None,
                      *, stack: str | None = None,
                      server: str | None = None) -> dict[str, t.Any] | None:
        """Run ``plan`` on the agent of ``host_key``; the agent's raw result
        document (v1 or v2); None when ``timeout`` is 0 (send, no answer awaited).
        ``stack`` and ``server`` say where the Instance put the server (its
        region's stack and its resource name), for clouds that keep servers
        by name rather than by the key in their user data."""

    # -- networking (Neutron) --------------------------------------------------------
    def network_info(self, query: str, *args: t.Any) -> t.Any:
        """Answers io.murano.system.NetworkExplorer's questions: ``query`` is the
        MuranoPL method name (getDefaultRouter, getAvailableCidr, getDefaultDns,
        listNetworks, listSubnetworks, listPorts, listNeutronExtensions,
        getExternalNetworkIdForRouter, getExternalNetworkIdForNetwork)."""

    # -- notifications ---------------------------------------------------------------
    def report(self, object_id: str | None, level: str, text: str,
               details: t.Any = None) -> None:
        """A status report of the deployment (level ``info`` or ``error``)."""

    def notify(self, event: str, data: dict[str, t.Any]) -> None:
        """Another notification (``track_instance``, ``untrack_instance`` ...)."""


def attach(executor: t.Any, services: DeploymentServices) -> None:
    """Let the natives running in ``executor`` use ``services``."""
    executor.host_services = services


def services_of(executor: t.Any) -> DeploymentServices:
    """The services attached to ``executor``; :class:`NoServices` if none."""
    services = getattr(executor, "host_services", None)
    return services if services is not None else NO_SERVICES


class NoServices:
    """No cloud and no agent: what ``laguna test`` runs with. Reports are kept.

    Loading a model needs no cloud: the only question answered is which
    networking extensions exist (Neutron with security groups is assumed),
    so environments and their networks load; everything else raises.
    """

    environment_id = "environment"
    environment_name = "environment"

    def __init__(self) -> None:
        self.reports: list[tuple[str | None, str, str]] = []

    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        raise ServiceUnavailable("io.murano.system.HeatStack.push")

    def get_template(self, name: str) -> dict[str, t.Any] | None:
        return None

    def delete_stack(self, name: str) -> None:
        raise ServiceUnavailable("io.murano.system.HeatStack.delete")

    def stack_outputs(self, name: str) -> dict[str, t.Any]:
        return {}

    def agent_execute(self, host_key: str, plan: dict[str, t.Any], timeout: float | None,
                      *, stack: str | None = None,
                      server: str | None = None) -> dict[str, t.Any] | None:
        raise ServiceUnavailable("io.murano.system.Agent.call")

    def network_info(self, query: str, *args: t.Any) -> t.Any:
        if query == "listNeutronExtensions":
            return [{"alias": "security-group"}]
        raise ServiceUnavailable(f"io.murano.system.NetworkExplorer.{query}")

    def report(self, object_id: str | None, level: str, text: str,
               details: t.Any = None) -> None:
        self.reports.append((object_id, level, text))

    def notify(self, event: str, data: dict[str, t.Any]) -> None:
        pass


NO_SERVICES = NoServices()


@dataclasses.dataclass
class Recorded:
    """One thing a :class:`RecordingServices` saw, in order."""

    kind: str            # push, delete, plan, report, notify
    target: str | None   # stack name, host key, object id or event name
    data: t.Any


class RecordingServices:
    """A dry run: nothing leaves the process, everything is recorded in ``log``.

    Stack outputs are invented from the template pushed: ``<x>-id`` outputs get
    a stable id, outputs whose value reads a server's ``addresses`` get
    ``[{"addr": 192.0.2.N, "version": 4}]``, outputs whose value reads a
    ``floating_ip_address`` get an address from 198.51.100.0/24, and any other
    output the name of what it reads. Every plan is answered with an empty
    success of its format (``answers`` may give a Body per plan ``Name``).
    """

    def __init__(self, environment_id: str = "environment",
                 environment_name: str = "environment",
                 answers: t.Mapping[str, t.Any] | None = None) -> None:
        self.environment_id = environment_id
        self.environment_name = environment_name
        self.answers = dict(answers or {})
        self.log: list[Recorded] = []
        self.stacks: dict[str, dict[str, t.Any]] = {}
        self._outputs: dict[str, dict[str, t.Any]] = {}
        self._invented: dict[str, t.Any] = {}
        self._hosts = itertools.count(10)
        self._floating = itertools.count(10)
        self._ids = itertools.count(1)
        self._results = ResultFactory(new_id=lambda: f"{next(self._ids):032x}")

    # -- views of the log -------------------------------------------------------------
    def recorded(self, kind: str) -> list[Recorded]:
        return [r for r in self.log if r.kind == kind]

    @property
    def plans(self) -> list[tuple[str, dict[str, t.Any]]]:
        return [(r.target or "", r.data) for r in self.recorded("plan")]

    @property
    def reports(self) -> list[tuple[str | None, str, str]]:
        return [(r.target, r.data[0], r.data[1]) for r in self.recorded("report")]

    # -- DeploymentServices ------------------------------------------------------------
    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        self.log.append(Recorded("push", name, {"template": template,
                                                "parameters": parameters}))
        self.stacks[name] = template
        outputs = {key: self._invent(key, (spec or {}).get("value"))
                   for key, spec in (template.get("outputs") or {}).items()}
        self._outputs[name] = outputs
        return dict(outputs)

    def get_template(self, name: str) -> dict[str, t.Any] | None:
        return self.stacks.get(name)

    def delete_stack(self, name: str) -> None:
        self.log.append(Recorded("delete", name, None))
        self.stacks.pop(name, None)
        self._outputs.pop(name, None)

    def stack_outputs(self, name: str) -> dict[str, t.Any]:
        return dict(self._outputs.get(name, {}))

    def agent_execute(self, host_key: str, plan: dict[str, t.Any], timeout: float | None,
                      *, stack: str | None = None,
                      server: str | None = None) -> dict[str, t.Any] | None:
        self.log.append(Recorded("plan", host_key, plan))
        if timeout == 0:
            return None
        body = self.answers.get(str(plan.get("Name")))
        if not plan.get("FormatVersion") or str(plan["FormatVersion"]).startswith("1."):
            return {"IsException": False,
                    "Result": [{"IsException": False, "Result": body}]}
        return self._results.success(plan.get("ID"), body)

    def network_info(self, query: str, *args: t.Any) -> t.Any:
        self.log.append(Recorded("network", query, list(args)))
        answers: dict[str, t.Any] = {
            "getDefaultRouter": "router-0",
            "getAvailableCidr": "10.0.0.0/24",
            "getDefaultDns": ["192.0.2.2"],
            "getExternalNetworkIdForRouter": "external-net",
            "getExternalNetworkIdForNetwork": "external-net",
            "listNetworks": [],
            "listSubnetworks": [],
            "listPorts": [],
            "listNeutronExtensions": [{"alias": "security-group"}],
        }
        return answers.get(query)

    def report(self, object_id: str | None, level: str, text: str,
               details: t.Any = None) -> None:
        self.log.append(Recorded("report", object_id, (level, text)))

    def notify(self, event: str, data: dict[str, t.Any]) -> None:
        self.log.append(Recorded("notify", event, data))

    # -- invented outputs --------------------------------------------------------------
    def _invent(self, key: str, value: t.Any) -> t.Any:
        if key in self._invented:
            return self._invented[key]
        attr = value.get("get_attr") if isinstance(value, dict) else None
        if key.endswith("-id"):
            result: t.Any = f"{key[:-3]}-{next(self._ids):08x}"
        elif isinstance(attr, list) and len(attr) > 1 and attr[1] == "addresses":
            result = [{"addr": str(ipaddress.ip_address("192.0.2.0") + next(self._hosts)),
                       "version": 4}]
        elif isinstance(attr, list) and len(attr) > 1 and attr[1] == "floating_ip_address":
            result = str(ipaddress.ip_address("198.51.100.0") + next(self._floating))
        elif isinstance(value, dict) and "get_resource" in value:
            result = f"{value['get_resource']}-{next(self._ids):08x}"
        else:
            result = value
        self._invented[key] = result
        return result
