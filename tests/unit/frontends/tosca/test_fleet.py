"""Compute instances as servers of several clouds (per-node locations): one stack
per cloud, each instance reached through the cloud that made it."""

from __future__ import annotations

from laguna.cloud.recording import RecordingCloud
from laguna.frontends.tosca.machines import Fleet
from laguna.hosts.resources import recording_agent


def test_a_fleet_keeps_one_stack_per_cloud_and_drops_a_cloud_no_longer_used() -> None:
    clouds = {"local": RecordingCloud(), "containers": RecordingCloud()}
    fleet = Fleet(lambda kind: (clouds[kind], recording_agent), "local", "tosca-1")
    addresses = fleet.provision(["vm", "box"], {}, {"box": "containers"})
    assert sorted(addresses) == ["box", "vm"]
    assert fleet.stacks == {"local": "tosca-1", "containers": "tosca-1-containers"}
    assert [h.name for h in clouds["local"].hosts("tosca-1")] == ["tosca_vm"]
    assert [h.name for h in clouds["containers"].hosts("tosca-1-containers")] == ["tosca_box"]
    # each instance's executor is a host of its own cloud, and says which
    assert (fleet.executor("box").kind, fleet.executor("vm").kind) == ("containers", "local")
    assert fleet.host_executor("tosca_box", "containers").machine.host.stack == \
        "tosca-1-containers"
    # a redeploy that places no machine on the containers cloud deletes its stack
    again = Fleet(lambda kind: (clouds[kind], recording_agent), "local", "tosca-1",
                  fleet.stacks)
    again.provision(["vm"], {}, {})
    assert (again.stacks, clouds["containers"].stacks()) == ({"local": "tosca-1"}, [])
    again.delete()
    assert clouds["local"].stacks() == []
