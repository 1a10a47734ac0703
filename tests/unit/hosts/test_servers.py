"""Plain servers of one stack, made and removed by name (TOSCA's Compute instances,
descriptors' local-cloud instances)."""

from __future__ import annotations

from laguna.agent.transport import RecordingAgent
from laguna.cloud.recording import RecordingCloud
from laguna.hosts.resources import recording_agent
from laguna.hosts.servers import ServerStack


def test_provision_makes_exactly_the_servers_named() -> None:
    cloud = RecordingCloud()
    servers = ServerStack(cloud, recording_agent, "tosca-1")
    hosts = servers.provision(["a", "b"])
    assert sorted(hosts) == ["a", "b"] and hosts["a"].server_name == "a"
    servers.provision(["b"])
    assert [h.name for h in cloud.hosts("tosca-1")] == ["b"]


def test_ensure_adds_beside_the_others_and_release_removes_the_stack_with_the_last() -> None:
    cloud = RecordingCloud()
    servers = ServerStack(cloud, recording_agent, "assembly-x")
    first = servers.ensure("one")
    assert servers.ensure("one") == first
    servers.ensure("two")
    assert sorted(h.name for h in cloud.hosts("assembly-x")) == ["one", "two"]
    servers.release("one")
    servers.release("one")        # gone already: nothing to do
    assert [h.name for h in cloud.hosts("assembly-x")] == ["two"]
    servers.release("two")
    assert "assembly-x" not in cloud.stacks()
    servers.release("two")        # no stack: nothing to do


def test_a_machine_is_a_host_with_its_agent() -> None:
    servers = ServerStack(RecordingCloud(), recording_agent, "s")
    servers.ensure("web")
    machine = servers.machine("web")
    assert machine.name == "web" and isinstance(machine.agent, RecordingAgent)
    assert servers.find("nothing") is None


def test_a_servers_image_and_flavor_reach_its_template() -> None:
    # the cloud's image map picks the image (the container cloud's); None: its default
    cloud = RecordingCloud()
    servers = ServerStack(cloud, recording_agent, "tosca-1")
    servers.provision(["a", "b"], {"a": {"image": "debian-12"}, "b": {"image": None}})
    resources = cloud.get_template("tosca-1")["resources"]
    assert resources["a"]["properties"] == {"name": "a", "image": "debian-12"}
    assert resources["b"]["properties"] == {"name": "b"}
    servers = ServerStack(cloud, recording_agent, "assembly-x")
    servers.ensure("one", image="ubuntu", flavor=None)
    assert cloud.get_template("assembly-x")["resources"]["one"]["properties"] == {
        "name": "one", "image": "ubuntu"}


def test_a_tosca_compute_asks_for_its_image_property_else_its_os() -> None:
    from laguna.frontends.tosca.machines import compute_image
    debian = {"os": {"properties": {"distribution": "Debian", "version": 12}}}
    assert compute_image({"image": "my-image"}, debian) == "my-image"
    assert compute_image({}, debian) == "debian-12"
    assert compute_image({}, {"os": {"properties": {"distribution": "ubuntu"}}}) == "ubuntu"
    assert compute_image({}, {"os": {"properties": {"type": "linux"}}}) is None
    assert compute_image({}, {}) is None
