"""The local cloud: a stack's servers become hosts on this machine.

State lives under one directory (a working directory's ``.laguna/cloud/``)::

    stacks/<stack>.json        the stack's records: a snapshot and what each save changed
    stacks/<stack>.lock        held (fcntl) while a push or delete runs
    hosts/<stack>/<server>/    the host's own tree; its HOME and the agent's root
    run/<stack>/<server>/      agent.key (the host's secret), ready.json and agent.log
    volumes/<stack>/<volume>/  a volume's storage

Every folder is 0700 and every file the cloud writes 0600, whatever the
umask (``laguna.privacy``): the agents' secrets and plans are root's (the
owner's) alone. A host's secret is made anew each time its agent starts (a
new host, a host replaced, a dead agent restarted), so a rebuilt host never
answers to the secret of the one before.

A host's address is a loopback alias (``127.42.x.y``; all of 127/8 reaches
``lo`` on Linux, so binding needs no ``ip addr add``) or, with
``isolation="netns"``, an address of its own network namespace.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import time
import typing as t
import uuid
from pathlib import Path

from laguna.cloud import stacks
from laguna.cloud.base import Host
from laguna.cloud.errors import HostError
from laguna.cloud.local import netns, processes
from laguna.cloud.local.settings import Isolation
from laguna.cloud.local.signals import SignalServer
from laguna.cloud.local.addresses import (LOOPBACK_RANGE, NETNS_RANGE, AddressPool,
                                          default_registry)
from laguna.cloud.resources import Server
from laguna.cloud.state import COMPLETE, ResourceRecord, StackState
from laguna.cloud.offers import LOCAL_OFFER, Offer
from laguna.cloud.stored import SECRET_FILE, StoredCloud, WaitingRealm
from laguna.privacy import private_directory, write_private

DEFAULT_AGENT = (sys.executable, "-m", "laguna.agent")
# where loopback hosts signal wait conditions: all of 127/8 is one interface
SIGNAL_LOOPBACK = "127.0.0.1"


class LocalCloud(StoredCloud["_Realm"]):
    """Implements :class:`laguna.cloud.base.Cloud` on this machine."""

    def __init__(self, directory: Path, *, isolation: Isolation = "loopback",
                 agent_command: t.Sequence[str] = DEFAULT_AGENT,
                 address_range: str | None = None, registry: Path | None = None,
                 containment: processes.Containment | None = None,
                 bridge: str = "laguna0", ready_timeout: float = 30.0,
                 environ: t.Mapping[str, str] | None = None) -> None:
        if isolation == "netns":
            netns.check_available()
        self.directory = directory.resolve()
        private_directory(self.directory)   # tightened, if an older laguna left it open
        self.isolation = isolation
        self.agent_command = tuple(agent_command)
        self.network = address_range or (NETNS_RANGE if isolation == "netns"
                                         else LOOPBACK_RANGE)
        self.registry = registry or default_registry()
        reserved = [netns.gateway(self.network)] if isolation == "netns" else []
        self.pool = AddressPool(self.network, self.registry, self.directory, reserved)
        self.containment = containment or processes.default_containment()
        self.bridge = bridge
        self.ready_timeout = ready_timeout
        self.environ = dict(os.environ if environ is None else environ)
        super().__init__(self.directory)
        self.id = hashlib.sha256(str(self.directory).encode()).hexdigest()[:12]
        self._children: dict[str, subprocess.Popen[bytes]] = {}
        # (stack, server) -> its host's root: every push answers with every
        # host of the stack, and building the path each time cost more than the rest
        self._roots: dict[tuple[str, str], Path] = {}
        self._signals: SignalServer | None = None

    def signal_server(self) -> SignalServer:
        """The endpoint of wait-condition handles, on an address every host
        reaches (started with the first handle)."""
        if self._signals is None:
            if self.isolation == "netns":
                # the bridge holds the range's first address: make sure it exists
                netns.create([], self.network, self.bridge, self.registry / ".bridge.lock")
                address = netns.gateway(self.network)
            else:
                address = SIGNAL_LOOPBACK
            self._signals = SignalServer(address)
        return self._signals

    # -- the Cloud protocol (the rest is StoredCloud's) ------------------------------

    def _realm(self, state: StackState) -> _Realm:
        return _Realm(self, state)

    def offer(self) -> Offer:
        return LOCAL_OFFER

    def delete_stack(self, stack: str) -> None:
        with self.files.locked(stack):
            realm = _Realm(self, self._load(stack))
            self.files.begin(stack)
            # Every process of the stack in one sweep, rather than a sweep a host.
            launches = [_launch(r) for r in realm.state.of_type(Server.name)]
            if not processes.kill(launches, self._marker_prefix(stack)):
                raise HostError("processes of the stack did not die", stack=stack)
            realm.killed = True
            netns.delete(*(r.data["netns"] for r in realm.state.of_type(Server.name)
                           if r.data.get("netns")))
            stacks.delete_all(realm)
            for address in self.pool.owned(stack):
                self.pool.release(address, stack)
            for part in ("hosts", "run", "volumes"):
                shutil.rmtree(self.directory / part / stack, ignore_errors=True)
            self.files.remove(stack)
            self.files.end(stack)
            if self.isolation == "netns":
                netns.remove_bridge(self.bridge, self.registry / ".bridge.lock")

    # -- paths and recovery ------------------------------------------------------

    def host_root(self, stack: str, name: str) -> Path:
        root = self._roots.get((stack, name))
        if root is None:
            root = self._roots[stack, name] = self.directory / "hosts" / stack / name
        return root

    def _hosts(self, state: StackState) -> list[Host]:
        return [stacks.host(state.stack, r, self.host_root(state.stack, r.name),
                            self.agent_secret(state.stack, r.name))
                for r in state.of_type(Server.name)]

    def _marker_prefix(self, stack: str) -> str:
        return f"{self.id}:{stack}:"

    def _kill_strays(self, realm: _Realm) -> None:
        """Kill processes of this stack that no live recorded agent accounts for."""
        live = {r.data["marker"] for r in realm.state.of_type(Server.name)
                if r.status == COMPLETE and "marker" in r.data and realm.launched(r)}
        markers = set(processes.marked(self._marker_prefix(realm.state.stack)).values())
        for marker in markers - live:
            processes.kill([], marker)

    def _recover(self, realm: _Realm, unfinished: bool) -> None:
        """Restart dead agents and agents without a secret; after a crash
        (``unfinished``) first kill stray processes and free addresses no record
        holds."""
        if unfinished:
            self._kill_strays(realm)
            recorded = {a for r in realm.state.records.values()
                        for a in [*r.data.get("own_addresses", []), r.data.get("address")]
                        if a}
            for address in self.pool.owned(realm.state.stack):
                if address not in recorded:
                    self.pool.release(address, realm.state.stack)
        for record in realm.state.of_type(Server.name):
            # an agent without a secret was started by a laguna before agents had
            # one, and answers anyone: it goes, as a dead one would
            if record.status == COMPLETE and (
                    not realm.launched(record)
                    or self.agent_secret(realm.state.stack, record.name) is None):
                realm.stop_host(record, keep_root=True)
                realm.start_host(record)


def _launch(record: ResourceRecord) -> processes.Launch | None:
    data = record.data.get("launch")
    return processes.Launch(**data) if data else None


class _Realm(WaitingRealm):
    """The local cloud as seen by resource types, for one stack operation."""

    def __init__(self, cloud: LocalCloud, state: StackState) -> None:
        super().__init__()
        self.cloud = cloud
        self.state = state
        self.pending: list[ResourceRecord] = []
        self.killed = False      # every process of the stack is known to be dead

    def save(self) -> None:
        self.cloud.files.save(self.state)

    def new_id(self, record_name: str) -> str:
        return str(uuid.uuid4())

    def allocate_address(self, record: ResourceRecord) -> str:
        return self.cloud.pool.allocate(self.state.stack, record.name)

    def floating_address(self, record: ResourceRecord) -> str | None:
        return None     # hosts are reached at their port's address

    def release_address(self, address: str) -> None:
        self.cloud.pool.release(address, self.state.stack)

    def launched(self, record: ResourceRecord) -> bool:
        """True if the host's agent was ready and still runs."""
        launch = record.data.get("launch")
        if not launch or record.data.get("url") is None:
            return False
        child = self.cloud._children.get(str(launch.get("marker")))
        if child is not None and child.pid == launch.get("pid"):
            # a child of this process is a zombie until waited for, so its pid
            # cannot be reused: waitpid answers without reading /proc (every
            # push asks this of every server of the stack)
            return child.poll() is None
        return processes.alive(launch["pid"], launch["start_time"])

    # -- hosts ---------------------------------------------------------------

    def start_host(self, record: ResourceRecord) -> None:
        """Prepare a host; its agent starts in :meth:`settle`, with the others."""
        cloud, stack = self.cloud, self.state.stack
        if cloud.isolation == "netns":
            digest = hashlib.sha256(f"{cloud.id}:{stack}:{record.name}".encode())
            record.data["netns"] = netns.PREFIX + digest.hexdigest()[:12]
        marker = f"{cloud._marker_prefix(stack)}{record.name}:{uuid.uuid4().hex[:12]}"
        record.data.update(marker=marker, url=None)
        record.data.pop("launch", None)
        self.pending.append(record)

    def _spawn(self, record: ResourceRecord) -> None:
        cloud, stack = self.cloud, self.state.stack
        root = cloud.host_root(stack, record.name)
        run = cloud.run_dir(stack, record.name)
        private_directory(root)
        private_directory(run)
        ready = run / "ready.json"
        ready.unlink(missing_ok=True)
        # a new secret at every start: the agent started before (a host of the
        # same name, replaced or restarted) is refused by this one, and the reverse
        secret = run / SECRET_FILE
        secret.unlink(missing_ok=True)
        write_private(secret, secrets.token_hex(32).encode(), exclusive=True)
        addresses = [a["addr"] for a in record.data["addresses"]]
        namespace = record.data.get("netns")
        server_name = str(record.properties.get("name") or record.name)
        command = [*cloud.agent_command, "--name", server_name,
                   "--listen", f"{addresses[0]}:0", "--root", str(root),
                   "--ready-file", str(ready), "--secret-file", str(secret)]
        env = {**cloud.environ, "HOME": str(root)}
        marker = record.data["marker"]
        launch, child = processes.spawn(command, env=env, cwd=root, log=run / "agent.log",
                                        marker=marker, containment=cloud.containment,
                                        netns=namespace)
        cloud._children[marker] = child
        record.data["launch"] = dataclasses.asdict(launch)

    # -- wait conditions (WaitingRealm's) ------------------------------------------

    def signal_server(self) -> SignalServer:
        return self.cloud.signal_server()

    def existing_signal_server(self) -> SignalServer | None:
        return self.cloud._signals

    def settle(self) -> None:
        """Start the agents of the hosts prepared, wait until each is ready,
        then wait for the wait conditions of the push."""
        if self.pending:
            self._start_pending()
        self.await_conditions()

    def _start_pending(self) -> None:
        self.save()      # before any process exists, so a crash leaves a trace
        namespaces = [(r.data["netns"], [a["addr"] for a in r.data["addresses"]])
                      for r in self.pending if r.data.get("netns")]
        if namespaces:
            netns.delete(*(name for name, _ in namespaces))
            netns.create(namespaces, self.cloud.network, self.cloud.bridge,
                         self.cloud.registry / ".bridge.lock")
        for record in self.pending:
            self._spawn(record)
        deadline = time.monotonic() + self.cloud.ready_timeout     # for all of them
        while self.pending:
            record = self.pending[0]
            launch = _launch(record)
            assert launch is not None
            run = self.cloud.run_dir(self.state.stack, record.name)
            ready = processes.wait_ready(run / "ready.json", launch,
                                         max(0.0, deadline - time.monotonic()))
            if ready is None:
                log = (run / "agent.log").read_text(errors="replace")[-2000:]
                raise HostError(f"the agent of host {record.name!r} did not become "
                                f"ready:\n{log}", stack=self.state.stack,
                                resource=record.name,
                                path=f"resources.{record.name}")
            record.data.update(url=ready.get("url"), agent_pid=ready.get("pid"))
            self.pending.pop(0)

    def abandon(self) -> None:
        """Forget agents not waited for (a push failed); their records stay
        ``creating`` or dead-but-complete and the next push cleans them up."""
        self.pending.clear()
        self.waits.clear()

    def stop_host(self, record: ResourceRecord, keep_root: bool = False) -> None:
        cloud = self.cloud
        marker = record.data.get("marker")
        if marker is not None and not self.killed:
            if not processes.kill([_launch(record)], marker):
                raise HostError(f"processes of host {record.name!r} did not die",
                                stack=self.state.stack, resource=record.name)
        child = cloud._children.pop(str(marker), None)
        if child is not None:
            child.wait()
        if record.data.get("netns"):
            netns.delete(record.data["netns"])
        shutil.rmtree(cloud.run_dir(self.state.stack, record.name), ignore_errors=True)
        if not keep_root:
            shutil.rmtree(cloud.host_root(self.state.stack, record.name),
                          ignore_errors=True)

    # -- volumes ---------------------------------------------------------------

    def create_volume(self, record: ResourceRecord) -> str:
        path = self.cloud.directory / "volumes" / self.state.stack / record.name
        private_directory(path)
        return str(path)

    def delete_volume(self, record: ResourceRecord) -> None:
        if "path" in record.data:
            shutil.rmtree(record.data["path"], ignore_errors=True)

    def attach_volume(self, record: ResourceRecord, server: ResourceRecord,
                      volume: ResourceRecord) -> None:
        mountpoint = str(record.properties["mountpoint"]).lstrip("/")
        link = self.cloud.host_root(self.state.stack, server.name) / mountpoint
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(volume.data["path"], target_is_directory=True)
        record.data["link"] = str(link)

    def detach_volume(self, record: ResourceRecord) -> None:
        link = Path(record.data.get("link", ""))
        if record.data.get("link") and link.is_symlink():
            link.unlink()
