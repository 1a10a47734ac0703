"""The ssh cloud: a stack's servers take existing machines listed in an inventory.

State lives under the working directory's ``.laguna/cloud/ssh/``::

    inventory                  the path of the inventory this folder uses
    known_hosts                the machines' host keys, recorded on first use
    machines.json              which server holds which machine (``machines``)
    stacks/<stack>.json        the stack's records (``StateFiles``, as the local cloud)
    run/<stack>/<server>/      agent.key: the host's secret, as this side keeps it

Each server takes a free machine whose labels include those its image and
flavor name (``inventory.wanted_labels``); a push that needs more machines
than are free fails while its resources are created, before any machine is
touched (agents start once every resource of the push exists). A host's
agent is copied to the machine as a zipapp and started there, bound to the
machine's address, with a new secret at every start (``remote``).
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import shutil
import socket
import sys
import time
import typing as t
import urllib.parse
import uuid
from pathlib import Path

from laguna.cloud import stacks
from laguna.cloud.base import Host
from laguna.cloud.errors import CloudError, HostError
from laguna.cloud.local.statefiles import StateFiles
from laguna.cloud.resources import FloatingIP, Server
from laguna.cloud.ssh import inventory as inventories
from laguna.cloud.ssh.machines import Assignments, Entry
from laguna.cloud.ssh.remote import Notify, Session
from laguna.cloud.state import COMPLETE, ResourceRecord, StackState
from laguna.cloud.offers import AUTO_NETWORK, NO_KEYPAIR, ONE_ZONE, Offer
from laguna.cloud.stored import SECRET_FILE, StoredCloud
from laguna.privacy import private_directory, write_private

#: what a port's address is until its server has taken a machine
UNASSIGNED = "0.0.0.0"
#: the image or flavor a form offers first: a label no machine needs to carry
ANY_MACHINE = "any"


def _print(message: str) -> None:
    print(message, file=sys.stderr)


class SshCloud(StoredCloud["_Realm"]):
    """Implements :class:`laguna.cloud.base.Cloud` on the machines of an inventory."""

    def __init__(self, state_dir: Path, inventory: Path | None = None, *,
                 notify: Notify = _print, ready_timeout: float = 30.0,
                 connect_timeout: float = 10.0) -> None:
        self.directory = (state_dir / "ssh").resolve()
        private_directory(self.directory)
        remembered = self.directory / "inventory"
        if inventory is None:
            try:
                inventory = Path(remembered.read_text(encoding="utf-8").strip())
            except FileNotFoundError:
                raise CloudError(f"no inventory: give one (--inventory FILE); none is "
                                 f"remembered in {self.directory}") from None
        self.inventory = inventories.load(inventory)
        if not remembered.exists() or remembered.read_text(encoding="utf-8").strip() \
                != str(self.inventory.path):
            write_private(remembered, f"{self.inventory.path}\n".encode())
        self.notify = notify
        self.ready_timeout = ready_timeout
        self.connect_timeout = connect_timeout
        self.known_hosts = self.directory / "known_hosts"
        self.files = StateFiles(self.directory / "stacks")
        self.machines = Assignments(self.directory / "machines.json")
        self.id = hashlib.sha256(str(self.directory).encode()).hexdigest()[:12]

    # -- the Cloud protocol (push_stack and the reads: StoredCloud) ----------------

    def _realm(self, state: StackState) -> _Realm:
        return _Realm(self, state)

    def offer(self) -> Offer:
        """A server's image or flavor asks for the machines labelled so: the
        inventory's labels, after ``any`` (a name no label needs, so any free
        machine); key pairs are the inventory's business, zones and networks
        are the machines' own."""
        asked = (ANY_MACHINE, *sorted(self.inventory.labels() - {ANY_MACHINE}))
        return Offer(flavors=asked, images=asked, keypairs=NO_KEYPAIR, zones=ONE_ZONE,
                     networks=AUTO_NETWORK)

    def _operation(self, state: StackState) -> _Realm:
        # the realm closes the sessions it opened to the machines at its end
        return self._realm(state)

    def delete_stack(self, stack: str) -> None:
        """Stop every agent of the stack and remove its folder from its machine,
        then free the machines. A machine that cannot be reached stays taken
        (a leftover) and the error says so; the others are cleaned all the same,
        and a later push or delete of the stack cleans the leftovers."""
        with self.files.locked(stack), _Realm(self, self._load(stack)) as realm:
            self.files.begin(stack)
            realm.tolerant = True
            self._clean_leftovers(realm)
            stacks.delete_all(realm)
            for name, entry in self.machines.of_stack(stack).items():
                if not entry.get("leftover"):
                    realm.release_machine(name, entry)
            self.files.remove(stack)
            shutil.rmtree(self.directory / "run" / stack, ignore_errors=True)
            self.files.end(stack)
            if realm.failures:
                raise HostError(
                    "not every machine could be cleaned; each stays taken until a later "
                    "push or delete of the stack cleans it:\n  "
                    + "\n  ".join(realm.failures), stack=stack)

    # -- secrets, hosts and recovery -----------------------------------------------

    def _hosts(self, state: StackState) -> list[Host]:
        return [stacks.host(state.stack, r, None, self.agent_secret(state.stack, r.name))
                for r in state.of_type(Server.name)]

    def _clean_leftovers(self, realm: _Realm) -> None:
        for name, entry in self.machines.of_stack(realm.state.stack).items():
            if entry.get("leftover"):
                realm.release_machine(name, entry)

    def _recover(self, realm: _Realm, unfinished: bool) -> None:
        """Clean leftovers; after a crash (``unfinished``), clean and free the
        machines no record holds; start again agents that do not answer."""
        realm.tolerant = True
        self._clean_leftovers(realm)
        if unfinished:
            held = {(r.name, r.data.get("machine")) for r in realm.state.of_type(Server.name)}
            for name, entry in self.machines.of_stack(realm.state.stack).items():
                if not entry.get("leftover") and (entry["server"], name) not in held:
                    realm.release_machine(name, entry)
        for failure in realm.failures:
            self.notify(f"stack {realm.state.stack!r}: a machine could not be cleaned and "
                        f"stays taken: {failure}")
        realm.failures.clear()
        realm.tolerant = False
        for record in realm.state.of_type(Server.name):
            if record.status == COMPLETE and not realm.answers(record):
                realm.stop_host(record, keep_machine=True)
                realm.start_host(record)


