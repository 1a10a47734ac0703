"""Scripts of instances placed on hosts of the local cloud, through their agents.

An instance whose resolved ``deploymentLocation`` is ``local-cloud`` gets a
host of its own (an ``OS::Nova::Server`` in the stack ``assembly-<NAME>`` of
the working directory's local cloud) the first time one of its scripts runs;
the script then travels in an execution plan to that host's agent, with the
same variables (plus ``LAGUNA_HOST_ADDRESS``) and the same ``output__`` lines
as on this machine. The host goes when the instance is deleted. Other
instances run on this machine (:class:`~.drivers.ShellDriver`).
"""

from __future__ import annotations

import shlex
import typing as t
import uuid

from laguna.frontends.assembly.drivers import (
    Reply,
    Request,
    ShellDriver,
    environment,
    parse_outputs,
)
from laguna.frontends.assembly.errors import TransitionFailed

LOCATION = "local-cloud"
TEMPLATE_VERSION = "2013-05-23"
BODY = ("r = run()\n"
        "return {'exitCode': r.exitCode, 'stdout': r.stdout or '', 'stderr': r.stderr or ''}")


class PlacingDriver:
    """The shell driver, on this machine or on a local-cloud host as the instance says."""

    def __init__(self, local: ShellDriver, cloud: t.Callable[[], t.Any], assembly: str,
                 timeout: float = 600.0) -> None:
        self.local = local
        self._cloud = cloud
        self.stack = f"assembly-{assembly}"
        self.timeout = timeout

    def available(self, package: t.Any, name: str) -> bool:
        return self.local.available(package, name)

    def run(self, request: Request) -> Reply:
        if request.properties.get("deploymentLocation") != LOCATION:
            return self.local.run(request)
        host = self.host(str(request.variables["LAGUNA_INSTANCE_NAME"]))
        if not host.agent_url or not host.agent_secret:
            raise TransitionFailed(f"{request.variables['LAGUNA_INSTANCE_NAME']}: the agent "
                                   f"of host {host.server_name} is not running")
        from laguna.agent.client import AgentClient
        variables = dict(request.variables)
        variables["LAGUNA_HOST_ADDRESS"] = host.addresses[0] if host.addresses else ""
        env = environment(Request(request.package, request.name, request.workdir, variables,
                                  request.properties), {})
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(env.items()))
        script = self.local.script(request.package, request.name).read_text(encoding="utf-8")
        text = f"{exports}cd \"$LAGUNA_WORKDIR\"\n{script}"
        plan = {"FormatVersion": "2.1.0", "Version": "1.0.0", "Name": request.name,
                "ID": uuid.uuid4().hex, "Parameters": {}, "Body": BODY,
                "Files": {"script": {"Name": f"{request.name}.sh", "BodyType": "Text",
                                     "Body": text}},
                "Scripts": {"run": {"Type": "Application", "Version": "1.0.0",
                                    "EntryPoint": "script", "Files": [],
                                    "Options": {"captureStdout": True, "captureStderr": True,
                                                "verifyExitcode": False}}}}
        with AgentClient(host.agent_url, host.agent_secret) as agent:
            result = agent.execute(plan, self.timeout)
        body = result.get("Body")
        if result.get("ErrorCode") != 0 or not isinstance(body, dict):
            return Reply(1, {}, "", f"the agent of {host.server_name} failed: {body!r}")
        stdout = str(body.get("stdout") or "")
        return Reply(int(body.get("exitCode", 1)), parse_outputs(stdout), stdout,
                     str(body.get("stderr") or ""))

    def host(self, instance: str) -> t.Any:
        cloud = self._cloud()
        if cloud is None:
            raise TransitionFailed(f"{instance}: deploymentLocation {LOCATION} needs a cloud, "
                                   "and none is wired in")
        found = cloud.find_host(self.stack, instance) if self.stack in cloud.stacks() else None
        if found is not None:
            return found
        template = self._template(cloud)
        template["resources"][instance] = {"type": "OS::Nova::Server",
                                           "properties": {"name": instance}}
        cloud.push_stack(self.stack, template)
        return cloud.find_host(self.stack, instance)

    def release(self, instance: str) -> None:
        cloud = self._cloud()
        if cloud is None or self.stack not in cloud.stacks():
            return
        template = self._template(cloud)
        if template["resources"].pop(instance, None) is None:
            return
        if template["resources"]:
            cloud.push_stack(self.stack, template)
        else:
            cloud.delete_stack(self.stack)

    def _template(self, cloud: t.Any) -> dict[str, t.Any]:
        current = cloud.get_template(self.stack) if self.stack in cloud.stacks() else None
        template = dict(current or {"heat_template_version": TEMPLATE_VERSION})
        template["resources"] = dict(template.get("resources") or {})
        return template

