"""The container cloud: each server of a stack is an OCI container.

A server's container has its own root filesystem (from the image the
server's ``image`` picks through the working directory's image map), its
hostname, its process tree (``--init`` reaps daemons) and an address of its
stack's podman bridge network, reachable from this machine. laguna's agent
runs inside it with the image's python3, from the laguna package mounted
read-only; its secret reaches it as a file of a folder mounted from the host.

State lives under ``<state>/containers/``::

    stacks/<stack>.json       the stack's records (as the local cloud's)
    run/<stack>/<server>/     agent.key (the host's secret) and ready.json,
                              mounted at /run/laguna-agent in the container

Every podman object made (containers, volumes, networks) carries the labels
``laguna.cloud`` (this cloud's id) and ``laguna.stack``; whatever a killed
laguna left is found by them and removed on the next push or delete.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import ipaddress
import json
import logging
import re
import secrets
import shutil
import subprocess
import time
import typing as t
import uuid
from pathlib import Path

import laguna
from laguna.cloud import stacks
from laguna.cloud.base import Host
from laguna.cloud.containers import images as image_map
from laguna.cloud.containers.firewall import Firewall
from laguna.cloud.containers.podman import (CLOUD_LABEL, MARKER_LABEL, RESOURCE_LABEL,
                                            STACK_LABEL, Podman)
from laguna.cloud.containers.settings import ContainerSettings
from laguna.cloud.errors import CloudError, HostError
from laguna.cloud.local.processes import read_ready
from laguna.cloud.local.signals import SignalServer
from laguna.cloud.resources import FloatingIP, Server, VolumeAttachment
from laguna.cloud.state import COMPLETE, ResourceRecord, StackState
from laguna.cloud.offers import AUTO_NETWORK, NO_KEYPAIR, NOMINAL_FLAVORS, ONE_ZONE, Offer
from laguna.cloud.stored import SECRET_FILE, StoredCloud, WaitingRealm
from laguna.privacy import private_directory, write_private

log = logging.getLogger("laguna.cloud.containers")

READY_FILE = "ready.json"
#: where a host's run folder is mounted inside its container
AGENT_RUN = "/run/laguna-agent"
IP_FORWARD = Path("/proc/sys/net/ipv4/ip_forward")
#: the machine's forwarding before laguna's first network (a boot resets both)
FORWARD_SAVED = Path("/run/laguna/ip_forward")


@contextlib.contextmanager
def forwarding_lock() -> t.Iterator[None]:
    private_directory(FORWARD_SAVED.parent)
    with open(FORWARD_SAVED.parent / "ip_forward.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def hostname(name: str) -> str:
    """A valid hostname for a server name (``Web Server_1`` -> ``web-server-1``)."""
    text = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:63].strip("-")
    return text or "host"


def mac_address(address: str) -> str:
    """A host's MAC address, from its IP address: a container that replaces
    another (new volumes, a restart) at the same address has the same MAC, so
    this machine's neighbour entry for the address stays right (another MAC
    would leave connections to it hanging until the entry expires)."""
    # locally administered, unicast
    return "02:42:" + ":".join(f"{int(part):02x}" for part in address.split("."))


class ContainerCloud(StoredCloud["_Realm"]):
    """Implements :class:`laguna.cloud.base.Cloud` with podman containers."""

    def __init__(self, state_dir: Path, *, settings: ContainerSettings | None = None,
                 images: image_map.ImageMap | None = None,
                 progress: t.Callable[[str], None] | None = None) -> None:
        self.state_dir = state_dir.resolve()
        self.directory = self.state_dir / "containers"
        private_directory(self.directory)
        self.settings = settings or ContainerSettings.load(self.directory)
        self.podman = Podman(self.settings)
        # the map is the working directory's (.laguna/images.json)
        self.images = images or image_map.ImageMap(self.state_dir.parent
                                                   / image_map.IMAGES_FILE)
        self.id = _digest(str(self.directory))[:12]
        self.package = Path(laguna.__file__).resolve().parent
        self._signals: dict[str, SignalServer] = {}
        #: told of each step (image builds, container starts), as a deployment's
        #: progress; the log's by default
        self.progress = progress or log.info
        self.firewall = Firewall(self.id)
        super().__init__(self.directory)

    # -- names and paths -----------------------------------------------------------

    def labels(self, stack: str) -> dict[str, str]:
        return {CLOUD_LABEL: self.id, STACK_LABEL: stack}

    def label_args(self, stack: str, **more: str) -> list[str]:
        labels = {**self.labels(stack), **more}
        return [arg for k, v in labels.items() for arg in ("--label", f"{k}={v}")]

    def network_name(self, stack: str) -> str:
        return f"laguna-{self.id[:8]}-{_digest(stack)[:10]}"

    # -- StoredCloud's part --------------------------------------------------------

    def _realm(self, state: StackState) -> _Realm:
        return _Realm(self, state)

    def _hosts(self, state: StackState) -> list[Host]:
        return [stacks.host(state.stack, r, None, self.agent_secret(state.stack, r.name))
                for r in state.of_type(Server.name)]

    def _recover(self, realm: _Realm, unfinished: bool) -> None:
        """Remove containers and volumes of the stack no record accounts for (a
        killed laguna's), and start again the containers of recorded hosts that
        stopped (killed, or the machine restarted)."""
        stack = realm.state.stack
        containers = realm.containers()
        live = {r.data.get("container") for r in realm.state.of_type(Server.name)
                if r.status == COMPLETE}
        strays = [c["Names"][0] for c in containers if c["Names"][0] not in live]
        if strays:
            self.progress(f"removing {len(strays)} stray container(s) of stack {stack}")
            self.podman.run("rm", "--force", "--time", "0", *strays)
        volumes = {str(r.data.get("path")) for r in realm.state.records.values()
                   if r.type == "OS::Cinder::Volume"}
        for volume in self.podman.labelled("volume", self.labels(stack)):
            if volume["Name"] not in volumes:
                # not --force, which would remove the containers that use it
                self.podman.run("volume", "rm", volume["Name"], check=False)
        states = {c["Names"][0]: c.get("State") for c in containers}
        for record in realm.state.of_type(Server.name):
            if record.status != COMPLETE:
                continue
            state = states.get(record.data.get("container"))
            ready = record.data.get("url") is not None
            if state == "running" and ready and self.agent_secret(stack, record.name):
                continue
            self.progress(f"host {record.name} of stack {stack} is not running "
                          f"({state or 'no container'}): starting it again")
            if state is None or not ready:
                # gone, or started by a laguna killed before its agent was
                # ready: a new container
                realm.stop_host(record)
                realm.start_host(record)
            else:
                # the same container, with its files; its agent gets a new secret
                realm.restart_host(record)

    # -- the Cloud protocol (the rest is StoredCloud's) ------------------------------

    def offer(self) -> Offer:
        """Images: the image map's entries, its default first (a server without
        one runs on it); a container has no flavor, key pair or zone of its own,
        and one network, its stack's bridge."""
        default = self.images.default
        images = (default, *sorted(set(self.images.entries()) - {default}))
        return Offer(flavors=NOMINAL_FLAVORS, images=images, keypairs=NO_KEYPAIR,
                     zones=ONE_ZONE, networks=AUTO_NETWORK)

    def delete_stack(self, stack: str) -> None:
        with self.files.locked(stack):
            realm = _Realm(self, self.files.load(stack, cached=True) or StackState(stack))
            self.files.begin(stack)
            # every container of the stack, recorded or not, in one command
            names = [c["Names"][0] for c in realm.containers()]
            if names:
                self.podman.run("rm", "--force", "--time", "0", *names)
            realm.killed = True
            stacks.delete_all(realm)
            for volume in self.podman.labelled("volume", self.labels(stack)):
                self.podman.run("volume", "rm", "--force", volume["Name"])
            signals = self._signals.pop(stack, None)
            if signals is not None:
                signals.close()
            self.remove_network(stack)
            self.firewall.remove(stack)
            shutil.rmtree(self.directory / "run" / stack, ignore_errors=True)
            self.files.remove(stack)
            self.files.end(stack)

    def container_state(self, stack: str, name: str) -> dict[str, t.Any] | None:
        """podman's ``State`` of the container of host ``name``; None if it has none."""
        state = self.files.load(stack)
        record = state.records.get(name) if state is not None else None
        container = record.data.get("container") if record is not None else None
        if not container:
            return None
        found = self.podman.run("inspect", "--type", "container", "--format",
                                "{{json .State}}", container, check=False)
        return t.cast("dict[str, t.Any]", json.loads(found.stdout)) \
            if found.returncode == 0 else None

    def check_host(self, stack: str, name: str) -> None:
        """HostError unless the container of host ``name`` runs (after a plan
        failed to reach its agent, this tells why)."""
        state = self.container_state(stack, name)
        if state is None:
            raise HostError(f"host {name!r} has no container", stack=stack, resource=name)
        if state.get("Status") != "running":
            code = state.get("ExitCode")
            why = ("killed" if code == 137 else "out of memory" if state.get("OOMKilled")
                   else f"exit code {code}")
            raise HostError(f"the container of host {name!r} is not running "
                            f"({state.get('Status')}, {why}); the next push of the "
                            "stack starts it again", stack=stack, resource=name)

    # -- networks ---------------------------------------------------------------------

    def network(self, stack: str) -> tuple[str, ipaddress.IPv4Network, str]:
        """The stack's network (made if missing): name, subnet and gateway."""
        name = self.network_name(stack)
        if not self.podman.exists("network", name):
            with forwarding_lock():
                # netavark turns forwarding on: what was there is put back once
                # no network of laguna (of any working directory) is left
                if not FORWARD_SAVED.exists() and IP_FORWARD.exists():
                    write_private(FORWARD_SAVED, IP_FORWARD.read_bytes())
                self.podman.run("network", "create", *self.label_args(stack), name)
        info = self.podman.json("network", "inspect", name)[0]
        subnet = info["subnets"][0]
        network = ipaddress.IPv4Network(subnet["subnet"])
        return name, network, str(subnet.get("gateway") or network.network_address + 1)

    def remove_network(self, stack: str) -> None:
        name = self.network_name(stack)
        if self.podman.exists("network", name):
            self.podman.run("network", "rm", "--force", name)
        with forwarding_lock():
            if FORWARD_SAVED.exists() and not self.podman.json(
                    "network", "ls", "--filter", f"label={CLOUD_LABEL}", "--format", "json"):
                try:
                    IP_FORWARD.write_bytes(FORWARD_SAVED.read_bytes())
                except OSError as error:
                    log.warning("could not restore %s: %s", IP_FORWARD, error)
                FORWARD_SAVED.unlink()

    def choose_image(self, record: ResourceRecord) -> tuple[str, str]:
        """The image map's entry for a server's ``image`` (ImageError if none)."""
        name = record.properties.get("image")
        try:
            if name and self.settings.unknown_images == "default" \
                    and str(name) not in self.images.entries():
                chosen = self.images.resolve(None)
                self.progress(f"image {name!r} of host {record.name} is not in the image map: "
                              f"it runs on {chosen[0]} ({chosen[1]}); `laguna image alias "
                              f"{name} REFERENCE` chooses another")
                return chosen
            return self.images.resolve(str(name) if name else None)
        except image_map.ImageError as error:
            raise image_map.ImageError(str(error), resource=record.name,
                                       path=f"resources.{record.name}.properties.image"
                                       ) from None

    def image(self, record: ResourceRecord) -> str:
        """The OCI reference of a server's image, built if laguna builds it."""
        alias, reference = self.choose_image(record)
        if not self.podman.exists("image", reference):
            if alias in image_map.RECIPES and image_map.RECIPES[alias].reference == reference:
                image_map.build(self.podman, alias, progress=self.progress)
            else:
                raise image_map.ImageError(
                    f"image {alias!r} of server {record.name!r} ({reference}) is not in "
                    "podman's storage: podman pull or podman import it")
        return reference


