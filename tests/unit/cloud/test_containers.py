"""The container cloud with real podman: each server is a container with its
own hostname, filesystem, processes and address, whose agent runs plans.

Skipped only where podman is not installed and ``CI`` is not set (CI installs
podman and builds the default image first: .ci/run). Every test removes its
containers, volumes and networks (the ``cloud`` fixture checks by label).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import typing as t
from pathlib import Path

import pytest

import laguna
from laguna.agent import AgentClient
from laguna.agent.errors import AgentError
from laguna.cloud.base import Host
from laguna.cloud.containers import open_cloud
from laguna.cloud.containers.driver import (FORWARD_SAVED, IP_FORWARD, ContainerCloud,
                                            forwarding_lock)
from laguna.cloud.containers.firewall import table_name
from laguna.cloud.containers.images import ImageError, ImageMap
from laguna.cloud.containers.podman import CLOUD_LABEL
from laguna.cloud.containers.settings import ContainerSettings
from laguna.cloud.errors import CloudError, HostError

PODMAN = shutil.which("podman") is not None and shutil.which("runc") is not None
needs_podman = pytest.mark.skipif(
    not PODMAN and not os.environ.get("CI"),
    reason="podman (with runc) is not installed and CI is not set: "
           "apt-get install podman runc mmdebstrap to run the container cloud's tests")
PODMAN_ARGS = ["podman", "--cgroup-manager=cgroupfs", "--runtime=runc",
               "--events-backend=file"]


def podman(*args: str) -> str:
    return subprocess.run([*PODMAN_ARGS, *args], capture_output=True, text=True,
                          check=True, timeout=120).stdout


def labelled(cloud: ContainerCloud) -> dict[str, list[str]]:
    """The cloud's containers, volumes and networks podman knows of."""
    label = f"label={CLOUD_LABEL}={cloud.id}"
    return {
        "containers": podman("ps", "-a", "--filter", label, "--format", "{{.Names}}").split(),
        "volumes": podman("volume", "ls", "--filter", label, "--format", "{{.Name}}").split(),
        "networks": podman("network", "ls", "--filter", label, "--format",
                           "{{.Name}}").split()}


NOTHING: dict[str, list[str]] = {"containers": [], "volumes": [], "networks": []}


def laguna_networks() -> list[str]:
    return podman("network", "ls", "--filter", f"label={CLOUD_LABEL}", "--format",
                  "{{.Name}}").split()


def machine_forwarding() -> str | None:
    """ip_forward as it is while no network of laguna exists (None if one does:
    another test's, running beside this one); under the lock laguna takes to
    change it."""
    with forwarding_lock():
        if laguna_networks():
            return None
        assert not FORWARD_SAVED.exists()      # put back and forgotten
        return IP_FORWARD.read_text()


@pytest.fixture
def cloud(tmp_path: Path) -> t.Iterator[ContainerCloud]:
    before = machine_forwarding()
    made = open_cloud(tmp_path / ".laguna" / "cloud")
    assert isinstance(made, ContainerCloud)
    try:
        yield made
    finally:
        for stack in made.stacks():
            made.delete_stack(stack)
        assert labelled(made) == NOTHING
        # netavark turned forwarding on; the cloud put back what was there
        after = machine_forwarding()
        assert before is None or after is None or after == before


def server(name: str, **properties: t.Any) -> dict[str, t.Any]:
    return {"type": "OS::Nova::Server", "properties": {"name": name, **properties}}


def template(**resources: dict[str, t.Any]) -> dict[str, t.Any]:
    return {"heat_template_version": "2013-05-23", "resources": resources}


def run(host: Host, script: str, timeout: float = 60) -> str:
    """The output of ``script`` run on ``host`` through its agent."""
    assert host.agent_url is not None and host.agent_secret is not None
    plan = {"FormatVersion": "2.0.0", "ID": "p", "Body": "return run().stdout",
            "Files": {"f": {"Name": "run.sh", "BodyType": "Text", "Body": script}},
            "Scripts": {"run": {"Type": "Application", "EntryPoint": "f"}}}
    with AgentClient(host.agent_url, host.agent_secret) as client:
        result = client.execute(plan, timeout)
    assert result["ErrorCode"] == 0, result
    return str(result["Body"])


