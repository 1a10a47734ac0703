"""The ssh cloud on real machines: Debian's sshd in network namespaces (``sshd``)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import pytest

from laguna.agent.client import AgentClient
from laguna.cloud import CloudError, HostError
from laguna.cloud.base import Cloud, Host
from laguna.cloud.ssh import open_cloud
from laguna.cloud.ssh.driver import SshCloud
from laguna.cloud.ssh.inventory import InventoryError, load

from . import sshd
from .sshd import Machines

TWO = {"resources": {"web": {"type": "OS::Nova::Server"},
                     "db": {"type": "OS::Nova::Server"}}}
SRC = str(Path(__file__).resolve().parents[3] / "src")
DAEMON = 987_654        # seconds a test's daemon sleeps: its name in ps


def daemons(machines: Machines) -> list[int]:
    """The test's daemons on ``machines`` (another test process's run as its own user)."""
    return [pid for pid, line in machines.user_processes().items() if line == f"sleep {DAEMON}"]


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Machines]:
    sshd.require_sshd()
    yield from sshd.machines(tmp_path_factory.mktemp("sshd"))


MakeCloud = t.Callable[..., SshCloud]


@pytest.fixture
def make_cloud(machines: Machines, tmp_path: Path) -> t.Iterator[MakeCloud]:
    """Clouds of one state folder; at the end every stack is deleted and the
    machines are as they were: the same files in the user's home, no agent."""
    before = machines.listing()
    made: list[SshCloud] = []
    for server in machines.servers:
        if server.process is None:
            server.start()

    def make(inventory: Path | None = None, **options: t.Any) -> SshCloud:
        options.setdefault("notify", messages.append)
        cloud = SshCloud(tmp_path / ".laguna" / "cloud", inventory, **options)
        made.append(cloud)
        return cloud

    messages: list[str] = []
    make.messages = messages        # type: ignore[attr-defined]
    yield make
    for server in machines.servers:
        if server.process is None:
            server.start()
    for cloud in made:
        for stack in cloud.stacks():
            cloud.delete_stack(stack)
        assert cloud.machines.all() == {}
    assert machines.listing() == before
    assert machines.agent_processes() == []


def run_plan(host: Host, path: str = "written.txt", extra: str = "") -> dict[str, t.Any]:
    script = (f"hostname; id -un; echo written > \"$HOME/{path}\"; cat \"$HOME/{path}\"\n"
              + extra)
    plan = {"FormatVersion": "2.0.0", "ID": "who",
            "Body": "r = who()\nreturn [r.stdout, r.exitCode]",
            "Files": {"w": {"Name": "who.sh", "BodyType": "Text", "Body": script}},
            "Scripts": {"who": {"Type": "Application", "EntryPoint": "w"}}}
    assert host.agent_url and host.agent_secret
    with AgentClient(host.agent_url, host.agent_secret) as client:
        result = client.execute(plan, 30)
    assert result["ErrorCode"] == 0, result
    return result


