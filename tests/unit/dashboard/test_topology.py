"""The topology graph drawn from an object model (objects and their ``?.id``
references) and from the API's components and links; its SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from laguna.dashboard import topology

SHOP = [
    {"?": {"id": "app", "type": "org.shop.Store/1.0@org.shop"}, "name": "store",
     "database": "db",
     "instance": {"?": {"id": "vm", "type": "io.murano.resources.LinuxMuranoInstance"},
                  "name": "store-1", "volumes": {"/dev/sdb": {
                      "?": {"id": "vol", "type": "io.murano.resources.CinderVolume"},
                      "size": 1}}}},
    {"?": {"id": "db", "type": "org.shop.Database"}, "name": "orders",
     "instance": {"?": {"id": "vm2", "type": "io.murano.resources.LinuxMuranoInstance"},
                  "name": "orders-1", "peer": "app"}},
]


def test_objects_are_nodes_and_held_or_named_objects_links() -> None:
    graph = topology.from_services(SHOP)
    assert [(n.id, n.name, n.type, n.kind) for n in graph.nodes.values()] == [
        ("app", "store", "org.shop.Store", "application"),
        ("vm", "store-1", "io.murano.resources.LinuxMuranoInstance", "host"),
        ("vol", "CinderVolume", "io.murano.resources.CinderVolume", "component"),
        ("db", "orders", "org.shop.Database", "application"),
        ("vm2", "orders-1", "io.murano.resources.LinuxMuranoInstance", "host")]
    assert topology.described(graph) == [
        "store → store-1: instance", "store-1 → CinderVolume: volumes",
        "orders → orders-1: instance", "store → orders: database",
        "orders-1 → store: peer"]


def test_a_reference_cycle_is_drawn() -> None:
    graph = topology.from_services(SHOP)
    picture = ElementTree.fromstring(str(topology.svg(graph)))
    labels = [g.get("aria-label") for g in picture.iter("{http://www.w3.org/2000/svg}g")
              if g.get("role") == "img"]
    assert labels == ["application store (org.shop.Store)",
                      "host store-1 (io.murano.resources.LinuxMuranoInstance)",
                      "component CinderVolume (io.murano.resources.CinderVolume)",
                      "application orders (org.shop.Database)",
                      "host orders-1 (io.murano.resources.LinuxMuranoInstance)"]
    assert picture.get("aria-label") == "Topology"


def test_names_are_escaped_in_the_picture() -> None:
    graph = topology.from_services([{"?": {"id": "a", "type": "x.App"},
                                     "name": "<script>alert(1)</script>"}])
    drawn = str(topology.svg(graph))
    assert "<script>" not in drawn
    assert "&lt;script&gt;" in drawn


def test_components_and_links_of_tosca_and_assemblies() -> None:
    tosca = topology.from_components(
        {"vm": {"type": "tosca.nodes.Compute", "name": "vm", "state": "started"},
         "db": {"type": "tosca.nodes.Root", "name": "db", "state": "started"},
         "web": {"type": "tosca.nodes.SoftwareComponent", "name": "web", "state": "started"}},
        [{"source": "web", "target": "vm", "kind": "host"},
         {"source": "web", "target": "db", "kind": "database"}])
    assert [(n.id, n.kind) for n in tosca.nodes.values()] == [
        ("vm", "host"), ("db", "application"), ("web", "application")]
    assembly = topology.from_components(
        {"site__front": {"type": "resource::web::1.0", "name": "front", "state": "Active"}},
        [{"source": "site", "target": "site__front", "kind": "member"}])
    assert [(n.id, n.name, n.kind) for n in assembly.nodes.values()] == [
        ("site__front", "front", "application"), ("site", "site", "assembly")]
    assert topology.described(assembly) == ["site → front: member"]


def test_a_large_model_is_bounded() -> None:
    services = [{"?": {"id": f"a{i}", "type": "x.App"}, "name": f"a{i}"}
                for i in range(topology.MAX_NODES + 50)]
    assert len(topology.from_services(services).nodes) == topology.MAX_NODES


def test_the_name_the_user_gave_comes_first() -> None:
    graph = topology.from_services([{"?": {"id": "a", "type": "x.App", "name": "Front page"},
                                     "name": "front"},
                                    {"?": {"id": "b", "type": "x.App"}}])
    assert [n.name for n in graph.nodes.values()] == ["Front page", "App"]