@needs_podman
def test_two_servers_are_containers_with_their_own_hostname_files_and_address(
        cloud: ContainerCloud) -> None:
    steps: list[str] = []
    cloud.progress = steps.append
    started = time.monotonic()
    web, db = cloud.push_stack("env-1", template(web=server("Web Server"),
                                                 db=server("db"))).hosts
    assert time.monotonic() - started < 60
    # each container's start is a step of the deployment's progress
    assert [s.split(" (")[0] for s in steps if s.startswith(("starting", "host"))] == [
        "starting container of host web", "starting container of host db",
        f"host web of stack env-1 is ready at {web.agent_url}",
        f"host db of stack env-1 is ready at {db.agent_url}"]
    assert web.root is None and web.agent_secret and db.agent_secret
    assert web.address != db.address
    assert web.agent_url is not None and web.agent_url.startswith(f"http://{web.address}:")
    outputs = {}
    for host in (web, db):
        outputs[host.name] = run(host, f"echo $(cat /etc/hostname); id -u; echo {host.name} > "
                                       "/srv/mine; echo $(hostname -I); cat /srv/mine; "
                                       "ps -e | wc -l")
    web_out, db_out = (outputs[n].split("\n") for n in ("web", "db"))
    assert web_out[:4] == ["web-server", "0", web.address, "web"]
    assert db_out[:4] == ["db", "0", db.address, "db"]
    # its own process tree: init, the agent, the script and little else
    assert int(web_out[4]) < 15
    # each its own filesystem: the file of one is not on the other, nor here
    assert run(db, "cat /srv/mine; test -e /etc/debian_version && echo debian") == "db\ndebian"
    assert not Path("/srv/mine").exists() or Path("/srv/mine").read_text() not in ("web\n",
                                                                                    "db\n")
    # the agent in the container runs with /usr/sbin on its PATH, as root
    assert run(web, "for c in iptables sudo service; do command -v $c; done") == \
        "/usr/sbin/iptables\n/usr/bin/sudo\n/usr/sbin/service"
    # hosts() and find_host() answer from the records
    assert [h.name for h in cloud.hosts("env-1")] == ["web", "db"]
    assert cloud.find_host("env-1", "Web Server") == web


FLOATING = {
    "net": {"type": "OS::Neutron::Net", "properties": {"name": "env-net"}},
    "subnet": {"type": "OS::Neutron::Subnet",
               "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"}},
    "port": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}}},
    "fip": {"type": "OS::Neutron::FloatingIP",
            "properties": {"port_id": {"get_resource": "port"}}},
    "web": {"type": "OS::Nova::Server",
            "properties": {"name": "web", "networks": [{"port": {"get_resource": "port"}}]}}}
FLOATING_OUTPUTS = {"fixed": {"value": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}},
                    "fip": {"value": {"get_attr": ["fip", "floating_ip_address"]}},
                    "nets": {"value": {"get_attr": ["web", "networks"]}}}


@needs_podman
def test_a_floating_ip_is_an_address_of_its_own_that_reaches_its_server(
        cloud: ContainerCloud) -> None:
    # murano-apps (BIND, Clearwater) look for a server's address other than its
    # floating one: as on OpenStack, they differ, and both reach the server
    result = cloud.push_stack("env-1", {"resources": FLOATING, "outputs": FLOATING_OUTPUTS})
    [web] = result.hosts
    fixed, floating = result.outputs["fixed"], result.outputs["fip"]
    assert fixed == web.address and floating != fixed
    assert result.outputs["nets"] == {"env-net": [fixed, floating]}
    run(web, f"nohup python3 -m http.server 8123 --bind {floating} >/dev/null 2>&1 &\n"
             "sleep 0.5")
    deadline = time.monotonic() + 10
    while True:
        try:
            connection = http.client.HTTPConnection(floating, 8123, timeout=2)
            connection.request("GET", "/")
            assert connection.getresponse().status == 200
            break
        except OSError:
            assert time.monotonic() < deadline, f"nothing answers at {floating}:8123"
            time.sleep(0.2)
    # the floating IP goes: its address leaves the server's interface
    del_fip = {k: v for k, v in FLOATING.items() if k != "fip"}
    outputs = {k: v for k, v in FLOATING_OUTPUTS.items() if k != "fip"}
    result = cloud.push_stack("env-1", {"resources": del_fip, "outputs": outputs})
    assert result.outputs["nets"] == {"env-net": [fixed]}
    assert floating not in run(web, "cat /proc/net/fib_trie")