def test_two_servers_take_two_machines_and_run_plans(machines: Machines, make_cloud: MakeCloud,
                                                     tmp_path: Path) -> None:
    before = machines.listing()
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml"))
    assert isinstance(cloud, Cloud)
    result = cloud.push_stack("env", TWO)
    web, db = result.hosts
    assert (web.address, db.address) == (machines.servers[0].address,
                                         machines.servers[1].address)
    for host in (web, db):
        assert host.root is None and host.agent_secret
        assert re.fullmatch(rf"http://{re.escape(host.address)}:\d+", str(host.agent_url))
        # a daemon of the application's, in a session of its own: undeploy stops it too
        stdout, code = run_plan(host, extra=f"setsid sleep {DAEMON} </dev/null >/dev/null "
                                            "2>&1 &")["Body"]
        assert code == 0
        assert stdout.split() == [socket.gethostname(), machines.user, "written"]
    # one folder a host in the user's home, private, holding what laguna put there
    folders = sorted(set(machines.listing()) - set(before))
    assert len(folders) == 2 and all(f.startswith(".laguna-") for f in folders)
    for folder in folders:
        path = machines.home / folder
        assert path.stat().st_mode & 0o777 == 0o700
        assert (path / "agent.key").stat().st_mode & 0o777 == 0o600
        assert (path / "root" / "written.txt").read_text() == "written\n"
    assert len(machines.agent_processes()) == 2
    # the secret is on no command line
    assert all(web.agent_secret not in p and db.agent_secret not in p
               for p in machines.agent_processes())
    # host keys recorded on first use, and said
    known = (cloud.directory / "known_hosts").read_text().splitlines()
    assert len(known) == 2 and known[0].startswith(machines.servers[0].address + " ssh-ed25519 ")
    messages = make_cloud.messages       # type: ignore[attr-defined]
    assert len(messages) == 2
    assert re.match(r"recorded host key of m1 \(ssh-ed25519 SHA256:[A-Za-z0-9+/]{43}\)",
                    messages[0])
    assert set(cloud.machines.all()) == {"m1", "m2"}
    assert [h.name for h in cloud.hosts("env")] == ["web", "db"]
    assert cloud.find_host("env", "db") == db
    # a push of the same template changes nothing and keeps the agents
    again = cloud.push_stack("env", TWO)
    assert again.hosts == result.hosts and not again.diff.added
    assert len(daemons(machines)) == 2
    cloud.delete_stack("env")
    assert machines.listing() == before
    assert machines.agent_processes() == [] and daemons(machines) == []
    assert cloud.machines.all() == {} and cloud.stacks() == []
    # known hosts stay: the next connection checks against them, silently
    cloud.push_stack("env", TWO)
    assert len(messages) == 2


def test_more_servers_than_free_machines_are_refused_before_anything_starts(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    before = machines.listing()
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=2))
    three = {"resources": {**TWO["resources"], "cache": {"type": "OS::Nova::Server"}}}
    with pytest.raises(CloudError, match=r"no free machine for server 'cache'.*2 such machine"
                       r"\(s\) \(m1 is held by server 'web' of stack 'env'"):
        cloud.push_stack("env", three)
    assert machines.listing() == before
    assert not (cloud.directory / "known_hosts").exists()       # no machine was reached
    assert cloud.machines.all() == {}
    # two fit: the same stack afterwards, without the third server
    assert len(cloud.push_stack("env", TWO).hosts) == 2
    # and another stack finds no machine left
    with pytest.raises(CloudError, match="no free machine for server 'web'"):
        cloud.push_stack("other", {"resources": {"web": {"type": "OS::Nova::Server"}}})
    assert set(cloud.machines.all()) == {"m1", "m2"}


def test_a_server_takes_a_machine_whose_labels_its_image_or_flavor_name(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    inventory = machines.inventory(tmp_path / "inventory.yaml",
                                   m1={"labels": ["db"]}, m2={"labels": ["web", "ssd"]},
                                   m3={"labels": ["web"]})
    cloud = make_cloud(inventory)
    template = {"resources": {
        "front": {"type": "OS::Nova::Server",
                  "properties": {"image": "web", "flavor": "m1.small"}},
        "store": {"type": "OS::Nova::Server", "properties": {"image": "debian-12",
                                                             "flavor": "db"}},
        "fast": {"type": "OS::Nova::Server", "properties": {"flavor": "web,ssd"}}}}
    with pytest.raises(CloudError, match="no free machine with the labels ssd, web for "
                                         "server 'fast'.*m2 is held by server 'front'"):
        cloud.push_stack("env", template)
    assert cloud.machines.all() == {}
    del template["resources"]["fast"]
    hosts = {h.name: h.address for h in cloud.push_stack("env", template).hosts}
    assert hosts == {"front": machines.servers[1].address,
                     "store": machines.servers[0].address}


def test_a_changed_host_key_is_refused(machines: Machines, make_cloud: MakeCloud,
                                       tmp_path: Path) -> None:
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=1))
    one = {"resources": {"web": {"type": "OS::Nova::Server"}}}
    cloud.push_stack("env", one)
    cloud.delete_stack("env")
    old = machines.servers[0].host_key.read_bytes(), \
        machines.servers[0].host_key.with_suffix(".pub").read_bytes()
    machines.servers[0].new_host_key()
    try:
        with pytest.raises(HostError, match=r"machine m1 .*the host key changed: .*known_hosts "
                                            r"has ssh-ed25519 SHA256:.*refused"):
            cloud.push_stack("env", one)
        assert cloud.machines.all() == {}
    finally:
        machines.servers[0].stop()
        machines.servers[0].host_key.write_bytes(old[0])
        machines.servers[0].host_key.with_suffix(".pub").write_bytes(old[1])
        machines.servers[0].start()
    assert cloud.push_stack("env", one).hosts[0].agent_url


