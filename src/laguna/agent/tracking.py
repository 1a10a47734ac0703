"""What each component's plans left on the host, and whether it is still there (drift).

A plan sent for a component (the request's ``component``) runs its scripts
with two more variables: ``LAGUNA_TRACKED_COMPONENT=<component>`` and
``LAGUNA_TRACKED_BY=<this host's token>``. Processes inherit their parent's
environment, so a daemon a script starts (``nohup ... &``, ``setsid``, a
double fork) keeps both, whatever session or process group it moved to;
the token keeps apart the processes of other hosts of the same machine
(the local cloud's hosts share one ``/proc``). After the plan:

* **processes**: every live process whose environment carries both marks is
  the component's (its pid, its start time from ``/proc/PID/stat`` so that
  a reused pid is not taken for it, its command line); the set replaces the
  component's last one (a later plan that stopped a daemon drops it);
* **files**: the host's directory (HOME, the agent's own folder excepted) is
  listed before and after; what the plan created or changed, and the paths
  the request names (``files``: where the front end put a file, absolute or
  from HOME), are the component's, with their SHA-256; a file held open by a
  tracked process (a log, a database) is checked for existence only; what the
  plan removed is no one's any more;
* **addresses**: the TCP ports the component's processes listen on
  (``/proc/net/tcp``, ``tcp6``) after the plan, and those a check finds them
  listening on later (a daemon may bind after its script ended).

``check()`` compares each component's record with the host as it is now:
processes gone, files missing or changed, addresses no one listens on.
Records are kept in ``ROOT/agent/drift.json`` (0600), so an agent started
again still knows them. Standard library only, as the rest of the agent.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from laguna.privacy import write_private

COMPONENT_VARIABLE = "LAGUNA_TRACKED_COMPONENT"
TOKEN_VARIABLE = "LAGUNA_TRACKED_BY"
#: bounds of one listing of the host's directory, and of a file hashed
MAX_FILES = 20000
MAX_HASHED = 64 * 1024 * 1024
#: reads of an environment that is empty while its process execs
EXEC_RETRIES = 20
STATE_FILE = "drift.json"

# (mtime_ns, size, inode) of a file
Stamp = tuple[int, int, int]


class Difference(NamedTuple):
    """One thing a component's plans left that is not as they left it."""

    kind: str       # process, file, address
    what: str       # "sleep 1000 (pid 42)", "/root/app.conf", "127.0.0.1:8080"
    problem: str    # gone, missing, changed, not listening

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "what": self.what, "problem": self.problem}


