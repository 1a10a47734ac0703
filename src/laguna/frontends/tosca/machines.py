"""Where operations run: this machine (the default, AMP's localhost location), or
with ``--cloud local`` (``containers``, ``ssh``) the servers of the
environment's cloud, one per Compute instance, each reached through its agent
(the host layer: :mod:`laguna.hosts`).

On a host, the node's artifacts are first written where it expects them, one
:func:`~laguna.hosts.run.put_file` each (an artifact that cannot be written
fails the operation, naming the artifact and the host); the operation is then
a script of the host layer (:func:`~laguna.hosts.run.run_script`): the primary
and its dependencies travel as files beside each other, and a small wrapper
runs ``sh <primary>`` in the host's directory with the inputs exported, then
hands back the environment before and after (the exported variables are the
difference) and the script's output.
"""

from __future__ import annotations

import base64
import typing as t
from pathlib import Path

from laguna.errors import LagunaError
from laguna.frontends.tosca import functions
from laguna.frontends.tosca.placement import host_name
from laguna.hosts.errors import ScriptError
from laguna.hosts.run import Machine, exports, put_file, run_script
from laguna.hosts.servers import ServerStack

if t.TYPE_CHECKING:
    from laguna.cloud.base import Cloud
    from laguna.hosts.resources import AgentFactory

Started = t.Callable[[int], None]
#: what an operation gives back: exit code and the variables it exported
Ran = tuple[int, dict[str, str]]

_WRAPPER = """\
dir="$(pwd)"
cd "$HOME"
{exports}env -0 > "$dir/.before"
LAGUNA_OUTPUTS="$dir/.after" sh -c 'trap "env -0 > \\"\\$LAGUNA_OUTPUTS\\"" EXIT; . "$0"' \
"$dir/{primary}" > "$dir/.log" 2>&1
rc=$?
for f in .before .after .log; do base64 "$dir/$f" 2>/dev/null | tr -d '\\n'; echo; done
exit $rc
"""


#: an artifact an operation's host must hold: its file here, and its path there
Delivery = tuple[Path, str]


class NotDelivered(LagunaError):
    """An artifact could not be written on the host of an operation (the run
    turns it into its operation's DeployFailed, naming the artifact)."""

    code = "LAG-E1547"

    def __init__(self, source: Path, dest: str, host: str, reason: str) -> None:
        super().__init__(f"{source} could not be written at {dest} on {host}: {reason}")
        self.source = source
        self.dest = dest
        self.host = host
        self.reason = reason


class Executor(t.Protocol):
    """Runs one operation's script somewhere, with the node's artifacts there."""

    def run(self, primary: Path, dependencies: t.Sequence[Path],
            inputs: t.Mapping[str, t.Any], log: Path, timeout: float,
            started: Started | None = None, artifacts: t.Sequence[Delivery] = ()) -> Ran: ...

    def place(self, node: str, source: Path, deploy_path: str | None) -> str:
        """Where an artifact of ``node`` is on this host (what get_artifact gives)."""
        ...


class AgentExecutor:
    """Runs operations on one host of the environment's cloud, through its agent
    (the host layer's :func:`~laguna.hosts.run.run_script`)."""

    def __init__(self, machine: Machine, host_name: str, root: Path | None = None,
                 kind: str | None = None) -> None:
        self.machine = machine
        self.host_name = host_name
        #: the host's directory (its HOME), None when it is not on this machine
        self.root = root
        #: the kind of the cloud the host is a server of (None: the environment's)
        self.kind = kind

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
        # the artifacts are written where the node expects them before the script
        # runs, one put_file each; one that cannot be written fails the operation
        for source, dest in artifacts:
            mode = 0o755 if source.stat().st_mode & 0o111 else None
            try:
                put_file(self.machine, dest, source.read_bytes(), mode=mode, timeout=timeout)
            except ScriptError as error:
                raise NotDelivered(source, dest, self.machine.name,
                                   _reason(error.message, dest, self.machine.name)) from None
        files = {path.name: path.read_bytes() for path in [primary, *dependencies]}
        # the inputs exported in the host's directory, after the wrapper went there
        env = exports({key: functions.text(value) for key, value in inputs.items()})
        result = run_script(self.machine, _WRAPPER.format(primary=primary.name, exports=env),
                            files=files, timeout=timeout, name=f"tosca {primary.name}")
        lines = result.stdout.splitlines()
        decoded = [base64.b64decode(line) if line else b"" for line in (lines + ["", "", ""])[:3]]
        before, after, output = decoded
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as sink:
            sink.write(output)
        return result.exit_code, _difference(before, after)


