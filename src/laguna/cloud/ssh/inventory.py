"""The inventory of the ssh cloud: the machines a deployment's servers may take.

A YAML file::

    machines:
      - name: web1                 # optional; the address (and port) otherwise
        address: 198.51.100.7      # required: where sshd listens and the agent binds
        port: 22                   # optional, 22
        user: deploy               # required: the login user
        key: keys/deploy_ed25519   # a private key file (relative to this file), or
        agent: true                # the keys of the running ssh-agent (SSH_AUTH_SOCK)
        labels: [web, ssd]         # optional: what a server's image or flavor may ask for
        python: /usr/bin/python3   # optional, python3: runs the agent (3.11 or later)
        sudo: false                # optional: start the agent with ``sudo -n`` (as root)

Every error names the file, the line and the field that is wrong.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import typing as t
from pathlib import Path

from laguna.cloud.errors import CloudError
from laguna.errors import SourceError
from laguna.source import Span
from laguna.yamlio import YMap, YSeq, load_all, span_of

FIELDS = ("name", "address", "port", "user", "key", "agent", "labels", "python", "sudo")
NAME = re.compile(r"[A-Za-z0-9\[][A-Za-z0-9_.:\[\]-]*\Z")
USER = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\$?\Z")


class InventoryError(CloudError):
    """The inventory file cannot be read, or a field of it is wrong."""


@dataclasses.dataclass(frozen=True, slots=True)
class Machine:
    name: str
    address: str
    port: int
    user: str
    key: str | None             # an absolute path
    agent: bool
    labels: tuple[str, ...]
    python: str
    sudo: bool

    def to_json(self) -> dict[str, t.Any]:
        return {field.name: (list(self.labels) if field.name == "labels"
                             else getattr(self, field.name))
                for field in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> Machine:
        return cls(**{**data, "labels": tuple(data.get("labels") or ())})

    @property
    def target(self) -> str:
        """``user@address:port``, for messages."""
        return f"{self.user}@{self.address}:{self.port}"


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory:
    path: Path
    machines: tuple[Machine, ...]

    def labels(self) -> frozenset[str]:
        return frozenset(label for m in self.machines for label in m.labels)


def _fail(where: Span | None, path: Path, field: str, message: str) -> t.NoReturn:
    line = f":{where.line}" if where is not None else ""
    raise InventoryError(f"{path}{line}: {field}: {message}")


def load(path: Path) -> Inventory:
    """The inventory in ``path``; :class:`InventoryError` if it is not valid."""
    path = path.resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InventoryError(f"{path}: cannot read the inventory: {exc}") from None
    try:
        documents = load_all(text, str(path))
    except SourceError as exc:
        raise InventoryError(f"{path}: not valid YAML: {exc}") from None
    top = documents[0] if documents else None
    if not isinstance(top, YMap):
        _fail(span_of(top), path, "(top)", "a mapping with a list 'machines' is needed")
    for key in top:
        if key != "machines":
            _fail(top.key_spans.get(key), path, str(key),
                  "unknown field (the inventory has 'machines' only)")
    entries = top.get("machines")
    if not isinstance(entries, YSeq) or not entries:
        _fail(top.key_spans.get("machines", top.span), path, "machines",
              "a non-empty list of machines is needed")
    machines = [_machine(path, entry, i, entries.span) for i, entry in enumerate(entries)]
    seen: dict[str, int] = {}
    for i, machine in enumerate(machines):
        if machine.name in seen:
            entry = entries[i]
            _fail(entry.key_spans.get("name", entry.span), path, f"machines[{i}].name",
                  f"{machine.name!r} names machines[{seen[machine.name]}] too")
        seen[machine.name] = i
    return Inventory(path, tuple(machines))


def _machine(path: Path, entry: t.Any, i: int, around: Span) -> Machine:
    where = f"machines[{i}]"
    if not isinstance(entry, YMap):
        _fail(span_of(entry) or around, path, where, "a mapping is needed")

    def fail(field: str, message: str) -> t.NoReturn:
        _fail(entry.key_spans.get(field, entry.span), path, f"{where}.{field}", message)

    for key in entry:
        if key not in FIELDS:
            fail(str(key), f"unknown field (known: {', '.join(FIELDS)})")

    def text(field: str, required: bool = False) -> str | None:
        value = entry.get(field)
        if value is None:
            if required or field in entry:
                fail(field, "a value is needed")
            return None
        if not isinstance(value, str) or not value.strip():
            fail(field, f"must be a non-empty string, got {value!r}")
        return str(value)

    def flag(field: str) -> bool:
        value = entry.get(field, False)
        if not isinstance(value, bool):
            fail(field, f"must be true or false, got {value!r}")
        return value

    address = t.cast(str, text("address", required=True))
    try:
        address = str(ipaddress.ip_address(address))
    except ValueError:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", address):
            fail("address", f"{address!r} is neither an IP address nor a host name")
    port = entry.get("port", 22)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        fail("port", f"must be a port number from 1 to 65535, got {port!r}")
    user = t.cast(str, text("user", required=True))
    if not USER.match(user):
        fail("user", f"{user!r} is not a user name")
    shown = f"[{address}]" if ":" in address else address
    name = text("name") or (shown if port == 22 else f"{shown}:{port}")
    if not NAME.match(name):
        fail("name", f"{name!r}: letters, digits and '_.:[]-' only")
    key = text("key")
    agent = flag("agent")
    if key is None and not agent:
        fail("key" if "key" in entry else "agent",
             "a private key file ('key: FILE') or 'agent: true' is needed")
    if key is not None:
        key_path = (path.parent / Path(key).expanduser()).resolve()
        if not key_path.is_file():
            fail("key", f"no such file: {key_path}")
        key = str(key_path)
    labels = entry.get("labels", [])
    if isinstance(labels, str):
        labels = [labels]
    if not isinstance(labels, list) or not all(isinstance(x, str) and x.strip()
                                               for x in labels):
        fail("labels", f"must be a list of names, got {labels!r}")
    python = text("python") or "python3"
    return Machine(name=name, address=address, port=port, user=user, key=key, agent=agent,
                   labels=tuple(str(x) for x in labels), python=python, sudo=flag("sudo"))


def wanted_labels(properties: t.Mapping[str, t.Any], known: frozenset[str]) -> set[str]:
    """The labels a server asks for: its image and flavor where they name a
    label some machine of the inventory has (``image: web`` or
    ``flavor: "web,ssd"``). An image no machine is labelled with (``debian-12``)
    asks for nothing: any machine will do."""
    wanted: set[str] = set()
    for field in ("image", "flavor"):
        value = properties.get(field)
        if isinstance(value, str):
            wanted.update(p.strip() for p in value.split(",") if p.strip() in known)
    return wanted
