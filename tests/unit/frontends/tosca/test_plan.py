"""The dry-run plan: which Computes become machines and where each operation runs."""

from __future__ import annotations

from pathlib import Path

from laguna.frontends.tosca.frontend import plan
from tests.unit.frontends.tosca.test_topology import template, valid, write

SCALED = """
        topology_template:
          node_templates:
            vm: {type: tosca.nodes.Compute}
            app:
              type: tosca.nodes.SoftwareComponent
              requirements: [{host: vm}]
              interfaces: {Standard: {create: create.sh}}
            made:
              type: tosca.nodes.Compute
              interfaces: {Standard: {create: create.sh}}
            on_made:
              type: tosca.nodes.SoftwareComponent
              requirements: [{host: made}]
              interfaces: {Standard: {start: create.sh}}
            alone:
              type: tosca.nodes.SoftwareComponent
              interfaces: {Standard: {configure: create.sh}}
          policies:
            - vms: {type: tosca.policies.Scaling, targets: [vm],
                    properties: {default_instances: 2}}
            - apps: {type: tosca.policies.Scaling, targets: [app],
                     properties: {default_instances: 3}}
"""


def where(steps: list[dict[str, object]]) -> dict[str, object]:
    return {f"{s['node']}.{s['operation']}": s["runs_on"] for s in steps
            if s["kind"] == "operation"}


def test_with_the_local_cloud_each_compute_instance_is_a_host(tmp_path: Path) -> None:
    write(tmp_path, "create.sh", "true\n")
    topology = valid(write(tmp_path, "s.yaml", template(SCALED)))
    steps = plan(topology, "local")
    assert [s for s in steps if s["kind"] == "host"] == [
        {"kind": "host", "node": "vm", "instance": "vm.0", "host": "tosca_vm_0",
         "cloud": "local"},
        {"kind": "host", "node": "vm", "instance": "vm.1", "host": "tosca_vm_1",
         "cloud": "local"}]
    assert where(steps) == {
        # instance i of app is on instance i mod 2 of vm
        "app.create": [{"instance": "app.0", "host": "tosca_vm_0", "compute": "vm.0"},
                       {"instance": "app.1", "host": "tosca_vm_1", "compute": "vm.1"},
                       {"instance": "app.2", "host": "tosca_vm_0", "compute": "vm.0"}],
        # a Compute with its own create is not a machine laguna provides
        "made.create": [{"instance": "made", "host": "this machine", "compute": None}],
        "on_made.start": [{"instance": "on_made", "host": "this machine", "compute": None}],
        "alone.configure": [{"instance": "alone", "host": "this machine", "compute": None}],
    }


def test_by_default_every_compute_is_this_machine(tmp_path: Path) -> None:
    write(tmp_path, "create.sh", "true\n")
    topology = valid(write(tmp_path, "s.yaml", template(SCALED)))
    steps = plan(topology)
    assert [(s["instance"], s["host"], s["cloud"]) for s in steps if s["kind"] == "host"] \
        == [("vm.0", "this machine", "here"), ("vm.1", "this machine", "here")]
    assert where(steps)["app.create"] == [
        {"instance": "app.0", "host": "this machine", "compute": "vm.0"},
        {"instance": "app.1", "host": "this machine", "compute": "vm.1"},
        {"instance": "app.2", "host": "this machine", "compute": "vm.0"}]


WAITS = """
        topology_template:
          inputs:
            whom: {type: string, default: a}
          relationship_templates:
            patient:
              type: brooklyn.tosca.relationships.RequiresRunning
              properties: {timeout: 30 s, abort_if_on_fire: true}
          node_templates:
            a:
              type: tosca.nodes.SoftwareComponent
              interfaces: {Standard: {create: create.sh}}
            b:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - dependency: {node: a, relationship: patient}
                - dependency: {node: a, relationship: brooklyn.tosca.relationships.RequiresRunning}
              interfaces:
                Standard:
                  create:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: {get_input: whom}, timeout: 2 m}
                  start:
                    implementation: brooklyn.tosca.artifacts.Implementation.BlockUntilRunning
                    inputs: {target: a, abort_if_on_fire: true}
"""


def test_the_plan_shows_what_each_wait_waits_for_and_how_it_ends(tmp_path: Path) -> None:
    write(tmp_path, "create.sh", "true\n")
    topology = valid(write(tmp_path, "s.yaml", template(WAITS)))
    rows = {s["operation"]: s for s in plan(topology) if s["node"] == "b"}
    assert rows["create"]["after"] == [
        "a started (RequiresRunning, timeout 30 s, abort_if_on_fire true)",
        "a started (RequiresRunning, timeout none, abort_if_on_fire false)"]
    assert rows["create"]["waits_for"] == [
        "a started (BlockUntilRunning, timeout 2 m, abort_if_on_fire false)"]
    assert rows["start"]["waits_for"] == [
        "a started (BlockUntilRunning, timeout none, abort_if_on_fire true)"]


def test_a_located_machine_is_a_host_of_its_locations_cloud(tmp_path: Path) -> None:
    write(tmp_path, "create.sh", "true\n")
    topology = valid(write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            vm: {type: tosca.nodes.Compute}
            box: {type: tosca.nodes.Compute}
            app:
              type: tosca.nodes.SoftwareComponent
              requirements: [{host: box}]
              interfaces: {Standard: {create: create.sh}}
          groups:
          - add_brooklyn_types:
              members: [app]
              type: brooklyn.tosca.groups.initializer
              properties: {location: containers}
    """)))
    hosts = [(s["node"], s["cloud"]) for s in plan(topology, "ssh") if s["kind"] == "host"]
    # the unlocated machine on --cloud's, the located one on its own
    assert hosts == [("vm", "ssh"), ("box", "containers")]
    hosts = [(s["node"], s["cloud"]) for s in plan(topology) if s["kind"] == "host"]
    assert hosts == [("vm", "here"), ("box", "containers")]
