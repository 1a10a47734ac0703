"""Substitution composed (frontends/tosca/substitution.py): a node whose type an
imported template substitutes becomes that template's nodes, renamed
``<outer>.<inner>``, with inputs, requirements, capabilities and attributes
mapped."""

from __future__ import annotations

from pathlib import Path

from laguna.frontends.tosca.topology import load_topology

HEAD = "tosca_definitions_version: tosca_simple_yaml_1_3\n"


def _node_type(name: str, occurrences: str = "") -> str:
    """A node type with a size, a database endpoint and a host requirement."""
    return f"""  {name}:
    derived_from: tosca.nodes.Root
    properties:
      size: {{type: integer}}
    capabilities:
      sql: {{type: tosca.capabilities.Endpoint.Database}}
    requirements:
      - host: {{capability: tosca.capabilities.Compute, relationship: \
tosca.relationships.HostedOn{occurrences}}}
"""


INNER = HEAD + "node_types:\n" + _node_type("example.Db") + \
    _node_type("example.Engine", ", occurrences: [0, 1]") + """topology_template:
  inputs:
    dbsize: {type: integer, default: 1}
  substitution_mappings:
    node_type: example.Db
    properties:
      size: [ dbsize ]
    capabilities:
      sql: [ engine, sql ]
    requirements:
      host: [ engine, host ]
    attributes:
      engine_state: [ engine, state ]
  node_templates:
    engine:
      type: example.Engine
      properties:
        size: { get_input: dbsize }
      interfaces:
        Standard:
          create:
            implementation: create.sh
            inputs:
              SIZE: { get_input: dbsize }
              PEER: { get_attribute: [ helper, tosca_id ] }
    helper:
      type: tosca.nodes.Root
  outputs:
    url:
      value: { concat: [ "db:", { get_attribute: [ engine, tosca_id ] } ] }
"""


def _files(tmp_path: Path, inner: str, outer_nodes: str, imports: str = "inner.yaml") -> Path:
    (tmp_path / "create.sh").write_text("true\n")
    (tmp_path / "inner.yaml").write_text(inner)
    outer = tmp_path / "service.yaml"
    outer.write_text(HEAD + f"imports: [{imports}]\ntopology_template:\n  node_templates:\n"
                     + outer_nodes)
    return outer


OUTER = """    vm: {type: tosca.nodes.Compute}
    db:
      type: example.Db
      properties: {size: 5}
      requirements: [{host: vm}]
    app:
      type: tosca.nodes.SoftwareComponent
      requirements:
        - dependency: {node: db, capability: sql}
"""


def test_a_substituted_node_becomes_its_inner_nodes(tmp_path: Path) -> None:
    topology, problems = load_topology(_files(tmp_path, INNER, OUTER))
    assert [str(p) for p in problems] == []
    assert topology is not None
    assert list(topology.nodes) == ["vm", "db.engine", "db.helper", "db", "app"]
    engine = topology.nodes["db.engine"]
    # the outer property, through the mapping, is the inner input everywhere
    assert engine.properties["size"] == 5
    create = engine.interfaces["Standard"]["create"]
    assert create.inputs == {"SIZE": 5, "PEER": {"get_attribute": ["db.helper", "tosca_id"]}}
    # the outer node's requirement host is the inner engine's
    assert [(r.name, r.target) for r in engine.requirements] == [("host", "vm")]
    db = topology.nodes["db"]
    assert [(r.name, r.target, r.requires_running) for r in db.requirements] == [
        ("substitution:db.engine", "db.engine", True),
        ("substitution:db.helper", "db.helper", True)]
    # a requirement met by the outer node's mapped capability is met by the inner node
    assert [(r.name, r.target, r.capability) for r in topology.nodes["app"].requirements] \
        == [("dependency", "db.engine", "sql")]
    assert db.attributes["url"] == {"concat": ["db:", {"get_attribute": ["db.engine",
                                                                         "tosca_id"]}]}
    assert db.attributes["engine_state"] == {"get_attribute": ["db.engine", "state"]}


def test_problems_of_the_inner_template_name_the_outer_node(tmp_path: Path) -> None:
    broken = INNER.replace("      type: tosca.nodes.Root\n  outputs",
                              "      type: tosca.nodes.Nothing\n  outputs")
    _topology, problems = load_topology(_files(tmp_path, broken, OUTER))
    assert [(p.kind, p.entity, p.message) for p in problems.sorted()] == [
        ("unknown_type", "node db: node helper",
         "substituted by inner.yaml: unknown node type 'tosca.nodes.Nothing'")]


def test_templates_substituting_each_others_types_stop_at_the_nesting_limit(
        tmp_path: Path) -> None:
    def looping(own: str, other: str, file: str) -> str:
        return HEAD + f"""imports: [{file}]
node_types:
  example.{own}:
    derived_from: tosca.nodes.Root
topology_template:
  substitution_mappings: {{node_type: example.{own}}}
  node_templates:
    inside: {{type: example.{other}}}
"""
    (tmp_path / "b.yaml").write_text(looping("B", "A", "inner.yaml"))
    _topology, problems = load_topology(_files(tmp_path, looping("A", "B", "b.yaml"),
                                               "    top: {type: example.A}\n"))
    found = problems.sorted()
    assert len(found) == 1
    assert (found[0].kind, found[0].entity) == (
        "invalid_template", "node top" + ": node inside" * 8)
    assert found[0].message == "substituted by inner.yaml: " + "substituted by b.yaml: " \
        "substituted by inner.yaml: " * 3 + "substituted by b.yaml: " \
        "substitution nests deeper than 8 templates (inner.yaml substitutes example.A again)"


def test_a_property_given_by_a_run_time_function_reaches_the_inner_input_as_written(
        tmp_path: Path) -> None:
    outer = OUTER.replace("properties: {size: 5}",
                          "properties: {size: {get_attribute: [vm, tosca_id]}}")
    topology, problems = load_topology(_files(tmp_path, INNER, outer))
    assert [str(p) for p in problems] == []
    assert topology is not None
    assert topology.nodes["db.engine"].interfaces["Standard"]["create"].inputs["SIZE"] == {
        "get_attribute": ["vm", "tosca_id"]}
