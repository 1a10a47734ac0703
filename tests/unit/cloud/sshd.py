"""Machines for the ssh cloud's tests: Debian's sshd, one process per machine,
each in a network namespace of its own on a bridge of the test's own, with a
test user (an authorized key, NOPASSWD sudo in a drop-in file) that the
fixture creates and removes, with everything else it made."""

from __future__ import annotations

import dataclasses
import fcntl
import ipaddress
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import time
import typing as t
from pathlib import Path

import pytest
import yaml

SSHD = "/usr/sbin/sshd"
COUNT = 3


def require_sshd() -> None:
    """Skip where sshd is absent outside CI; in CI (``CI`` set) fail instead."""
    missing = [what for what, ok in [
        (SSHD, os.path.exists(SSHD)), ("root", os.geteuid() == 0),
        ("iproute2's ip", shutil.which("ip") is not None),
        ("ssh-keygen", shutil.which("ssh-keygen") is not None),
        ("useradd", shutil.which("useradd") is not None)] if not ok]
    if missing:
        reason = ("the ssh cloud's tests need Debian's openssh-server, root and iproute2; "
                  f"missing: {', '.join(missing)}")
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI installs them: .ci/run)")
        pytest.skip(reason)


def _run(*argv: str) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{argv}: {result.stderr}"
    return result.stdout


@dataclasses.dataclass
class Sshd:
    name: str
    address: str
    namespace: str
    config: Path
    host_key: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert self.process is None
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                ["ip", "netns", "exec", self.namespace, SSHD, "-D", "-e", "-f",
                 str(self.config)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection((self.address, 22), timeout=1).close()
                return
            except OSError:
                assert self.process.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, f"sshd of {self.name} did not listen"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def new_host_key(self) -> None:
        """A new host key (the machine was 'reinstalled'); sshd restarted."""
        self.stop()
        self.host_key.unlink()
        self.host_key.with_suffix(".pub").unlink()
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.host_key))
        self.start()


@dataclasses.dataclass
class Machines:
    user: str
    home: Path
    key: Path
    directory: Path
    servers: list[Sshd]

    def inventory(self, path: Path, count: int = COUNT,
                  **fields: dict[str, t.Any]) -> Path:
        """An inventory of the first ``count`` machines; ``fields`` by machine
        name are added to its entry."""
        entries = [{"name": s.name, "address": s.address, "user": self.user,
                    "key": str(self.key), "python": "/usr/bin/python3", **fields.get(s.name, {})}
                   for s in self.servers[:count]]
        path.write_text(yaml.safe_dump({"machines": entries}, sort_keys=False))
        return path

    def listing(self) -> list[str]:
        return sorted(os.listdir(self.home))

    def agent_processes(self) -> list[str]:
        """Processes of an agent the ssh cloud copied to these machines (its
        zipapp in this user's home): "pid cmdline". Only these machines': the
        machines of another test process (pytest -n) run theirs on this host too,
        as another user (or as root, with sudo), in the same process table."""
        agent = re.compile(rf"[^ ]*python3 {re.escape(str(self.home))}/\.laguna-[0-9a-f]+/"
                           r"agent\.pyz ")
        return [f"{pid} {line}" for pid, line in processes().items() if agent.match(line)]

    def user_processes(self) -> dict[int, str]:
        """The processes running as the test user: "pid cmdline"."""
        return processes(pwd.getpwnam(self.user).pw_uid)


def processes(uid: int | None = None) -> dict[int, str]:
    """Every process (of ``uid``), with its command line (what ``pgrep -af`` shows;
    read from /proc: procps may be missing)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if uid is not None and os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                line = file.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if line:
            found[int(entry)] = line
    return found


#: held while a subnet is chosen and its bridge given its first address: two
#: test processes (pytest -n) choosing at once would otherwise both see it free
SUBNET_LOCK = Path("/run/lock/laguna-test-sshd-subnets.lock")


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 no bridge has (the machines' addresses are in their namespaces:
    a bridge's, the first of its subnet, is what the host shows)."""
    taken = _run("ip", "-o", "addr")
    for _ in range(50):
        network = ipaddress.ip_network(f"198.19.{secrets.randbelow(150) + 100}.0/24")
        if f" {network.network_address + 1}/" not in taken and \
                f" {network.network_address + 10}/" not in taken:
            return network
    raise AssertionError("no free test subnet")


