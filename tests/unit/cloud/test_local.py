"""The local cloud: hosts with their own address, directory and agent."""

from __future__ import annotations

import ipaddress
import os
import signal
import typing as t
from pathlib import Path

import pytest

from laguna.cloud import Cloud, CloudError, HostError, StackNotFound, TemplateError
from laguna.cloud.hot import Diff
from laguna.cloud.local.driver import LocalCloud

from .helpers import AGENT, health, leftovers, pid_alive, stack_state, wait_for

MakeCloud = t.Callable[..., LocalCloud]


def servers(*names: str) -> dict[str, t.Any]:
    return {"resources": {n: {"type": "OS::Nova::Server", "properties": {"name": f"{n}-1"}}
                          for n in names},
            "outputs": {f"{n}-ip": {"value": {"get_attr": [n, "first_address"]}}
                        for n in names}}


def agent_pid(cloud: LocalCloud, stack: str, name: str) -> int:
    state = stack_state(cloud, stack)
    [record] = [r for r in state["records"] if r["name"] == name]
    return int(record["data"]["launch"]["pid"])


def kill_agent(cloud: LocalCloud, stack: str, name: str) -> int:
    """Kill a host's agent as a crash would, once it is gone; its pid."""
    pid = agent_pid(cloud, stack, name)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid))
    return pid


def test_local_cloud_is_a_cloud(cloud: LocalCloud) -> None:
    assert isinstance(cloud, Cloud)


def test_each_host_has_its_own_loopback_address(cloud: LocalCloud) -> None:
    result = cloud.push_stack("env-1", servers("web", "db"))
    addresses = [h.address for h in result.hosts]
    assert len(set(addresses)) == 2
    for host in result.hosts:
        assert ipaddress.ip_address(host.address) in ipaddress.ip_network("127.42.0.0/16")
        assert host.address != "127.0.0.1"
        assert host.agent_url is not None
        assert host.agent_url.startswith(f"http://{host.address}:")
    assert result.outputs == {"web-ip": addresses[0], "db-ip": addresses[1]}


def test_agent_answers_with_home_set_to_the_host_root(cloud: LocalCloud) -> None:
    [host] = cloud.push_stack("env-1", servers("web")).hosts
    assert host.root == cloud.directory / "hosts" / "env-1" / "web"
    assert health(str(host.agent_url)) == {"name": "web-1", "status": "ready",
                                           "home": str(host.root)}


def test_two_working_directories_never_share_an_address(make_cloud: MakeCloud,
                                                        tmp_path: Path) -> None:
    first = make_cloud(tmp_path / "a" / ".laguna" / "cloud")
    second = make_cloud(tmp_path / "b" / ".laguna" / "cloud")
    one = {h.address for h in first.push_stack("env-1", servers("a", "b", "c")).hosts}
    two = {h.address for h in second.push_stack("env-1", servers("a", "b", "c")).hosts}
    assert len(one) == len(two) == 3
    assert not one & two


def test_state_persists_across_driver_instances(make_cloud: MakeCloud, cloud: LocalCloud) -> None:
    result = cloud.push_stack("env-1", servers("web"))
    again = make_cloud()
    assert again.hosts("env-1") == list(result.hosts)
    assert again.stack_outputs("env-1") == result.outputs
    assert again.get_template("env-1") == servers("web")
    assert again.stacks() == ["env-1"]
    pid = agent_pid(cloud, "env-1", "web")
    repeat = again.push_stack("env-1", servers("web"))
    assert repeat.diff == Diff((), (), ())
    assert agent_pid(again, "env-1", "web") == pid


def test_update_removes_a_host_and_frees_its_address(cloud: LocalCloud) -> None:
    first = cloud.push_stack("env-1", servers("web", "db"))
    db = cloud.find_host("env-1", "db-1")
    assert db is not None and db.root is not None
    db_pid = agent_pid(cloud, "env-1", "db")
    second = cloud.push_stack("env-1", servers("web", "cache"))
    assert second.diff == Diff(added=("cache",), removed=("db",), changed=())
    assert not pid_alive(db_pid)
    assert not db.root.exists()
    assert sorted(leftovers(cloud)[1]) == sorted(h.address for h in second.hosts)
    assert [h.name for h in second.hosts] == ["web", "cache"]
    assert second.hosts[0] == first.hosts[0]