def _reason(message: str, dest: str, host: str) -> str:
    """Why put_file could not write ``dest`` (its message without the path and host)."""
    prefix = f"{dest} could not be written on {host}: "
    return (message[len(prefix):] if message.startswith(prefix) else message) or "unknown"


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
    """Compute instances as servers of one stack of one cloud (``kind``)."""

    def __init__(self, cloud: Cloud, agents: AgentFactory, stack: str,
                 kind: str | None = None) -> None:
        self.servers = ServerStack(cloud, agents, stack)
        self.stack = stack
        self.kind = kind
        self._executors: dict[str, AgentExecutor] = {}

    #: the host a Compute instance becomes
    resource = staticmethod(host_name)

    def provision(self, instance_ids: t.Sequence[str],
                  images: t.Mapping[str, str | None] | None = None) -> dict[str, list[str]]:
        """One server per Compute instance (one push), each with its ``images``
        entry (by instance id) as its image; each instance's addresses."""
        chosen = images or {}
        hosts = self.servers.provision(
            [self.resource(i) for i in instance_ids],
            {self.resource(i): {"image": chosen.get(i)} for i in instance_ids})
        return {i: list(hosts[self.resource(i)].addresses) for i in instance_ids}

    def executor(self, instance_id: str) -> AgentExecutor:
        return self.host_executor(self.resource(instance_id))

    def host_executor(self, name: str) -> AgentExecutor:
        """The executor of the host called ``name`` (a resource of the stack)."""
        if name not in self._executors:
            machine = self.servers.machine(name)
            self._executors[name] = AgentExecutor(machine, name, machine.host.root, self.kind)
        return self._executors[name]

    def delete(self) -> None:
        self.servers.delete()


#: the cloud of a kind, with the agents of its hosts (the stack is the fleet's to name)
CloudOf = t.Callable[[str], "tuple[Cloud, AgentFactory]"]


class Fleet:
    """Compute instances as servers of several clouds: each machine on the cloud
    its location names (locations.py), the others on the environment's
    (``default``); one stack per cloud, ``<stack>`` on the environment's cloud and
    ``<stack>-<kind>`` on another (or the names a previous deploy kept,
    ``stacks``), each server reached through the cloud that made it."""

    def __init__(self, clouds: CloudOf, default: str, stack: str,
                 stacks: t.Mapping[str, str] | None = None) -> None:
        self.clouds = clouds
        self.default = default
        #: the stack on the environment's cloud (what older models kept as ``stack``)
        self.stack = stack
        #: kind -> the stack of this fleet on that cloud
        self.stacks: dict[str, str] = dict(stacks or {})
        #: instance id -> the kind of the cloud it is a server of
        self.kinds: dict[str, str] = {}
        self._clouds: dict[str, CloudMachines] = {}

    #: the host a Compute instance becomes
    resource = staticmethod(host_name)

    def on(self, kind: str | None) -> CloudMachines:
        """This fleet's servers on the ``kind`` cloud (None: the environment's)."""
        kind = kind or self.default
        if kind not in self._clouds:
            cloud, agents = self.clouds(kind)
            name = self.stacks.setdefault(
                kind, self.stack if kind == self.default else f"{self.stack}-{kind}")
            self._clouds[kind] = CloudMachines(cloud, agents, name, kind)
        return self._clouds[kind]

    def provision(self, instance_ids: t.Sequence[str],
                  images: t.Mapping[str, str | None] | None = None,
                  kinds: t.Mapping[str, str | None] | None = None) -> dict[str, list[str]]:
        """One server per Compute instance on the cloud of its ``kinds`` entry (the
        environment's without one), one push per cloud; a cloud this fleet held
        servers on that none is placed on now loses its stack. Each instance's
        addresses."""
        chosen = kinds or {}
        placed: dict[str, list[str]] = {}
        for instance in instance_ids:
            placed.setdefault(chosen.get(instance) or self.default, []).append(instance)
        found: dict[str, list[str]] = {}
        for kind, members in placed.items():
            found.update(self.on(kind).provision(members, images))
            self.kinds.update({instance: kind for instance in members})
        for kind in [k for k in self.stacks if k not in placed]:
            # a redeploy that moved or dropped every machine of that cloud
            self.on(kind).delete()
            del self.stacks[kind]
            self._clouds.pop(kind, None)
        return found

    def executor(self, instance_id: str) -> AgentExecutor:
        return self.on(self.kinds.get(instance_id)).executor(instance_id)

    def host_executor(self, name: str, kind: str | None = None) -> AgentExecutor:
        """The executor of the host called ``name`` on the ``kind`` cloud."""
        return self.on(kind).host_executor(name)

    def delete(self) -> None:
        """Every server of every cloud this fleet holds servers on goes."""
        for kind in list(self.stacks) or [self.default]:
            self.on(kind).delete()


def compute_image(properties: t.Mapping[str, t.Any],
                  capabilities: t.Mapping[str, t.Mapping[str, t.Any]]) -> str | None:
    """The image a Compute asks for: its ``image`` property, else its ``os``
    capability's ``distribution`` and ``version`` (``debian``, ``12``: ``debian-12``,
    the container cloud's default image), else its distribution; None: the cloud's
    default. The cloud's image map picks the image itself."""
    image = properties.get("image")
    if isinstance(image, str) and image:
        return image
    os_properties = (capabilities.get("os") or {}).get("properties") or {}
    distribution = os_properties.get("distribution")
    if not isinstance(distribution, str) or not distribution:
        return None
    version = os_properties.get("version")
    if version is None or version == "":
        return distribution.lower()
    return f"{distribution.lower()}-{version}"
