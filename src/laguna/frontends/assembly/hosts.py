"""Scripts of instances placed on servers of the environment's cloud, through
their agents (the host layer: :mod:`laguna.hosts`).

An instance whose resolved ``deploymentLocation`` is ``local-cloud`` gets a
server of its own (in the stack ``assembly-<NAME>`` of the environment's
cloud: the local cloud unless ``--cloud`` chose another) the first time one of
its scripts runs; the script then runs there
(:func:`~laguna.hosts.run.run_script`), with the same variables (plus
``LAGUNA_HOST_ADDRESS``) and the same ``output__`` lines as on this machine.
The server goes when the instance is deleted. Other instances run on this
machine (:class:`~.drivers.ShellDriver`).
"""

from __future__ import annotations

import typing as t

from laguna.frontends.assembly.drivers import (
    Reply,
    Request,
    ShellDriver,
    environment,
    parse_outputs,
)
from laguna.frontends.assembly.errors import TransitionFailed
from laguna.hosts.drift import working_on
from laguna.hosts.errors import HostUnavailable, ScriptError
from laguna.hosts.resources import Resources
from laguna.hosts.run import Machine, run_script
from laguna.hosts.servers import ServerStack

LOCATION = "local-cloud"


class PlacingDriver:
    """The shell driver, on this machine or on a server of the environment's cloud
    as the instance says."""

    def __init__(self, local: ShellDriver, resources: t.Callable[[], Resources],
                 assembly: str, timeout: float = 600.0, confined: bool = False) -> None:
        self.local = local
        #: no script on this machine: an instance not on local-cloud is refused
        #: (the API's engine: its machine runs nobody's scripts)
        self.confined = confined
        self._resources = resources
        self.stack = f"assembly-{assembly}"
        self.timeout = timeout

    def available(self, package: t.Any, name: str) -> bool:
        return self.local.available(package, name)

    def run(self, request: Request) -> Reply:
        instance = str(request.variables["LAGUNA_INSTANCE_NAME"])
        location = request.properties.get("deploymentLocation")
        if location != LOCATION:
            if self.confined:
                raise TransitionFailed(
                    f"{instance}: its deploymentLocation is {location!r}, which runs its "
                    f"scripts on the API's machine; through the API, every resource with "
                    f"scripts is placed on {LOCATION}")
            return self.local.run(request)
        servers = self._servers(instance)
        # a resource's `image` (and `flavor`) property picks its server's, through the
        # cloud's image map (the container cloud's); the cloud's default without one
        host = servers.ensure(instance, image=_text(request.properties.get("image")),
                              flavor=_text(request.properties.get("flavor")))
        try:
            machine = Machine(host, servers.agents(host))
        except HostUnavailable as error:
            raise TransitionFailed(f"{instance}: {error.message}") from None
        variables = dict(request.variables)
        variables["LAGUNA_HOST_ADDRESS"] = machine.address
        env = environment(Request(request.package, request.name, request.workdir, variables,
                                  request.properties), {})
        script = self.local.script(request.package, request.name).read_text(encoding="utf-8")
        try:
            with working_on(instance):  # what its scripts leave is the instance's (drift)
                result = run_script(machine, f"cd \"$LAGUNA_WORKDIR\"\n{script}",
                                    dict(sorted(env.items())), timeout=self.timeout,
                                    name=request.name)
        except ScriptError as error:
            return Reply(1, {}, "", error.message)
        finally:
            machine.close()
        return Reply(result.exit_code, parse_outputs(result.stdout), result.stdout,
                     result.stderr)

    def release(self, instance: str) -> None:
        resources = self._resources()
        if resources.cloud is None or resources.agents is None:
            return
        ServerStack(resources.cloud, resources.agents, self.stack).release(instance)

    def _servers(self, instance: str) -> ServerStack:
        resources = self._resources()
        if resources.cloud is None or resources.agents is None:
            raise TransitionFailed(f"{instance}: deploymentLocation {LOCATION} needs a cloud, "
                                   "and none is wired in")
        return ServerStack(resources.cloud, resources.agents, self.stack)


def _text(value: t.Any) -> str | None:
    return value if isinstance(value, str) and value else None
