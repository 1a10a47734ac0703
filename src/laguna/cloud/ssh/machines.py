"""Which machine of the inventory each server holds: ``machines.json`` in the
ssh cloud's folder, changed under an fcntl lock (two stacks of one working
directory never take the same machine).

An entry, by machine name::

    {"machines": {"web1": {"stack": ..., "server": ..., "machine": {the inventory's entry, as taken},
     "folder": "/home/u/.laguna-..." or null, "marker": ... or null,
     "leftover": false}, ...}}

``folder`` is set (and saved) before anything is put on the machine, so an
entry without one has nothing to clean. An entry whose machine could not be
cleaned when its server was deleted is a ``leftover``: the machine stays
taken until a later push or delete of the stack cleans it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import typing as t
from pathlib import Path

from laguna.cloud.errors import CloudError
from laguna.cloud.ssh.inventory import Inventory, Machine
from laguna.privacy import open_private, write_private

Entry = dict[str, t.Any]


class Assignments:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = path.with_suffix(".lock")

    @contextlib.contextmanager
    def _changing(self) -> t.Iterator[dict[str, Entry]]:
        with open(self._lock, "a", opener=open_private) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self._read()
            before = json.dumps(entries, sort_keys=True)
            yield entries
            if json.dumps(entries, sort_keys=True) != before:
                temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
                write_private(temporary, json.dumps({"machines": entries}, indent=1,
                                                    sort_keys=True).encode())
                os.replace(temporary, self.path)

    def _read(self) -> dict[str, Entry]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return dict(data.get("machines") or {}) if isinstance(data, dict) else {}

    def all(self) -> dict[str, Entry]:
        with self._changing() as entries:
            return dict(entries)

    def of_stack(self, stack: str) -> dict[str, Entry]:
        return {name: entry for name, entry in self.all().items() if entry["stack"] == stack}

    def held(self, stack: str, server: str, name: str | None) -> Entry | None:
        """The entry of machine ``name`` if the server holds it (not a leftover)."""
        if name is None:
            return None
        entry = self.all().get(name)
        if (entry is None or entry.get("leftover") or entry["stack"] != stack
                or entry["server"] != server):
            return None
        return entry

    def take(self, inventory: Inventory, stack: str, server: str,
             wanted: t.AbstractSet[str]) -> Machine:
        """The first free machine of the inventory with every label ``wanted``."""
        with self._changing() as entries:
            for machine in inventory.machines:
                if machine.name not in entries and set(machine.labels) >= wanted:
                    entries[machine.name] = {"stack": stack, "server": server,
                                             "machine": machine.to_json(), "folder": None,
                                             "marker": None, "leftover": False}
                    return machine
            fitting = [m for m in inventory.machines if set(m.labels) >= wanted]
            labels = f" with the labels {', '.join(sorted(wanted))}" if wanted else ""
            held = "; ".join(f"{m.name} is held by {_holder(entries[m.name])}"
                             for m in fitting if m.name in entries)
            raise CloudError(
                f"no free machine{labels} for server {server!r}: the inventory "
                f"{inventory.path} has {len(fitting)} such machine(s)"
                + (f" ({held})" if held else "") + "; the push is refused before "
                "anything starts", stack=stack, resource=server,
                path=f"resources.{server}")

    def update(self, name: str, **fields: t.Any) -> None:
        with self._changing() as entries:
            if name in entries:
                entries[name].update(fields)

    def free(self, name: str) -> None:
        with self._changing() as entries:
            entries.pop(name, None)


def _holder(entry: Entry) -> str:
    what = "a leftover of" if entry.get("leftover") else "server"
    return f"{what} {entry['server']!r} of stack {entry['stack']!r}"
