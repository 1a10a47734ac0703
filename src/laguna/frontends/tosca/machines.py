"""Where operations run: this machine (the default, AMP's localhost location), or
with ``--cloud local`` the local cloud's hosts, one per Compute instance, each
reached through its agent.

On a host, an operation is a v2 execution plan: the primary and its
dependencies travel as files beside each other, and a small wrapper runs
``sh <primary>`` in the host's directory with the inputs exported, then
hands back the environment before and after (the exported variables are the
difference) and the script's output.
"""

from __future__ import annotations

import base64
import shlex
import typing as t
import uuid
from pathlib import Path

from laguna.frontends.tosca import functions
from laguna.frontends.tosca.placement import host_name

Started = t.Callable[[int], None]
#: what an operation gives back: exit code and the variables it exported
Ran = tuple[int, dict[str, str]]

_WRAPPER = """\
dir="$(pwd)"
cd "$HOME"
{exports}
env -0 > "$dir/.before"
LAGUNA_OUTPUTS="$dir/.after" sh -c 'trap "env -0 > \\"\\$LAGUNA_OUTPUTS\\"" EXIT; . "$0"' \
"$dir/{primary}" > "$dir/.log" 2>&1
rc=$?
for f in .before .after .log; do base64 "$dir/$f" 2>/dev/null | tr -d '\\n'; echo; done
exit $rc
"""


class Executor(t.Protocol):
    """Runs one operation's script somewhere."""

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: Started | None = None) -> Ran: ...


class AgentExecutor:
    """Runs operations on one host of the local cloud, through its agent."""

    def __init__(self, agent: t.Any, host_name: str) -> None:
        self.agent = agent
        self.host_name = host_name

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: Started | None = None) -> Ran:
        from laguna.agent.reading import result_value
        exports = "\n".join(f"export {key}={shlex.quote(functions.text(value))}"
                            for key, value in inputs.items() if key.isidentifier())
        files: dict[str, t.Any] = {
            "wrapper": {"Name": "laguna-tosca-op.sh", "BodyType": "Text",
                        "Body": _WRAPPER.format(exports=exports, primary=primary.name)}}
        for number, path in enumerate([primary, *dependencies]):
            files[f"f{number}"] = {"Name": path.name, "BodyType": "Base64",
                                   "Body": base64.b64encode(path.read_bytes()).decode()}
        plan = {"FormatVersion": "2.1.0", "Version": "1.0.0", "Name": f"tosca {primary.name}",
                "ID": uuid.uuid4().hex, "Parameters": {}, "Body": "return op()",
                "Files": files,
                "Scripts": {"op": {"Type": "Application", "Version": "1.0.0",
                                   "EntryPoint": "wrapper",
                                   "Files": [k for k in files if k != "wrapper"],
                                   "Options": {"captureStdout": True, "captureStderr": True,
                                               "verifyExitcode": False}}}}
        value = result_value(self.agent.execute(plan, timeout)) or {}
        lines = (value.get("stdout") or "").splitlines()
        decoded = [base64.b64decode(line) if line else b"" for line in (lines + ["", "", ""])[:3]]
        before, after, output = decoded
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as sink:
            sink.write(output)
        return int(value.get("exitCode") or 0), _difference(before, after)


def _difference(before: bytes, after: bytes) -> dict[str, str]:
    def parse(data: bytes) -> dict[str, str]:
        found: dict[str, str] = {}
        for entry in data.split(b"\0"):
            key, equals, value = entry.decode("utf-8", "replace").partition("=")
            if equals:
                found[key] = value
        return found

    old = parse(before)
    return {k: v for k, v in parse(after).items()
            if old.get(k) != v and k not in ("PWD", "OLDPWD", "SHLVL", "_", "LAGUNA_OUTPUTS")}


class CloudMachines:
    """Compute instances as hosts of one stack of the local cloud."""

    def __init__(self, cloud: t.Any, agents: t.Callable[[t.Any], t.Any], stack: str) -> None:
        self.cloud = cloud
        self.agents = agents
        self.stack = stack
        self._executors: dict[str, AgentExecutor] = {}

    #: the host a Compute instance becomes
    resource = staticmethod(host_name)

    def provision(self, instance_ids: t.Sequence[str]) -> dict[str, list[str]]:
        """One server per Compute instance (one push); each instance's addresses."""
        template = {"heat_template_version": "2015-10-15", "resources": {
            self.resource(i): {"type": "OS::Nova::Server",
                               "properties": {"name": self.resource(i)}}
            for i in instance_ids}}
        self.cloud.push_stack(self.stack, template)
        addresses: dict[str, list[str]] = {}
        for instance_id in instance_ids:
            host = self.cloud.find_host(self.stack, self.resource(instance_id))
            addresses[instance_id] = list(host.addresses)
        return addresses

    def executor(self, instance_id: str) -> AgentExecutor:
        return self.host_executor(self.resource(instance_id))

    def host_executor(self, name: str) -> AgentExecutor:
        """The executor of the host called ``name`` (a resource of the stack)."""
        if name not in self._executors:
            host = self.cloud.find_host(self.stack, name)
            if host is None:
                raise LookupError(f"no host {name} in stack {self.stack}")
            self._executors[name] = AgentExecutor(self.agents(host), name)
        return self._executors[name]

    def delete(self) -> None:
        self.cloud.delete_stack(self.stack)
