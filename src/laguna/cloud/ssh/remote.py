"""One SSH connection to a machine of the inventory (paramiko), and what the
ssh cloud does over it: copy the agent, start it, read its ready file, stop
everything it started and remove its folder.

Host keys are checked against ``known_hosts`` in the cloud's state folder: a
machine seen for the first time has its key recorded (and the caller is told,
with its fingerprint); a key that differs from the one recorded is refused.

A host's folder on the machine (``~/.laguna-<token>``, 0700) holds
everything laguna puts there: ``agent.pyz`` (the agent as a zipapp),
``agent.key`` (the host's secret, 0600; never on a command line),
``agent.pid``, ``ready.json``, ``agent.log`` and ``root/`` (the agent's root:
the scripts' HOME). Every process of the host carries
``LAGUNA_CLOUD_HOST=<marker>`` in its environment, so stopping the host finds
the agent and whatever its scripts left running, and removing the folder
removes the rest.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import io
import json
import shlex
import socket
import time
import typing as t
import zipfile
from pathlib import Path

import paramiko

from laguna.cloud.errors import HostError
from laguna.cloud.ssh.inventory import Machine
from laguna.privacy import open_private

#: the marker variable the agent passes on to scripts (laguna.agent.main.CLOUD_MARKER)
MARKER = "LAGUNA_CLOUD_HOST"
CONNECT_TIMEOUT = 10.0
COMMAND_TIMEOUT = 60.0
Notify = t.Callable[[str], None]


def fingerprint(key: paramiko.PKey) -> str:
    """``ssh-ed25519 SHA256:...``, as ``ssh-keygen -l`` shows it."""
    digest = base64.b64encode(hashlib.sha256(key.asbytes()).digest()).decode().rstrip("=")
    return f"{key.get_name()} SHA256:{digest}"


class _RecordFirstUse(paramiko.MissingHostKeyPolicy):
    def __init__(self, session: Session) -> None:
        self.session = session

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str,
                         key: paramiko.PKey) -> None:
        self.session.record_host_key(hostname, key)


class Session:
    """An SSH connection to ``machine``, opened when first needed."""

    def __init__(self, machine: Machine, known_hosts: Path, notify: Notify,
                 timeout: float = CONNECT_TIMEOUT) -> None:
        self.machine = machine
        self.known_hosts = known_hosts
        self.notify = notify
        self.timeout = timeout
        self._client: paramiko.SSHClient | None = None
        self._home: str | None = None

    def _error(self, message: str) -> HostError:
        return HostError(f"machine {self.machine.name} ({self.machine.target}): {message}")

    # -- the connection ------------------------------------------------------------

    def record_host_key(self, hostname: str, key: paramiko.PKey) -> None:
        entry = paramiko.hostkeys.HostKeyEntry([hostname], key)
        with open(self.known_hosts.with_name(self.known_hosts.name + ".lock"), "a",
                  opener=open_private) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with open(self.known_hosts, "a", opener=open_private) as file:
                file.write(entry.to_line() or "")
        self.notify(f"recorded host key of {self.machine.name} ({fingerprint(key)}) "
                    f"in {self.known_hosts}")

    def client(self) -> paramiko.SSHClient:
        if self._client is not None:
            return self._client
        machine = self.machine
        client = paramiko.SSHClient()
        if self.known_hosts.exists():
            client.load_host_keys(str(self.known_hosts))
        client.set_missing_host_key_policy(_RecordFirstUse(self))
        try:
            client.connect(machine.address, port=machine.port, username=machine.user,
                           key_filename=machine.key, allow_agent=machine.agent,
                           look_for_keys=False, timeout=self.timeout,
                           banner_timeout=self.timeout, auth_timeout=self.timeout)
        except paramiko.BadHostKeyException as exc:
            client.close()
            raise self._error(
                f"the host key changed: {self.known_hosts} has "
                f"{fingerprint(exc.expected_key)}, the machine offers "
                f"{fingerprint(exc.key)}; refused. If the machine was reinstalled, "
                f"remove its line ({exc.hostname}) from {self.known_hosts}") from None
        except paramiko.AuthenticationException as exc:
            client.close()
            raise self._error(f"authentication failed: {exc}") from None
        except (OSError, paramiko.SSHException, EOFError) as exc:
            client.close()
            raise self._error(f"cannot connect: {exc or type(exc).__name__}") from None
        self._client = client
        return client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def run(self, command: str, *, stdin: bytes | None = None,
            timeout: float = COMMAND_TIMEOUT, check: bool = True) -> tuple[int, str, str]:
        """Run ``command`` (a shell command line) as the login user, with
        ``stdin`` as its input."""
        try:
            channel_in, stdout, stderr = self.client().exec_command(command, timeout=timeout)
            if stdin is not None:
                channel_in.write(stdin)
                channel_in.flush()
            channel_in.channel.shutdown_write()
            out = stdout.read().decode(errors="replace")
            err = stderr.read().decode(errors="replace")
            status = stdout.channel.recv_exit_status()
        except (OSError, paramiko.SSHException, EOFError, socket.timeout) as exc:
            self.close()
            raise self._error(f"the connection failed: {exc or type(exc).__name__}") from None
        if check and status != 0:
            raise self._error(f"exit status {status}: {err.strip() or out.strip()}")
        return status, out, err

    def home(self) -> str:
        if self._home is None:
            self._home = self.run('printf %s "$HOME"')[1].strip()
            if not self._home.startswith("/"):
                raise self._error(f"the login user's HOME is {self._home!r}")
        return self._home

    def put(self, path: str, data: bytes) -> None:
        """Write a file of mode 0600 (through the shell: no SFTP subsystem needed)."""
        self.run(f"umask 077 && cat > {shlex.quote(path)} && chmod 600 {shlex.quote(path)}",
                 stdin=data)

    # -- the agent -----------------------------------------------------------------

    def sudo(self) -> str:
        return "sudo -n " if self.machine.sudo else ""

    def install(self, folder: str, secret: str) -> None:
        """Make the host's folder and put the agent and its secret in it."""
        self.run(f"umask 077 && mkdir -m 700 -- {shlex.quote(folder)}")
        self.put(f"{folder}/agent.pyz", agent_zipapp())
        self.put(f"{folder}/agent.key", secret.encode("ascii"))

    def start(self, folder: str, name: str, marker: str) -> None:
        """Start the agent in the background, in a session of its own, bound to
        the machine's address (port 0: the ready file tells which)."""
        q = shlex.quote
        agent = " ".join(q(a) for a in [
            self.machine.python, f"{folder}/agent.pyz", "--name", name,
            "--listen", f"{_bracketed(self.machine.address)}:0", "--root", f"{folder}/root",
            "--ready-file", f"{folder}/ready.json", "--secret-file", f"{folder}/agent.key"])
        inner = (f"echo $$ > {q(folder + '/agent.pid')} && "
                 f"exec {agent} </dev/null >>{q(folder + '/agent.log')} 2>&1")
        # only the simple command in the background, its output nowhere: the
        # channel ends when this shell does, whoever stays behind
        pidfile = q(folder + "/agent.pid")
        script = (f"cd {q(folder)} || exit 1\n"
                  f"{self.sudo()}env {MARKER}={q(marker)} setsid sh -c {q(inner)} "
                  "</dev/null >/dev/null 2>&1 &\n"
                  f"i=0; while [ ! -s {pidfile} ] && [ $i -lt 100 ]; do "
                  "i=$((i+1)); sleep 0.05; done")
        # the login shell becomes a shell carrying the marker, so every process
        # forked from here on carries it from its first instant (a child forked
        # for the background command, before it execs env, too): however slow
        # the machine, ready() never takes a starting agent for a dead one and
        # stop() finds it. sudo drops the variable: the inner env sets it again.
        self.run(f"exec env {MARKER}={q(marker)} sh -c {q(script)}")

    def ready(self, folder: str, marker: str) -> dict[str, t.Any] | None:
        """The agent's ready file; None while it is not written; HostError if
        the agent is gone (with the end of its log)."""
        q = shlex.quote
        script = (f"if [ -s {q(folder + '/ready.json')} ]; then cat {q(folder + '/ready.json')}; "
                  f"elif {_marked_pids(marker)} | grep -q .; then :; "
                  f"else echo DEAD; tail -c 2000 {q(folder + '/agent.log')}; fi")
        out = self.run(f"{self.sudo()}sh -c {q(script)}")[1]
        if out.startswith("DEAD"):
            raise self._error(f"the agent stopped before it was ready:\n{out[5:]}")
        if not out.strip():
            return None
        try:
            document = json.loads(out)
        except ValueError:
            return None     # written as we read
        return document if isinstance(document, dict) else None

    def wait_ready(self, folder: str, marker: str, timeout: float) -> dict[str, t.Any]:
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            document = self.ready(folder, marker)
            if document is not None:
                return document
            if time.monotonic() > deadline:
                log = self.run(f"{self.sudo()}tail -c 2000 {shlex.quote(folder + '/agent.log')}",
                               check=False)[1]
                raise self._error(f"the agent did not become ready in {timeout:g} s:\n{log}")
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    def stop(self, folder: str | None, marker: str, timeout: float = 10.0) -> None:
        """Stop every process carrying ``marker`` (the pid file's first), then
        remove the host's folder."""
        q = shlex.quote
        steps = round(timeout / 0.1)
        pidfile = q(f"{folder}/agent.pid") if folder else "/nonexistent"
        script = f"""
pids() {{ {_marked_pids(marker)}; }}
p=$(cat {pidfile} 2>/dev/null) && [ -n "$p" ] && \
  grep -qzxF -- {q(f'{MARKER}={marker}')} "/proc/$p/environ" 2>/dev/null && kill -TERM "$p"
i=0
while p=$(pids); [ -n "$p" ]; do
  i=$((i+1))
  if [ $i -gt {steps * 2} ]; then echo "processes did not die: $p" >&2; exit 3; fi
  if [ $i -gt {steps} ]; then kill -KILL $p 2>/dev/null; else kill -TERM $p 2>/dev/null; fi
  sleep 0.1
done
"""
        if folder:
            script += f"rm -rf -- {q(folder)}\n"
        self.run(f"{self.sudo()}sh -c {q(script)}", timeout=timeout * 2 + COMMAND_TIMEOUT)


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _marked_pids(marker: str) -> str:
    """A shell pipeline printing the pids whose environment holds the marker."""
    needle = shlex.quote(f"{MARKER}={marker}")
    return (f"grep -lzxF -- {needle} /proc/[0-9]*/environ 2>/dev/null "
            "| sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p'")


_ZIPAPP: bytes | None = None
#: the agent's program needs these of laguna, and nothing outside the standard library
_AGENT_MODULES = ("__init__.py", "privacy.py", "errors.py", "source.py", "agent")
_MAIN = b"import sys\nfrom laguna.agent.main import main\nsys.exit(main())\n"


def agent_zipapp() -> bytes:
    """The agent as one file that ``python3 agent.pyz ARGS`` runs (built once a
    process, from the installed laguna)."""
    global _ZIPAPP
    if _ZIPAPP is None:
        package = Path(__file__).resolve().parents[2]      # src/laguna
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(_entry("__main__.py"), _MAIN)
            for name in _AGENT_MODULES:
                path = package / name
                files = sorted(path.glob("*.py")) if path.is_dir() else [path]
                for file in files:
                    relative = file.relative_to(package.parent).as_posix()
                    archive.writestr(_entry(relative), file.read_bytes())
        _ZIPAPP = b"#!/usr/bin/env python3\n" + buffer.getvalue()
    return _ZIPAPP


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info