def test_delete_kills_agents_and_frees_everything(cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", servers("web", "db"))
    pids = [agent_pid(cloud, "env-1", n) for n in ("web", "db")]
    cloud.delete_stack("env-1")
    assert [pid_alive(p) for p in pids] == [False, False]
    assert leftovers(cloud) == ({}, [])
    assert cloud.stacks() == []
    assert cloud.get_template("env-1") is None
    assert not (cloud.directory / "hosts" / "env-1").exists()
    with pytest.raises(StackNotFound):
        cloud.stack_outputs("env-1")
    cloud.delete_stack("env-1")        # deleting again is fine


def test_dead_agent_is_restarted_by_the_next_push(cloud: LocalCloud) -> None:
    [before] = cloud.push_stack("env-1", servers("web")).hosts
    pid = kill_agent(cloud, "env-1", "web")
    [after] = cloud.push_stack("env-1", servers("web")).hosts
    assert after.address == before.address
    assert agent_pid(cloud, "env-1", "web") != pid
    assert health(str(after.agent_url))["status"] == "ready"


def test_agent_that_does_not_start_fails_the_push_with_its_log(make_cloud: MakeCloud) -> None:
    cloud = make_cloud(agent_command=(*AGENT, "--fail"))
    with pytest.raises(HostError) as info:
        cloud.push_stack("env-1", servers("web"))
    assert str(info.value).startswith(
        "stack 'env-1': resources.web: the agent of host 'web' did not become ready:\n")
    assert "stand-in agent: told to fail" in str(info.value)
    assert info.value.code == "LAG-E1211"


def test_unknown_type_fails_before_anything_starts(cloud: LocalCloud) -> None:
    template = servers("web")
    template["resources"]["lb"] = {"type": "OS::Octavia::LoadBalancer"}
    with pytest.raises(TemplateError, match=r"^stack 'env-1': resources.lb.type: unknown "
                                            r"resource type 'OS::Octavia::LoadBalancer'$"):
        cloud.push_stack("env-1", template)
    assert cloud.hosts("env-1") == []


def test_stack_names_are_checked(cloud: LocalCloud) -> None:
    with pytest.raises(CloudError, match=r"^stack '../x': a stack name is letters"):
        cloud.push_stack("../x", servers("web"))


def test_port_address_is_the_host_address(cloud: LocalCloud) -> None:
    result = cloud.push_stack("env-1", {
        "resources": {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "env-net"}},
            "subnet": {"type": "OS::Neutron::Subnet",
                       "properties": {"network": {"get_resource": "net"},
                                      "cidr": "10.0.0.0/24"}},
            "port": {"type": "OS::Neutron::Port",
                     "properties": {"network": {"get_resource": "net"}}},
            "fip": {"type": "OS::Neutron::FloatingIP",
                    "properties": {"port_id": {"get_resource": "port"}}},
            "web": {"type": "OS::Nova::Server",
                    "properties": {"networks": [{"port": {"get_resource": "port"}}]}}},
        "outputs": {"port": {"value": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}},
                    "fip": {"value": {"get_attr": ["fip", "floating_ip_address"]}},
                    "nets": {"value": {"get_attr": ["web", "networks"]}}}})
    [host] = result.hosts
    assert result.outputs == {"port": host.address, "fip": host.address,
                              "nets": {"env-net": [host.address]}}
    state = stack_state(cloud, "env-1")
    [port] = [r for r in state["records"] if r["name"] == "port"]
    assert port["data"]["logical_address"] == "10.0.0.2"


def test_volume_is_a_directory_linked_into_the_host(cloud: LocalCloud) -> None:
    [host] = cloud.push_stack("env-1", {"resources": {
        "web": {"type": "OS::Nova::Server"},
        "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        "att": {"type": "OS::Cinder::VolumeAttachment",
                "properties": {"instance_uuid": {"get_resource": "web"},
                               "volume_id": {"get_resource": "vol"},
                               "mountpoint": "/dev/vdb"}}}}).hosts
    assert host.root is not None
    (host.root / "dev" / "vdb" / "data.txt").write_text("kept")
    volume = cloud.directory / "volumes" / "env-1" / "vol"
    assert (volume / "data.txt").read_text() == "kept"
    cloud.push_stack("env-1", {"resources": {"web": {"type": "OS::Nova::Server"}}})
    assert not (host.root / "dev" / "vdb").exists()
    assert not volume.exists()


def test_changed_server_is_updated_in_place(cloud: LocalCloud) -> None:
    [before] = cloud.push_stack("env-1", servers("web")).hosts
    pid = agent_pid(cloud, "env-1", "web")
    template = servers("web")
    template["resources"]["web"]["properties"]["metadata"] = {"role": "web"}
    result = cloud.push_stack("env-1", template)
    assert result.diff == Diff(added=(), removed=(), changed=("web",))
    [after] = result.hosts
    assert (after.address, after.agent_url, after.metadata) == (
        before.address, before.agent_url, {"role": "web"})
    assert agent_pid(cloud, "env-1", "web") == pid


def test_two_stacks_of_one_cloud_have_their_own_hosts(cloud: LocalCloud) -> None:
    one = cloud.push_stack("env-1", servers("web")).hosts
    two = cloud.push_stack("env-2", servers("web")).hosts
    assert one[0].address != two[0].address
    assert cloud.stacks() == ["env-1", "env-2"]
    cloud.delete_stack("env-1")
    assert cloud.hosts("env-2") == list(two)
    assert health(str(two[0].agent_url))["status"] == "ready"


def test_agent_that_never_gets_ready_fails_after_the_timeout(make_cloud: MakeCloud) -> None:
    cloud = make_cloud(agent_command=(*AGENT, "--hang-on", "web-1"), ready_timeout=1.0)
    with pytest.raises(HostError, match=r"^stack 'env-1': resources.web: the agent of host "
                                        r"'web' did not become ready:\n$"):
        cloud.push_stack("env-1", servers("web"))
    [host] = cloud.hosts("env-1")
    assert host.agent_url is None