class Tracker:
    """The records of one host (``root``, its HOME), safe to use from several threads."""

    def __init__(self, root: Path, proc: Path = Path("/proc")) -> None:
        self.root = root
        self.proc = proc
        self.path = root / "agent" / STATE_FILE
        self._lock = threading.Lock()
        self._state = self._load()

    # -- the marks scripts get ---------------------------------------------------------

    @property
    def token(self) -> str:
        return str(self._state["token"])

    def environment(self, component: str) -> dict[str, str]:
        return {COMPONENT_VARIABLE: component, TOKEN_VARIABLE: self.token}

    # -- recording ------------------------------------------------------------------------

    def listing(self) -> dict[str, Stamp]:
        """The files of the host's directory now (what a plan changes is the
        difference of two listings)."""
        found: dict[str, Stamp] = {}
        skip = self.root / "agent"
        stack = [self.root]
        while stack and len(found) < MAX_FILES:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if Path(entry.path) != skip:
                            stack.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        found[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
                except OSError:
                    continue
        return found

    def record(self, component: str, before: Mapping[str, Stamp],
               declared: Iterable[str] = ()) -> None:
        """What the plan of ``component`` that began at listing ``before`` left."""
        marked = self._marked()
        wanted = f"{COMPONENT_VARIABLE}={component}".encode()
        processes = [(pid, start, command) for pid, start, command, mark in marked
                     if mark == wanted]
        held = {path for pid, _, _, _ in marked for path in _open_files(self.proc, pid)}
        after = self.listing()
        written = [path for path, stamp in after.items() if before.get(path) != stamp]
        written += [self._absolute(path) for path in declared]
        removed = [path for path in before if path not in after]
        with self._lock:
            records: dict[str, Any] = self._state["components"]
            for other in records.values():
                for path in removed:
                    other["files"].pop(path, None)
            record = records.setdefault(component, {"files": {}})
            for path in written:
                if not os.path.isfile(path):
                    continue
                entry = {"sha256": None if path in held else _sha256(path)}
                for other in records.values():   # a file changed again: its new content
                    if path in other["files"]:
                        other["files"][path] = entry
                record["files"][path] = entry
            record["processes"] = [
                {"pid": pid, "start": start, "command": command}
                for pid, start, command in processes]
            record["addresses"] = sorted(_listening(self.proc, [p[0] for p in processes]))
            self._save()

    def forget(self, component: str) -> None:
        with self._lock:
            if self._state["components"].pop(component, None) is not None:
                self._save()

    # -- checking -------------------------------------------------------------------------

    def check(self) -> dict[str, dict[str, Any]]:
        """Per component: what it has (``tracked`` counts) and its ``drift``."""
        listening = _all_listening(self.proc)
        answer: dict[str, dict[str, Any]] = {}
        with self._lock:
            records: dict[str, Any] = self._state["components"]
            learned = False
            for record in records.values():
                # a daemon may begin to listen after its plan ended: what the live
                # ones listen on now is known from now on
                alive = [process["pid"] for process in record.get("processes", [])
                         if _start_time(self.proc, process["pid"]) == process["start"]]
                # a daemon read at the plan's end may not have finished its exec
                # (still the script's shell): what it runs now names it from now on
                for process in record.get("processes", []):
                    if process["pid"] in alive:
                        command = _command(self.proc, process["pid"])
                        if command not in ("?", process["command"]):
                            process["command"], learned = command, True
                known = set(record.get("addresses", []))
                now = known | _listening(self.proc, alive)
                if now != known:
                    record["addresses"], learned = sorted(now), True
            if learned:
                self._save()
            records = json.loads(json.dumps(records))
        for component, record in sorted(records.items()):
            differences: list[Difference] = []
            for process in record.get("processes", []):
                if _start_time(self.proc, process["pid"]) != process["start"]:
                    differences.append(Difference(
                        "process", f"{process['command']} (pid {process['pid']})", "gone"))
            for path, entry in sorted(record.get("files", {}).items()):
                if not os.path.isfile(path):
                    differences.append(Difference("file", path, "missing"))
                elif entry.get("sha256") is not None and _sha256(path) != entry["sha256"]:
                    differences.append(Difference("file", path, "changed"))
            for address in record.get("addresses", []):
                if address not in listening:
                    differences.append(Difference("address", address, "not listening"))
            answer[component] = {
                "tracked": {"processes": len(record.get("processes", [])),
                            "files": len(record.get("files", {})),
                            "addresses": len(record.get("addresses", []))},
                "drift": [difference.to_json() for difference in differences]}
        return answer

    # -- helpers --------------------------------------------------------------------------

    def _absolute(self, path: str) -> str:
        return path if path.startswith("/") else str(self.root / path)

    def _processes(self, component: str) -> list[tuple[int, int, str]]:
        """The live processes carrying this host's token and ``component``."""
        wanted = f"{COMPONENT_VARIABLE}={component}".encode()
        return [(pid, start, command) for pid, start, command, mark in self._marked()
                if mark == wanted]

    def _marked(self) -> list[tuple[int, int, str, bytes]]:
        token = f"{TOKEN_VARIABLE}={self.token}".encode()
        own = os.getpid()
        found = []
        for entry in _pids(self.proc):
            variables = _environment(self.proc, entry)
            if token not in variables:
                continue
            mark = next((v for v in variables
                         if v.startswith(COMPONENT_VARIABLE.encode() + b"=")), b"")
            start = _start_time(self.proc, entry)
            if start is None or entry == own:
                continue
            found.append((entry, start, _command(self.proc, entry), mark))
        return found

    def _load(self) -> dict[str, Any]:
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(state, dict) and isinstance(state.get("components"), dict) \
                    and isinstance(state.get("token"), str):
                return state
        except (OSError, ValueError):
            pass
        # written with the first record: a host no component used keeps no file
        return {"token": secrets.token_hex(8), "components": {}}

    def _save(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = self.path.with_name(STATE_FILE + ".partial")
        write_private(partial, json.dumps(self._state, sort_keys=True).encode("utf-8"))
        os.replace(partial, self.path)


def _pids(proc: Path) -> list[int]:
    try:
        return [int(name) for name in os.listdir(proc) if name.isdigit()]
    except OSError:
        return []


def _environment(proc: Path, pid: int) -> list[bytes]:
    """The variables ``pid`` was started with. A process in the middle of an
    ``exec`` (a daemon just started: ``nohup`` becoming ``sleep``) shows an
    empty environment for a moment: it is read again, 10 ms apart (0.2 s at most)."""
    for _ in range(EXEC_RETRIES):
        try:
            data = (proc / str(pid) / "environ").read_bytes()
        except OSError:
            return []   # gone, or another user's
        if data or _parent(proc, pid) in (0, 2):     # kernel threads have none
            return data.split(b"\0")
        time.sleep(0.01)
    return []


def _parent(proc: Path, pid: int) -> int:
    try:
        text = (proc / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    return int(text[text.rindex(")") + 2:].split()[1])


def _start_time(proc: Path, pid: int) -> int | None:
    """The process's start time (clock ticks since boot); None when it is gone
    or a zombie (it ended; its parent has not reaped it)."""
    try:
        text = (proc / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def _command(proc: Path, pid: int) -> str:
    try:
        words = (proc / str(pid) / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return "?"
    return b" ".join(words).decode("utf-8", "replace")[:200] or "?"


def _open_files(proc: Path, pid: int) -> list[str]:
    folder = proc / str(pid) / "fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        try:
            found.append(os.readlink(folder / name))
        except OSError:
            continue
    return found


def _sockets(proc: Path, pids: Iterable[int]) -> set[str]:
    return {target[8:-1] for pid in pids for target in _open_files(proc, pid)
            if target.startswith("socket:[")}


def _listening(proc: Path, pids: list[int]) -> set[str]:
    """``address:port`` of each TCP socket ``pids`` listen on."""
    inodes = _sockets(proc, pids)
    return {address for address, inode in _listen_table(proc) if inode in inodes}


def _all_listening(proc: Path) -> set[str]:
    return {address for address, _ in _listen_table(proc)}


def _listen_table(proc: Path) -> list[tuple[str, str]]:
    """(address:port, socket inode) of every listening TCP socket of this network."""
    table = []
    for name, width in (("tcp", 8), ("tcp6", 32)):
        try:
            lines = (proc / "net" / name).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != "0A":   # 0A: LISTEN
                continue
            host, port = fields[1].split(":")
            table.append((f"{_address(host, width)}:{int(port, 16)}", fields[9]))
    return table


def _address(hex_text: str, width: int) -> str:
    """/proc/net/tcp's address (32-bit words in host order) as text."""
    import ipaddress
    import sys

    raw = bytes.fromhex(hex_text)
    if sys.byteorder == "little":
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    value = ipaddress.ip_address(raw)
    return str(value) if width == 8 else f"[{value}]"


def _sha256(path: str) -> str | None:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_HASHED:
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None