def test_sshd_stopped_mid_deploy_is_a_clear_error_and_undeploy_cleans_the_rest(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    before = machines.listing()
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=2),
                       connect_timeout=3)
    machines.servers[1].stop()
    with pytest.raises(HostError, match=r"machine m2 \(.*@.*:22\): cannot connect"):
        cloud.push_stack("env", TWO)
    assert len(machines.agent_processes()) == 1        # m1's was started
    cloud.delete_stack("env")
    assert machines.listing() == before and machines.agent_processes() == []
    assert cloud.machines.all() == {}
    machines.servers[1].start()

    # deployed, then a machine goes away: the others are cleaned, it stays taken
    cloud.push_stack("env", TWO)
    machines.servers[1].stop()
    with pytest.raises(HostError, match=r"m2: machine m2 .*cannot connect.*"):
        cloud.delete_stack("env")
    assert cloud.stacks() == []
    assert list(cloud.machines.all()) == ["m2"] and cloud.machines.all()["m2"]["leftover"]
    assert len(machines.agent_processes()) == 1
    machines.servers[1].start()
    cloud.delete_stack("env")       # cleans the leftover
    assert cloud.machines.all() == {}
    assert machines.listing() == before and machines.agent_processes() == []


def test_sudo_starts_the_agent_as_root_and_undeploy_removes_its_files(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    if not os.path.exists(f"/etc/sudoers.d/lgssh-{machines.user[5:]}"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the sudo test: .ci/run installs sudo")
        pytest.skip("needs sudo")
    before = machines.listing()
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=1,
                                          m1={"sudo": True}))
    [host] = cloud.push_stack("env", {"resources": {"web": {"type": "OS::Nova::Server"}}}).hosts
    stdout, _ = run_plan(host)["Body"]
    assert stdout.split()[1:] == ["root", "written"]
    [folder] = set(machines.listing()) - set(before)
    assert (machines.home / folder / "root" / "written.txt").stat().st_uid == 0
    cloud.delete_stack("env")
    assert machines.listing() == before and machines.agent_processes() == []


def push_and_get_killed(machines: Machines, state: Path, inventory: Path) -> None:
    """A laguna pushes a stack of one server and is killed once its agent runs,
    before the push ends (it waits for the agent forever, so the kill comes first)."""
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from laguna.cloud.ssh import open_cloud, remote\n"
            "remote.Session.wait_ready = lambda *args: time.sleep(60)\n"
            "cloud = open_cloud(Path(sys.argv[1]), Path(sys.argv[2]))\n"
            "cloud.push_stack('env', {'resources': {'web': {'type': 'OS::Nova::Server'}}})\n"
            "time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(state), str(inventory)],
                             env={**os.environ, "PYTHONPATH": SRC},
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        # killed once its agent runs (a ready file on the machine)
        while not list(machines.home.glob(".laguna-*/ready.json")):
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()