class _Realm(WaitingRealm):
    """The container cloud as seen by resource types, for one stack operation."""

    def __init__(self, cloud: ContainerCloud, state: StackState) -> None:
        super().__init__()
        self.cloud = cloud
        self.state = state
        self.pending: list[ResourceRecord] = []
        self.killed = False           # every container of the stack is gone
        self._network: tuple[str, ipaddress.IPv4Network, str] | None = None
        self._taken: set[str] = set()
        #: floating addresses released in this push, to take off their containers
        self._released: set[str] = set()

    def save(self) -> None:
        self.cloud.files.save(self.state)

    def new_id(self, record_name: str) -> str:
        return str(uuid.uuid4())

    def containers(self) -> list[dict[str, t.Any]]:
        return self.cloud.podman.labelled("container", self.cloud.labels(self.state.stack))

    def network(self) -> tuple[str, ipaddress.IPv4Network, str]:
        if self._network is None:
            self._network = self.cloud.network(self.state.stack)
        return self._network

    # -- addresses: the stack network's, from .2 up --------------------------------

    def _used(self) -> set[str]:
        used = set(self._taken)
        for record in self.state.records.values():
            data = record.data
            used.update(str(a) for a in data.get("own_addresses", []))
            if data.get("address"):
                used.add(str(data["address"]))
        return used

    def allocate_address(self, record: ResourceRecord) -> str:
        _, network, gateway = self.network()
        used = self._used() | {gateway}
        for address in network.hosts():
            text = str(address)
            if text not in used:
                self._taken.add(text)
                return text
        raise CloudError(f"the network {network} of the stack has no free address",
                         stack=self.state.stack, resource=record.name)

    def floating_address(self, record: ResourceRecord) -> str | None:
        # an address of its own on the stack network, added to the interface of
        # the server its port is on once that server's container runs (settle):
        # murano-apps (BIND, Clearwater) tell a server's floating address from its
        # fixed one, as on OpenStack
        return self.allocate_address(record)

    def release_address(self, address: str) -> None:
        self._taken.discard(address)
        self._released.add(address)

    def _floating_addresses(self) -> None:
        """Each floating IP's address on the interface of its server's running
        container; released ones taken off (``ip addr`` in the container's network
        namespace, with this machine's ``ip``: images need no iproute2)."""
        wanted: dict[str, list[str]] = {}
        for fip in self.state.of_type(FloatingIP.name):
            port, address = fip.properties.get("port_id"), fip.data.get("address")
            if not fip.data.get("own") or not port or not address:
                continue
            for server in self.state.of_type(Server.name):
                if any(entry.get("port") == port for entry in server.data.get("addresses", [])):
                    wanted.setdefault(server.data["container"], []).append(str(address))
        if not wanted and not self._released:
            return
        for record in self.state.of_type(Server.name):
            container = record.data.get("container")
            if not container:
                continue
            changes = [("replace", a) for a in wanted.get(container, [])] + \
                      [("del", a) for a in sorted(self._released)]
            if not changes:
                continue
            pid = self.cloud.podman.run("inspect", "--type", "container", "--format",
                                        "{{.State.Pid}}", container, check=False).stdout.strip()
            if not pid.isdigit() or pid == "0":
                continue        # not running: its next start comes through here again
            for verb, address in changes:
                done = subprocess.run(["nsenter", "-t", pid, "-n", "ip", "addr", verb,
                                       f"{address}/32", "dev", "eth0"],
                                      capture_output=True, text=True, timeout=30)
                if done.returncode != 0 and verb == "replace":
                    raise CloudError(f"the floating address {address} could not be added to "
                                     f"host {record.name}: {done.stderr.strip()}",
                                     stack=self.state.stack, resource=record.name)
        self._released.clear()

    # -- hosts ---------------------------------------------------------------------

    def start_host(self, record: ResourceRecord) -> None:
        """Prepare a host; its container starts in :meth:`settle`, with the others."""
        cloud, stack = self.cloud, self.state.stack
        cloud.choose_image(record)      # an unknown image fails before anything starts
        marker = uuid.uuid4().hex[:12]
        record.data.update(
            marker=marker, url=None,
            container=f"laguna-{cloud.id[:8]}-{_digest(stack, record.name)[:8]}-{marker}")
        if record not in self.pending:
            self.pending.append(record)

    def restart_host(self, record: ResourceRecord) -> None:
        """Start a stopped container again in :meth:`settle`."""
        record.data.update(url=None, restart=True)
        self.pending.append(record)

    def stop_host(self, record: ResourceRecord) -> None:
        if record in self.pending:
            self.pending.remove(record)
        container = record.data.get("container")
        if container and not self.killed:
            self.cloud.podman.run("rm", "--force", "--time", "0", "--ignore", container)
        shutil.rmtree(self.cloud.run_dir(self.state.stack, record.name), ignore_errors=True)

    def _replace(self, server: ResourceRecord) -> None:
        """Start a host's container again (its mounts change): its processes and
        the files of its container's own layer go; its volumes stay."""
        if server in self.pending or self.killed:
            return
        self.cloud.progress(f"host {server.name} of stack {self.state.stack} starts again "
                            "with its new volumes")
        self.stop_host(server)
        self.start_host(server)

    def _mounts(self, record: ResourceRecord) -> list[str]:
        return [arg for a in self.state.of_type(VolumeAttachment.name)
                if a.properties.get("instance_uuid") == record.id and a.data.get("volume")
                for arg in ("--volume", f"{a.data['volume']}:{a.data['mountpoint']}")]

    def _new_secret(self, record: ResourceRecord) -> Path:
        run = self.cloud.run_dir(self.state.stack, record.name)
        private_directory(run)
        (run / READY_FILE).unlink(missing_ok=True)
        # a new secret at every start: a container started before answers to none
        secret = run / SECRET_FILE
        secret.unlink(missing_ok=True)
        write_private(secret, secrets.token_hex(32).encode(), exclusive=True)
        return run

    def _spawn(self, record: ResourceRecord) -> None:
        cloud, settings, stack = self.cloud, self.cloud.settings, self.state.stack
        record.data["started"] = time.monotonic()
        if record.data.pop("restart", False):
            self._new_secret(record)
            cloud.progress(f"starting container {record.data['container']} of host "
                           f"{record.name} again")
            cloud.podman.run("start", record.data["container"])
            return
        image = cloud.image(record)
        network, _, _ = self.network()
        run = self._new_secret(record)
        address = record.data["addresses"][0]["addr"]
        server_name = str(record.properties.get("name") or record.name)
        argv = [
            "run", "--detach", "--name", record.data["container"],
            "--hostname", hostname(server_name),
            *cloud.label_args(stack, **{RESOURCE_LABEL: record.name,
                                        MARKER_LABEL: record.data["marker"]}),
            "--network", network, "--ip", address, "--mac-address", mac_address(address),
            "--init",
            *(arg for u in settings.ulimits for arg in ("--ulimit", u)),
            *(arg for c in settings.capabilities for arg in ("--cap-add", c)),
            "--volume", f"{cloud.package}:{settings.agent_mount}/laguna:ro",
            "--volume", f"{run}:{AGENT_RUN}",
            *self._mounts(record),
            "--env", f"PATH={settings.path}", "--env", f"PYTHONPATH={settings.agent_mount}",
            "--env", "PYTHONDONTWRITEBYTECODE=1",
            "--env", f"LAGUNA_CLOUD_HOST={cloud.id}:{stack}:{record.data['marker']}",
            "--workdir", settings.root,
            "--entrypoint", settings.python, image,
            "-m", "laguna.agent", "--name", server_name, "--listen", f"{address}:0",
            "--root", settings.root, "--ready-file", f"{AGENT_RUN}/{READY_FILE}",
            "--secret-file", f"{AGENT_RUN}/{SECRET_FILE}"]
        cloud.progress(f"starting container of host {record.name} "
                       f"({record.data['container']}, {image} at {address})")
        cloud.podman.run(*argv)

    def settle(self) -> None:
        """Start the containers of the hosts prepared, wait until each agent is
        ready, then wait for the wait conditions of the push."""
        if self.pending:
            self._start_pending()
        self._floating_addresses()
        # the groups as they are now, before anyone waits for a signal
        self.cloud.firewall.apply(self.state)
        self.await_conditions()

    def _start_pending(self) -> None:
        self.save()      # before any container exists, so a crash leaves a trace
        for record in self.pending:
            self._spawn(record)
        deadline = time.monotonic() + self.cloud.settings.ready_timeout
        while self.pending:
            record = self.pending[0]
            ready = self._wait_ready(record, deadline)
            record.data.update(url=ready.get("url"))
            started = record.data.pop("started", None)
            took = f" ({time.monotonic() - started:.2f} s)" if started else ""
            self.cloud.progress(f"host {record.name} of stack {self.state.stack} is ready "
                                f"at {record.data['url']}{took}")
            self.pending.pop(0)

    def _wait_ready(self, record: ResourceRecord, deadline: float) -> dict[str, t.Any]:
        ready = self.cloud.run_dir(self.state.stack, record.name) / READY_FILE
        delay, checked = 0.002, time.monotonic()
        while True:
            data = read_ready(ready)
            if data is not None:
                return data
            now = time.monotonic()
            if now > deadline:
                self._fail(record, f"did not become ready within "
                                   f"{self.cloud.settings.ready_timeout:g} s")
            if now - checked > 0.5:
                checked = now
                state = self.cloud.podman.run(
                    "inspect", "--type", "container", "--format", "{{.State.Status}}",
                    record.data["container"], check=False).stdout.strip()
                if state != "running":
                    self._fail(record, f"stopped before it was ready ({state or 'gone'})")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _fail(self, record: ResourceRecord, why: str) -> t.NoReturn:
        logs = self.cloud.podman.run("logs", "--tail", "40", record.data["container"],
                                     check=False)
        raise HostError(f"the agent of host {record.name!r} (container "
                        f"{record.data['container']}) {why}:\n"
                        f"{(logs.stdout + logs.stderr)[-3000:]}",
                        stack=self.state.stack, resource=record.name,
                        path=f"resources.{record.name}")

    def abandon(self) -> None:
        self.pending.clear()
        self.waits.clear()

    # -- wait conditions (WaitingRealm's): the stack network's gateway ----------------

    def signal_server(self) -> SignalServer:
        server = self.cloud._signals.get(self.state.stack)
        if server is None:
            _, _, gateway = self.network()
            # the gateway is the bridge's once the network's first container runs
            server = self.cloud._signals[self.state.stack] = SignalServer(gateway,
                                                                          freebind=True)
        return server

    def existing_signal_server(self) -> SignalServer | None:
        return self.cloud._signals.get(self.state.stack)

    # -- volumes: podman volumes, mounted when a host's container starts -----------

    def create_volume(self, record: ResourceRecord) -> str:
        name = f"laguna-{self.cloud.id[:8]}-{_digest(self.state.stack, record.id)[:12]}"
        if not self.cloud.podman.exists("volume", name):   # (podman 4.3 has no --ignore)
            self.cloud.podman.run("volume", "create",
                                  *self.cloud.label_args(self.state.stack), name)
        return name

    def delete_volume(self, record: ResourceRecord) -> None:
        name = record.data.get("path")
        if name:
            # not --force, which would remove the containers that use it
            self.cloud.podman.run("volume", "rm", str(name), check=False)
            if self.cloud.podman.exists("volume", str(name)):
                raise HostError(f"volume {record.name!r} ({name}) is still in use",
                                stack=self.state.stack, resource=record.name)

    def attach_volume(self, record: ResourceRecord, server: ResourceRecord,
                      volume: ResourceRecord) -> None:
        mountpoint = str(record.properties["mountpoint"])
        if not mountpoint.startswith("/"):
            raise CloudError(f"mount point {mountpoint!r} must be an absolute path",
                             stack=self.state.stack, resource=record.name,
                             path=f"resources.{record.name}.properties.mountpoint")
        record.data.update(volume=volume.data["path"], mountpoint=mountpoint)
        self._replace(server)

    def detach_volume(self, record: ResourceRecord) -> None:
        server = self.state.by_id(record.properties.get("instance_uuid"))
        record.data.pop("volume", None)
        if server is not None and server.data.get("container"):
            self._replace(server)