@needs_podman
def test_the_agent_refuses_an_unsigned_request(cloud: ContainerCloud) -> None:
    (host,) = cloud.push_stack("env-1", template(vm=server("vm"))).hosts
    assert host.agent_url is not None
    address, port = host.agent_url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(address, int(port), timeout=30)
    try:
        body = json.dumps({"plan": {"FormatVersion": "2.0.0", "ID": "x", "Body": "return 1",
                                    "Files": {}, "Scripts": {}}, "timeout": 10})
        connection.request("POST", "/v1/plans", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 401
        assert "not signed" in json.loads(response.read())["error"]["message"]
    finally:
        connection.close()
    # another host's secret is refused too
    with AgentClient(host.agent_url, "0" * 64) as client, pytest.raises(AgentError):
        client.health()


VOLUME_STACK = dict(
    vm=server("vm"),
    disk={"type": "OS::Cinder::Volume", "properties": {"size": 1}},
    attach={"type": "OS::Cinder::VolumeAttachment",
            "properties": {"instance_uuid": {"get_resource": "vm"},
                           "volume_id": {"get_resource": "disk"},
                           "mountpoint": "/var/lib/data"}})


@needs_podman
def test_a_volume_is_mounted_at_its_attachment_path_and_survives_an_update(
        cloud: ContainerCloud) -> None:
    (vm,) = cloud.push_stack("env-1", template(**VOLUME_STACK)).hosts
    run(vm, "echo kept > /var/lib/data/file; echo layer > /root/file")
    assert "/var/lib/data" in run(vm, "grep -o ' /var/lib/data ' /proc/mounts")
    assert len(labelled(cloud)["volumes"]) == 1
    # an update that adds a server and changes the first in place
    changed = dict(VOLUME_STACK, vm=server("vm", metadata={"role": "db"}),
                   other=server("other"))
    result = cloud.push_stack("env-1", template(**changed))
    assert result.diff.added == ("other",) and result.diff.changed == ("vm",)
    vm2 = next(h for h in result.hosts if h.name == "vm")
    assert vm2.agent_url == vm.agent_url        # the same container, not restarted
    assert run(vm2, "cat /var/lib/data/file /root/file") == "kept\nlayer"
    other = next(h for h in result.hosts if h.name == "other")
    assert run(other, "test -e /var/lib/data/file && echo yes || echo no") == "no"
    # the volume removed from the template: its container starts again without it
    result = cloud.push_stack("env-1", template(vm=server("vm", metadata={"role": "db"}),
                                                other=server("other")))
    assert labelled(cloud)["volumes"] == []
    vm3 = next(h for h in result.hosts if h.name == "vm")
    assert run(vm3, "test -e /var/lib/data/file && echo yes || echo no") == "no"


@needs_podman
def test_delete_leaves_no_container_volume_network_or_folder(cloud: ContainerCloud) -> None:
    cloud.push_stack("env-1", template(**VOLUME_STACK, web=server("web")))
    found = labelled(cloud)
    assert (len(found["containers"]), len(found["volumes"]), len(found["networks"])) == (2, 1, 1)
    cloud.delete_stack("env-1")
    assert labelled(cloud) == NOTHING
    assert cloud.stacks() == []
    assert not (cloud.directory / "run" / "env-1").exists()
    cloud.delete_stack("env-1")             # again: nothing to do


@needs_podman
def test_a_killed_container_gives_a_clear_host_error_and_the_next_push_restarts_it(
        cloud: ContainerCloud) -> None:
    (vm,) = cloud.push_stack("env-1", template(vm=server("vm"))).hosts
    run(vm, "echo mine > /root/file")
    state = cloud.files.load("env-1")
    assert state is not None
    container = state.records["vm"].data["container"]
    failures: list[BaseException] = []

    def long_plan() -> None:
        try:
            run(vm, "sleep 60", timeout=90)
        except BaseException as error:   # noqa: BLE001 (reported below)
            failures.append(error)

    plan = threading.Thread(target=long_plan)
    plan.start()
    time.sleep(1.0)
    podman("kill", container)
    plan.join(30)
    assert not plan.is_alive() and len(failures) == 1 and isinstance(failures[0], AgentError)
    with pytest.raises(HostError, match=r"container of host 'vm' is not running "
                                        r"\((exited|stopped), killed\)"):
        cloud.check_host("env-1", "vm")
    # the next push starts the same container again, with a new secret
    (again,) = cloud.push_stack("env-1", template(vm=server("vm"))).hosts
    assert again.agent_secret != vm.agent_secret
    assert run(again, "cat /root/file") == "mine"
    cloud.check_host("env-1", "vm")


@needs_podman
def test_stray_containers_of_a_killed_laguna_are_removed_by_label(
        cloud: ContainerCloud) -> None:
    cloud.push_stack("env-1", template(vm=server("vm")))
    # what a laguna killed before it saved its records would leave
    labels = [arg for k, v in cloud.labels("env-1").items() for arg in ("--label", f"{k}={v}")]
    stray = podman("create", *labels, "--name", f"laguna-{cloud.id[:8]}-stray",
                   "localhost/laguna/debian:12", "sleep", "1").strip()
    podman("volume", "create", *labels, f"laguna-{cloud.id[:8]}-strayvolume")
    cloud.push_stack("env-1", template(vm=server("vm"), vm2=server("vm2")))
    found = labelled(cloud)
    assert stray not in found["containers"] and len(found["containers"]) == 2
    assert found["volumes"] == []
    # a stack without records: delete still finds its containers
    podman("create", *[arg for k, v in cloud.labels("ghost").items()
                       for arg in ("--label", f"{k}={v}")],
           "localhost/laguna/debian:12", "true")
    cloud.delete_stack("ghost")
    assert len(labelled(cloud)["containers"]) == 2


@needs_podman
def test_a_users_own_image_runs_the_agent_laguna_mounts(
        cloud: ContainerCloud, tmp_path: Path) -> None:
    reference = f"localhost/laguna-test/{cloud.id}:1"
    podman("tag", "localhost/laguna/debian:12", reference)
    try:
        ImageMap(tmp_path / ".laguna" / "images.json").alias("mine", reference)
        (vm,) = cloud.push_stack("env-1", template(vm=server("vm", image="mine"))).hosts
        # the agent is the laguna package of this machine, read-only, not the image's
        assert run(vm, "ls /opt/laguna/lib/laguna/agent/main.py; "
                       "touch /opt/laguna/lib/laguna/x 2>/dev/null || echo read-only") == \
            "/opt/laguna/lib/laguna/agent/main.py\nread-only"
        state = cloud.files.load("env-1")
        assert state is not None
        container = state.records["vm"].data["container"]
        assert podman("inspect", "--format", "{{.ImageName}}", container).strip() == reference
        cloud.delete_stack("env-1")
    finally:
        podman("untag", reference, reference)


KILLED_PUSH = """
import json, sys
from pathlib import Path
from laguna.cloud.containers import open_cloud
def step(line):
    print(line, flush=True)
cloud = open_cloud(Path(sys.argv[1]), progress=step)
cloud.push_stack("env-1", json.loads(sys.argv[2]))
print("pushed", flush=True)
"""


@needs_podman
def test_a_laguna_killed_mid_push_leaves_nothing_the_next_push_or_delete_misses(
        cloud: ContainerCloud) -> None:
    stack = template(a=server("a"), b=server("b"), disk=VOLUME_STACK["disk"])
    pusher = subprocess.Popen(
        [sys.executable, "-c", KILLED_PUSH, str(cloud.state_dir), json.dumps(stack)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(Path(laguna.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])})
    assert pusher.stdout is not None
    try:
        # killed as soon as its second container is being made
        for line in pusher.stdout:
            if line.startswith("starting container of host b"):
                break
        time.sleep(0.3)
    finally:
        pusher.kill()
        pusher.wait(30)
    left = labelled(cloud)
    assert left["containers"] and left["volumes"] and left["networks"]
    hosts = cloud.push_stack("env-1", stack).hosts
    state = cloud.files.load("env-1")
    assert state is not None
    recorded = sorted(state.records[n].data["container"] for n in ("a", "b"))
    assert sorted(labelled(cloud)["containers"]) == recorded
    assert len(labelled(cloud)["volumes"]) == 1
    assert [run(h, "hostname") for h in hosts] == ["a", "b"]
    cloud.delete_stack("env-1")
    assert labelled(cloud) == NOTHING


@needs_podman
def test_a_container_signals_a_wait_condition_handle_on_its_gateway(
        cloud: ContainerCloud) -> None:
    resources = dict(vm=server("vm"), handle={"type": "OS::Heat::WaitConditionHandle"})
    outputs = {"url": {"value": {"get_attr": ["handle", "endpoint"]}}}
    result = cloud.push_stack("env-1", {**template(**resources), "outputs": outputs})
    (vm,) = result.hosts
    url = result.outputs["url"]
    _, _, gateway = cloud.network("env-1")
    assert url.startswith(f"http://{gateway}:")
    assert run(vm, "python3 -c \"import urllib.request, sys; print(urllib.request.urlopen("
                   "urllib.request.Request(sys.argv[1], data=b'{\\\"status\\\": \\\"SUCCESS\\\", "
                   "\\\"data\\\": \\\"up\\\"}', headers={'Content-Type': 'application/json'}), "
                   f"timeout=10).status)\" {url}") == "200"
    # the condition added next finds the signal the host sent
    resources["wait"] = {"type": "OS::Heat::WaitCondition", "properties": {
        "handle": {"get_resource": "handle"}, "count": 1, "timeout": 30}}
    outputs["data"] = {"value": {"get_attr": ["wait", "data"]}}
    result = cloud.push_stack("env-1", {**template(**resources), "outputs": outputs})
    assert json.loads(result.outputs["data"]) == {"1": "up"}


@needs_podman
def test_an_unknown_image_runs_on_the_default_one_and_says_so(tmp_path: Path) -> None:
    said: list[str] = []
    cloud = ContainerCloud(tmp_path / ".laguna" / "cloud", progress=said.append)
    try:
        (vm,) = cloud.push_stack("env-1", template(vm=server("vm", image="ubuntu"))).hosts
        assert run(vm, "cat /etc/debian_version").startswith("12")
        assert ("image 'ubuntu' of host vm is not in the image map: it runs on debian-12 "
                "(localhost/laguna/debian:12); `laguna image alias ubuntu REFERENCE` chooses "
                "another") in said
    finally:
        cloud.delete_stack("env-1")
    assert labelled(cloud) == NOTHING


def test_an_unknown_image_is_a_clear_error_listing_the_map_when_refused(
        tmp_path: Path) -> None:
    folder = tmp_path / ".laguna" / "cloud"
    (folder / "containers").mkdir(parents=True)
    (folder / "containers" / "settings.json").write_text('{"unknown_images": "refuse"}')
    cloud = ContainerCloud(folder)
    ImageMap(tmp_path / ".laguna" / "images.json").alias("web", "debian-12")
    with pytest.raises(ImageError) as info:
        cloud.push_stack("env-1", template(vm=server("vm", image="ubuntu-14.04")))
    message = str(info.value)
    assert "unknown image 'ubuntu-14.04'" in message
    assert "debian-12 -> localhost/laguna/debian:12" in message and "web -> debian-12" in message
    try:
        (vm,) = cloud.push_stack("env-1", template(vm=server("vm", image="web"))).hosts
        assert run(vm, "cat /etc/debian_version").startswith("12")
    finally:
        cloud.delete_stack("env-1")
    assert labelled(cloud) == NOTHING


def group(*ports: int) -> dict[str, t.Any]:
    return {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": [
        {"protocol": "tcp", "port_range_min": port, "port_range_max": port,
         "remote_ip_prefix": "0.0.0.0/0"} for port in ports]}}


