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
{deliveries}
{exports}
env -0 > "$dir/.before"
LAGUNA_OUTPUTS="$dir/.after" sh -c 'trap "env -0 > \\"\\$LAGUNA_OUTPUTS\\"" EXIT; . "$0"' \
"$dir/{primary}" > "$dir/.log" 2>&1
rc=$?
for f in .before .after .log; do base64 "$dir/$f" 2>/dev/null | tr -d '\\n'; echo; done
exit $rc
"""


#: an artifact an operation's host must hold: its file here, and its path there
Delivery = tuple[Path, str]


class Executor(t.Protocol):
    """Runs one operation's script somewhere, with the node's artifacts there."""

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: Started | None = None, artifacts: t.Sequence[Delivery] = ()) -> Ran: ...

    def place(self, node: str, source: Path, deploy_path: str | None) -> str:
        """Where an artifact of ``node`` is on this host (what get_artifact gives)."""
        ...


class AgentExecutor:
    """Runs operations on one host of the local cloud, through its agent."""

    def __init__(self, agent: t.Any, host_name: str, root: Path | None = None) -> None:
        self.agent = agent
        self.host_name = host_name
        #: the host's directory (its HOME), None when it is not on this machine
        self.root = root

    def place(self, node: str, source: Path, deploy_path: str | None) -> str:
        """``deploy_path`` (relative to the host's directory), else
        ``artifacts/<node>/<file name>`` there: a host may hold several nodes."""
        relative = deploy_path if deploy_path is not None else \
            f"artifacts/{node}/{source.name}"
        if relative.startswith("/") or self.root is None:
            return relative
        return str(self.root / relative)

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: Started | None = None, artifacts: t.Sequence[Delivery] = ()) -> Ran:
        from laguna.agent.reading import result_value
        exports = "\n".join(f"export {key}={shlex.quote(functions.text(value))}"
                            for key, value in inputs.items() if key.isidentifier())
        # the artifacts travel with the plan and are copied where the node expects them
        # before the script runs; a copy that fails fails the operation (exit 97)
        deliveries = "\n".join(
            f"mkdir -p \"$(dirname {shlex.quote(dest)})\" && "
            f"cp \"$dir/{_carried(number, source)}\" {shlex.quote(dest)} || exit 97"
            for number, (source, dest) in enumerate(artifacts))
        files: dict[str, t.Any] = {
            "wrapper": {"Name": "laguna-tosca-op.sh", "BodyType": "Text",
                        "Body": _WRAPPER.format(exports=exports, primary=primary.name,
                                                deliveries=deliveries)}}
        for number, path in enumerate([primary, *dependencies]):
            files[f"f{number}"] = {"Name": path.name, "BodyType": "Base64",
                                   "Body": base64.b64encode(path.read_bytes()).decode()}
        for number, (source, _) in enumerate(artifacts):
            files[f"a{number}"] = {"Name": _carried(number, source), "BodyType": "Base64",
                                   "Body": base64.b64encode(source.read_bytes()).decode()}
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


def _carried(number: int, source: Path) -> str:
    """The name an artifact travels under (apart from the scripts' own files)."""
    return f".artifact-{number}-{source.name}"


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
            self._executors[name] = AgentExecutor(self.agents(host), name, host.root)
        return self._executors[name]

    def delete(self) -> None:
        self.cloud.delete_stack(self.stack)