def test_a_killed_laguna_leaves_an_agent_the_next_push_replaces(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    before = machines.listing()
    inventory = machines.inventory(tmp_path / "inventory.yaml", count=1)
    push_and_get_killed(machines, tmp_path / ".laguna" / "cloud", inventory)
    [left] = machines.agent_processes()
    cloud = make_cloud()        # the inventory this state folder remembers
    assert cloud.inventory.path == inventory.resolve()
    # the next push stops it and starts the host's agent anew, on the same machine
    [host] = cloud.push_stack("env", {"resources": {"web": {"type": "OS::Nova::Server"}}}).hosts
    [agent] = machines.agent_processes()
    assert agent != left and host.address == machines.servers[0].address
    assert len(set(machines.listing()) - set(before)) == 1
    run_plan(host)
    cloud.delete_stack("env")
    assert machines.agent_processes() == []
    assert machines.listing() == before


def test_a_killed_laguna_leaves_an_agent_the_next_delete_stops(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    before = machines.listing()
    inventory = machines.inventory(tmp_path / "inventory.yaml", count=1)
    push_and_get_killed(machines, tmp_path / ".laguna" / "cloud", inventory)
    assert len(machines.agent_processes()) == 1
    make_cloud().delete_stack("env")
    assert machines.agent_processes() == []
    assert machines.listing() == before


def test_open_cloud_remembers_the_inventory(machines: Machines, tmp_path: Path) -> None:
    state = tmp_path / ".laguna" / "cloud"
    with pytest.raises(CloudError, match="no inventory: give one"):
        open_cloud(state, None)
    inventory = machines.inventory(tmp_path / "inventory.yaml")
    assert isinstance(open_cloud(state, inventory), Cloud)
    again = open_cloud(state, None)
    assert isinstance(again, SshCloud) and again.inventory.path == inventory.resolve()
    assert (state / "ssh").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(("text", "where", "message"), [
    ("machines:\n  - address: 198.51.100.7\n    user: u\n    agent: true\n    port: 70000\n",
     ":5: machines[0].port:", "a port number from 1 to 65535, got 70000"),
    ("machines:\n  - address: 198.51.100.7\n    agent: true\n", ":2: machines[0].user:",
     "a value is needed"),
    ("machines:\n  - address: 198.51.100.7\n    user: u\n",
     ":2: machines[0].agent:", "'key: FILE') or 'agent: true' is needed"),
    ("machines:\n  - {address: 198.51.100.7, user: u, agent: true}\n"
     "  - address: 198.51.100.8\n    user: u\n    key: missing\n",
     ":5: machines[1].key:", "no such file"),
    ("machines:\n  - {address: a, user: u, agent: true, sudo: yes please}\n",
     ":2: machines[0].sudo:", "must be true or false"),
    ("machines:\n  - {address: a, user: u, agent: true, labels: {a: 1}}\n",
     ":2: machines[0].labels:", "a list of names"),
    ("machines:\n  - {name: x, address: a, user: u, agent: true}\n"
     "  - {name: x, address: b, user: u, agent: true}\n",
     ":3: machines[1].name:", "'x' names machines[0] too"),
    ("machines:\n  - {address: a, user: u, agent: true, colour: red}\n",
     ":2: machines[0].colour:", "unknown field"),
    ("hosts: []\n", ":1: hosts:", "unknown field"),
    ("machines: [\n", "", "not valid YAML"),
])
def test_inventory_errors_name_the_file_line_and_field(tmp_path: Path, text: str, where: str,
                                                       message: str) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(text)
    with pytest.raises(InventoryError) as error:
        load(path)
    assert str(error.value).startswith(f"{path}{where}"), str(error.value)
    assert message in str(error.value)


def test_an_inventory_entry_defaults(tmp_path: Path) -> None:
    (tmp_path / "id").write_text("key")
    path = tmp_path / "inventory.yaml"
    path.write_text("machines:\n  - {address: 198.51.100.7, user: u, key: id}\n"
                    "  - {address: db.example, port: 2222, user: u, agent: true, labels: x}\n")
    first, second = load(path).machines
    assert (first.name, first.port, first.key, first.python, first.sudo, first.labels) == (
        "198.51.100.7", 22, str(tmp_path / "id"), "python3", False, ())
    assert (second.name, second.key, second.agent, second.labels) == (
        "db.example:2222", None, True, ("x",))
    assert json.loads(json.dumps(first.to_json())) == first.to_json()


def test_ports_and_floating_ips_take_their_servers_machine_address(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    """A Murano-shaped stack: a network, a subnet, a port on it, a server on
    the port and a floating IP on the port."""
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=1))
    template = {
        "resources": {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "env-net"}},
            "subnet": {"type": "OS::Neutron::Subnet",
                       "properties": {"network": {"get_resource": "net"},
                                      "cidr": "10.0.0.0/24"}},
            "port": {"type": "OS::Neutron::Port",
                     "properties": {"network": {"get_resource": "net"},
                                    "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
            "fip": {"type": "OS::Neutron::FloatingIP",
                    "properties": {"floating_network": "public",
                                   "port_id": {"get_resource": "port"}}},
            "web": {"type": "OS::Nova::Server",
                    "properties": {"networks": [{"port": {"get_resource": "port"}}]}}},
        "outputs": {
            "addresses": {"value": {"get_attr": ["web", "addresses", "env-net"]}},
            "port_ip": {"value": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}},
            "fip": {"value": {"get_attr": ["fip", "floating_ip_address"]}}}}
    result = cloud.push_stack("env", template)
    address = machines.servers[0].address
    assert result.outputs["addresses"][0]["addr"] == address
    assert (result.outputs["port_ip"], result.outputs["fip"]) == (address, address)
    [host] = result.hosts
    assert host.addresses == (address,)
    run_plan(host)