def _sshd_config(server: Sshd, user: str, directory: Path) -> str:
    return "\n".join([
        "Port 22", f"ListenAddress {server.address}", f"HostKey {server.host_key}",
        f"PidFile {directory / (server.name + '.pid')}",
        "AuthorizedKeysFile .ssh/authorized_keys", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "UsePAM no", "PermitRootLogin no",
        f"AllowUsers {user}", "StrictModes yes", "LogLevel VERBOSE", ""])


def machines(directory: Path) -> t.Iterator[Machines]:
    """Start the machines; stop and remove everything on the way out."""
    tag = secrets.token_hex(3)
    user = f"lgssh{tag}"
    bridge = f"lgsb{tag}"
    sudoers = Path(f"/etc/sudoers.d/lgssh-{tag}")
    servers: list[Sshd] = []
    namespaces: list[str] = []
    made_user = made_bridge = False
    try:
        _run("useradd", "-m", "-s", "/bin/sh", user)
        made_user = True
        _run("usermod", "-p", "*", user)       # no password, and not locked
        home = Path(_run("getent", "passwd", user).split(":")[5])
        key = directory / "client_ed25519"
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
        ssh = home / ".ssh"
        ssh.mkdir(mode=0o700)
        (ssh / "authorized_keys").write_text(key.with_suffix(".pub").read_text())
        (ssh / "authorized_keys").chmod(0o600)
        _run("chown", "-R", f"{user}:{user}", str(ssh))
        if shutil.which("sudo") is not None:
            sudoers.write_text(f"{user} ALL=(ALL) NOPASSWD: ALL\n")
            sudoers.chmod(0o440)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)   # sshd's privilege separation
        SUBNET_LOCK.parent.mkdir(parents=True, exist_ok=True)
        with open(SUBNET_LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            network = _free_subnet()
            _run("ip", "link", "add", bridge, "type", "bridge")
            made_bridge = True
            _run("ip", "addr", "add", f"{network.network_address + 1}/{network.prefixlen}",
                 "dev", bridge)
        prefix = network.prefixlen
        _run("ip", "link", "set", bridge, "up")
        for i in range(COUNT):
            namespace = f"lgssh-{tag}-{i}"
            veth = f"lgsv{tag}{i}"
            address = str(network.network_address + 10 + i)
            _run("ip", "netns", "add", namespace)
            namespaces.append(namespace)
            _run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns",
                 namespace)
            _run("ip", "link", "set", veth, "master", bridge)
            _run("ip", "link", "set", veth, "up")
            _run("ip", "-n", namespace, "addr", "add", f"{address}/{prefix}", "dev", "eth0")
            _run("ip", "-n", namespace, "link", "set", "eth0", "up")
            _run("ip", "-n", namespace, "link", "set", "lo", "up")
            host_key = directory / f"m{i + 1}_host_ed25519"
            _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key))
            server = Sshd(f"m{i + 1}", address, namespace, directory / f"m{i + 1}.conf",
                          host_key, directory / f"m{i + 1}.log")
            server.config.write_text(_sshd_config(server, user, directory))
            servers.append(server)
            server.start()
        yield Machines(user, home, key, directory, servers)
    finally:
        for server in servers:
            server.stop()
        if made_user:
            # whatever a test left running as the user, by pid
            uid = pwd.getpwnam(user).pw_uid
            for pid in processes(uid):
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            subprocess.run(["userdel", "-r", "-f", user], capture_output=True)
        sudoers.unlink(missing_ok=True)
        for namespace in namespaces:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        if made_bridge:
            subprocess.run(["ip", "link", "del", bridge], capture_output=True)