class _Realm:
    """The ssh cloud as seen by resource types, for one stack operation."""

    def __init__(self, cloud: SshCloud, state: StackState) -> None:
        self.cloud = cloud
        self.state = state
        self.pending: list[ResourceRecord] = []
        #: machines taken in this operation, by record
        self.taken: list[tuple[ResourceRecord, str]] = []
        self.sessions: dict[str, Session] = {}
        #: deleting: a machine that cannot be cleaned is noted here, not raised
        self.tolerant = False
        self.failures: list[str] = []

    def __enter__(self) -> _Realm:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for session in self.sessions.values():
            session.close()

    def save(self) -> None:
        self.cloud.files.save(self.state)

    def new_id(self, record_name: str) -> str:
        return str(uuid.uuid4())

    def session(self, entry: Entry) -> Session:
        machine = inventories.Machine.from_json(entry["machine"])
        session = self.sessions.get(machine.name)
        if session is None:
            session = self.sessions[machine.name] = Session(
                machine, self.cloud.known_hosts, self.cloud.notify,
                self.cloud.connect_timeout)
        return session

    # -- machines and addresses -----------------------------------------------------

    def _machine(self, record: ResourceRecord) -> inventories.Machine:
        """The machine the server holds, taken now if it holds none."""
        machines = self.cloud.machines
        entry = machines.held(self.state.stack, record.name, record.data.get("machine"))
        if entry is not None:
            return inventories.Machine.from_json(entry["machine"])
        wanted = inventories.wanted_labels(record.properties, self.cloud.inventory.labels())
        machine = machines.take(self.cloud.inventory, self.state.stack, record.name, wanted)
        record.data["machine"] = machine.name
        self.taken.append((record, machine.name))
        return machine

    def allocate_address(self, record: ResourceRecord) -> str:
        if record.type == Server.name:
            return self._machine(record).address
        return UNASSIGNED       # a port's: its server's machine's, once it has one

    def floating_address(self, record: ResourceRecord) -> str | None:
        return None

    def release_address(self, address: str) -> None:
        pass        # a machine is freed with its server

    def release_machine(self, name: str, entry: Entry) -> None:
        """Stop what laguna started on the machine, remove its folder, free it;
        when that fails: raise, or (``tolerant``) keep it as a leftover."""
        if entry.get("marker"):
            try:
                self.session(entry).stop(entry.get("folder"), entry["marker"])
            except HostError as exc:
                if not self.tolerant:
                    raise
                self.cloud.machines.update(name, leftover=True)
                self.failures.append(f"{name}: {exc}")
                return
        self.cloud.machines.free(name)

    # -- hosts -----------------------------------------------------------------------

    def start_host(self, record: ResourceRecord) -> None:
        """Give the server its machine's address everywhere; the agent starts
        in :meth:`settle`, once every resource of the push exists."""
        machine = self._machine(record)
        for entry in record.data.get("addresses", []):
            entry["addr"] = machine.address
            port = self.state.by_id(entry.get("port"))
            if port is not None:
                port.data["address"] = machine.address
                for ip in self.state.of_type(FloatingIP.name):
                    if ip.properties.get("port_id") == port.id and not ip.data.get("own"):
                        ip.data["address"] = machine.address
        marker = f"{self.cloud.id}:{self.state.stack}:{record.name}:{uuid.uuid4().hex[:12]}"
        record.data.update(marker=marker, url=None, folder=None)
        self.pending.append(record)

    def settle(self) -> None:
        """Copy and start the agents of the hosts prepared, then wait until each
        is ready."""
        if not self.pending:
            return
        machines = self.cloud.machines
        started: list[tuple[ResourceRecord, Session]] = []
        for record in self.pending:
            entry = machines.held(self.state.stack, record.name, record.data["machine"])
            assert entry is not None
            session = self.session(entry)
            with self._about(record):
                folder = f"{session.home()}/.laguna-{record.data['marker'].rsplit(':', 1)[1]}"
                record.data["folder"] = folder
                # known before anything is put there, so a crash leaves a trace
                machines.update(record.data["machine"], folder=folder,
                                marker=record.data["marker"])
                self.save()
                secret = secrets.token_hex(32)
                run = self.cloud.run_dir(self.state.stack, record.name)
                private_directory(run)
                (run / SECRET_FILE).unlink(missing_ok=True)
                write_private(run / SECRET_FILE, secret.encode(), exclusive=True)
                session.install(folder, secret)
                session.start(folder, str(record.properties.get("name") or record.name),
                              record.data["marker"])
            started.append((record, session))
        deadline = time.monotonic() + self.cloud.ready_timeout
        for record, session in started:
            with self._about(record):
                ready = session.wait_ready(record.data["folder"], record.data["marker"],
                                           max(0.0, deadline - time.monotonic()))
            record.data.update(url=ready.get("url"), agent_pid=ready.get("pid"))
            self.pending.remove(record)

    @contextlib.contextmanager
    def _about(self, record: ResourceRecord) -> t.Iterator[None]:
        """A HostError of the machine names the stack and the server too."""
        try:
            yield
        except HostError as exc:
            if exc.stack is None:
                exc.stack, exc.resource = self.state.stack, record.name
                exc.path = f"resources.{record.name}"
            raise

    def answers(self, record: ResourceRecord) -> bool:
        """True if the host's agent listens (a TCP connection to its URL's port;
        it answers nothing unsigned)."""
        url = urllib.parse.urlsplit(str(record.data.get("url") or ""))
        if not url.hostname or not url.port \
                or self.cloud.agent_secret(self.state.stack, record.name) is None:
            return False
        try:
            socket.create_connection((url.hostname, url.port),
                                     timeout=self.cloud.connect_timeout).close()
        except OSError:
            return False
        return True

    def abandon(self) -> None:
        """A push failed: the machines it took for hosts it never started are
        free again (their records take one anew at the next push)."""
        for record, name in self.taken:
            entry = self.cloud.machines.held(self.state.stack, record.name, name)
            if entry is not None and not entry.get("marker"):
                self.cloud.machines.free(name)
        self.taken.clear()
        self.pending.clear()

    def stop_host(self, record: ResourceRecord, keep_machine: bool = False) -> None:
        name = str(record.data.get("machine"))
        entry = self.cloud.machines.held(self.state.stack, record.name,
                                         record.data.get("machine"))
        if entry is not None:
            if keep_machine:
                if entry.get("marker"):
                    self.session(entry).stop(entry.get("folder"), entry["marker"])
                self.cloud.machines.update(name, folder=None, marker=None)
            else:
                self.release_machine(name, entry)
        if record in self.pending:
            self.pending.remove(record)
        shutil.rmtree(self.cloud.run_dir(self.state.stack, record.name), ignore_errors=True)

    # -- what the ssh cloud does not provide -----------------------------------------

    def create_volume(self, record: ResourceRecord) -> str:
        raise CloudError("the ssh cloud provides no volumes: a machine's storage is "
                         "its own", stack=self.state.stack, resource=record.name,
                         path=f"resources.{record.name}")

    def delete_volume(self, record: ResourceRecord) -> None:
        pass

    def attach_volume(self, record: ResourceRecord, server: ResourceRecord,
                      volume: ResourceRecord) -> None:
        pass

    def detach_volume(self, record: ResourceRecord) -> None:
        pass

    def signal_url(self, handle: ResourceRecord) -> tuple[str, str]:
        raise CloudError("the ssh cloud does not serve wait conditions yet",
                         stack=self.state.stack, resource=handle.name,
                         path=f"resources.{handle.name}")

    def forget_handle(self, handle: ResourceRecord) -> None:
        pass

    def await_signals(self, condition: ResourceRecord, handle: ResourceRecord,
                      count: int, timeout: float) -> None:
        raise CloudError("the ssh cloud does not serve wait conditions yet",
                         stack=self.state.stack, resource=condition.name)