def test_a_push_starts_again_an_agent_that_died(machines: Machines, make_cloud: MakeCloud,
                                                tmp_path: Path) -> None:
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=1))
    one = {"resources": {"web": {"type": "OS::Nova::Server"}}}
    [before] = cloud.push_stack("env", one).hosts
    [process] = machines.agent_processes()
    os.kill(int(process.split()[0]), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while machines.agent_processes():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [after] = cloud.push_stack("env", one).hosts
    assert after.agent_url != before.agent_url or after.agent_secret != before.agent_secret
    assert after.address == before.address
    run_plan(after)
    assert len(machines.agent_processes()) == 1


def test_an_agent_that_cannot_start_is_a_host_error_with_its_log(
        machines: Machines, make_cloud: MakeCloud, tmp_path: Path) -> None:
    before = machines.listing()
    cloud = make_cloud(machines.inventory(tmp_path / "inventory.yaml", count=1,
                                          m1={"python": "/nonexistent/python3"}))
    with pytest.raises(HostError, match=r"(?s)machine m1 .*the agent stopped before it was "
                                        r"ready:.*/nonexistent/python3"):
        cloud.push_stack("env", {"resources": {"web": {"type": "OS::Nova::Server"}}})
    cloud.delete_stack("env")
    assert machines.listing() == before and cloud.machines.all() == {}


def test_keys_of_a_running_ssh_agent(machines: Machines, make_cloud: MakeCloud, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    socket_path = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not socket_path.exists():
            assert agent.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        env = {**os.environ, "SSH_AUTH_SOCK": str(socket_path)}
        subprocess.run(["ssh-add", "-q", str(machines.key)], env=env, check=True,
                       capture_output=True, timeout=30)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        inventory = tmp_path / "inventory.yaml"
        inventory.write_text(f"machines:\n  - name: m1\n    address: {machines.servers[0].address}"
                             f"\n    user: {machines.user}\n    agent: true\n")
        cloud = make_cloud(inventory)
        [host] = cloud.push_stack("env", {"resources": {"web": {"type": "OS::Nova::Server"}}}).hosts
        run_plan(host)
        cloud.delete_stack("env")
    finally:
        agent.terminate()
        agent.wait(10)


@pytest.mark.parametrize(("resource", "message"), [
    ({"type": "OS::Cinder::Volume", "properties": {"size": 1}}, "provides no volumes"),
    ({"type": "OS::Heat::WaitConditionHandle"}, "does not serve wait conditions"),
])
def test_what_the_ssh_cloud_does_not_provide_is_a_clear_error(
        tmp_path: Path, resource: dict[str, t.Any], message: str) -> None:
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text("machines:\n  - {address: '2001:db8::7', port: 2222, user: u, "
                         "agent: true}\n")
    cloud = SshCloud(tmp_path / "state", inventory, notify=print)
    assert cloud.inventory.machines[0].name == "[2001:db8::7]:2222"
    with pytest.raises(CloudError, match=rf"stack 'env': resources.thing: the ssh cloud {message}"):
        cloud.push_stack("env", {"resources": {"thing": resource}})
    cloud.delete_stack("env")
    assert cloud.stacks() == [] and cloud.machines.all() == {}