PROBE = """
import socket, sys
for port in sys.argv[2:]:
    try:
        socket.create_connection((sys.argv[1], int(port)), timeout=2).close()
        print(port, "open")
    except OSError as error:
        print(port, "timeout" if isinstance(error, TimeoutError) else "closed")
"""


def by_name(hosts: t.Sequence[Host], *names: str) -> list[Host]:
    return [next(h for h in hosts if h.name == name) for name in names]


def probe(host: Host, address: str, *ports: int) -> str:
    return run(host, f"cat > /tmp/probe.py <<'EOF'\n{PROBE}\nEOF\n"
                     f"python3 /tmp/probe.py {address} {' '.join(map(str, ports))}")


@needs_podman
@pytest.mark.skipif(shutil.which("nft") is None and not os.environ.get("CI"),
                    reason="nft is not installed (apt-get install nftables)")
def test_security_groups_limit_new_connections_between_containers(
        cloud: ContainerCloud) -> None:
    stack = dict(sg=group(80), web=server("web", security_groups=[{"get_resource": "sg"}]),
                 client=server("client"))
    web, client = by_name(cloud.push_stack("env-1", template(**stack)).hosts, "web", "client")
    run(web, "for p in 80 81 82; do nohup python3 -m http.server $p >/dev/null 2>&1 & done; "
             "sleep 1")
    assert probe(client, web.address, 80, 81) == "80 open\n81 timeout"
    # nothing protects the client; this machine reaches every port of both
    run(client, "nohup python3 -m http.server 81 >/dev/null 2>&1 & sleep 1")
    assert probe(web, client.address, 81) == "81 open"
    for port in (80, 81):
        socket.create_connection((web.address, port), timeout=5).close()
    # a changed group changes the rules
    web, client = by_name(cloud.push_stack("env-1", template(**dict(stack, sg=group(80, 81)))).hosts,
                          "web", "client")
    assert probe(client, web.address, 80, 81, 82) == "80 open\n81 open\n82 timeout"
    table = f"bridge {table_name(cloud.id, 'env-1')}"
    listing = subprocess.run(["nft", "list", "table", *table.split()], capture_output=True,
                             text=True).stdout
    assert re.search(r"tcp dport 81 counter packets [1-9]", listing)
    cloud.delete_stack("env-1")
    assert subprocess.run(["nft", "list", "table", *table.split()],
                          capture_output=True).returncode != 0


