"""Host addresses, unique on this machine across stacks and working directories.

A registry directory shared by every local cloud of the machine holds one
file per address in use, created with ``O_EXCL`` (so two allocators never get
the same address without any lock) and naming its owner: the cloud directory,
the stack and the resource. An entry whose cloud directory is gone is stale
and is taken over. Each cloud starts its search at an offset derived from its
directory, so clouds rarely contend for the same files.

The registry (folder 0700, entries 0600) is its user's alone: for root,
``/run/laguna/addresses``, shared by root's clouds; for anyone else, a folder
in the temporary directory, which must belong to that user (another user
could otherwise have made it first and swap its entries).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import tempfile
import typing as t
import uuid
from pathlib import Path

from laguna.cloud.errors import CloudError
from laguna.privacy import private_directory, write_private

LOOPBACK_RANGE = "127.42.0.0/16"
NETNS_RANGE = "198.18.0.0/15"


def default_registry() -> Path:
    """Machine-wide for root (``/run``), per user otherwise; its parent folder
    (``/run/laguna``, ``$TMPDIR/laguna-<uid>``) is made private here."""
    if os.geteuid() == 0 and os.path.isdir("/run"):
        parent = Path("/run/laguna")
    else:
        parent = Path(tempfile.gettempdir()) / f"laguna-{os.getuid()}"
    _own_private(parent)
    return parent / "addresses"


def _own_private(folder: Path) -> None:
    """Make ``folder`` private; refuse (and leave alone) one of another user."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    owner = folder.stat().st_uid
    if owner != os.geteuid():
        raise CloudError(f"the address registry {folder} belongs to user {owner}, "
                         f"not to this one ({os.geteuid()})")
    private_directory(folder)


class AddressPool:
    """Allocates addresses of ``network`` for the cloud at ``owner``."""

    def __init__(self, network: str, registry: Path, owner: Path,
                 reserved: t.Collection[str] = ()) -> None:
        self.network = ipaddress.ip_network(network)
        self.registry = registry
        self.owner = str(owner)
        self.reserved = {*reserved, "127.0.0.1"}
        _own_private(self.registry)
        # Where the next search starts: after the last address handed out, so a
        # run of allocations does not walk over its own entries again.
        self._cursor = int.from_bytes(hashlib.sha256(self.owner.encode()).digest()[:4],
                                      "big")

    def _candidates(self) -> t.Iterator[str]:
        size = self.network.num_addresses
        base = int(self.network.network_address)
        start = self._cursor
        for i in range(size):
            self._cursor = start + i + 1
            address = ipaddress.ip_address(base + (start + i) % size)
            last = int(address) & 0xFF
            text = str(address)
            if last in (0, 255) or text in self.reserved:
                continue
            yield text

    def allocate(self, stack: str, resource: str) -> str:
        entry = json.dumps({"owner": self.owner, "stack": stack, "resource": resource})
        for address in self._candidates():
            path = self.registry / address
            if self._create(path, entry):
                return address
            if self._stale(path) and self._take_over(path) and self._create(path, entry):
                return address
        raise CloudError(f"no free address left in {self.network}", stack=stack,
                         resource=resource)

    @staticmethod
    def _create(path: Path, entry: str) -> bool:
        try:
            write_private(path, entry.encode(), exclusive=True)
        except FileExistsError:
            return False
        return True

    @staticmethod
    def _read(path: Path) -> dict[str, t.Any] | None:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _stale(self, path: Path) -> bool:
        data = self._read(path)
        # An empty or torn entry is one being written right now: leave it alone.
        return data is not None and not os.path.isdir(str(data.get("owner")))

    def _take_over(self, path: Path) -> bool:
        # Renaming is atomic: of two clouds taking over one entry, one wins.
        try:
            os.rename(path, path.with_name(f".stale-{uuid.uuid4().hex}"))
        except FileNotFoundError:
            return False
        for leftover in self.registry.glob(".stale-*"):
            leftover.unlink(missing_ok=True)
        return True

    def release(self, address: str, stack: str) -> None:
        """Free an address if this cloud holds it for ``stack``."""
        path = self.registry / address
        data = self._read(path)
        if data is not None and (data.get("owner"), data.get("stack")) == (self.owner, stack):
            path.unlink(missing_ok=True)

    def owned(self, stack: str) -> dict[str, str]:
        """Addresses of this range held for ``stack``: address -> resource."""
        found = {}
        for path in self.registry.iterdir():
            if path.name.startswith("."):
                continue
            try:
                if ipaddress.ip_address(path.name) not in self.network:
                    continue
            except ValueError:
                continue
            data = self._read(path)
            if data and data.get("owner") == self.owner and data.get("stack") == stack:
                found[path.name] = str(data.get("resource"))
        return found