@needs_podman
@pytest.mark.skipif(not os.environ.get("LAGUNA_TEST_APACHE") and not os.environ.get("CI"),
                    reason="installs apache2 from the Debian archive: set "
                           "LAGUNA_TEST_APACHE=1 (CI runs it)")
def test_apache_installs_starts_and_serves_from_its_container(cloud: ContainerCloud) -> None:
    (web,) = cloud.push_stack("env-1", template(web=server("web"))).hosts
    run(web, "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq >/dev/null && "
             "apt-get install -y -qq apache2 >/dev/null && service apache2 start >/dev/null "
             "&& echo started", timeout=600)
    connection = http.client.HTTPConnection(web.address, 80, timeout=30)
    try:
        connection.request("GET", "/")
        page = connection.getresponse().read().decode()
    finally:
        connection.close()
    assert "It works!" in page


def test_podman_missing_is_a_clear_error(tmp_path: Path) -> None:
    settings = ContainerSettings(podman="/nonexistent/podman")
    with pytest.raises(CloudError, match=r"^podman is not installed .*: "
                                         r"apt-get install podman runc$"):
        ContainerCloud(tmp_path / "cloud", settings=settings)
    (tmp_path / "cloud" / "containers").mkdir(parents=True, exist_ok=True)
    (tmp_path / "cloud" / "containers" / "settings.json").write_text(
        json.dumps({"runtime": "no-such-runtime"}))
    with pytest.raises(CloudError, match="runtime 'no-such-runtime' is not installed"):
        open_cloud(tmp_path / "cloud")
