"""Node filters: a requirement chooses among the candidates those whose
properties and capabilities' properties satisfy its filter."""

from __future__ import annotations

from pathlib import Path

from tests.unit.frontends.tosca.test_topology import problems, template, valid, write

COMPUTES = """
        topology_template:
          inputs:
            cpus: {type: integer, default: 4}
          node_templates:
            small:
              type: tosca.nodes.Compute
              capabilities:
                host: {properties: {num_cpus: 1, mem_size: 1 GB}}
            big:
              type: tosca.nodes.Compute
              capabilities:
                host: {properties: {num_cpus: {get_input: cpus}, mem_size: 8 GB}}
"""


def test_the_first_candidate_satisfying_the_filter_is_the_target(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template(COMPUTES + """
            app:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - host:
                    node_filter:
                      capabilities:
                        - host:
                            properties:
                              - num_cpus: {greater_or_equal: 2}
                              - mem_size: [{greater_or_equal: 4 GB}, {less_than: 1 TB}]
            any:
              type: tosca.nodes.SoftwareComponent
              requirements: [{host: {node: tosca.nodes.Compute}}]
        """))
    topology = valid(path)
    assert [r.target for r in topology.nodes["app"].requirements] == ["big"]
    # without a filter, the first in document order
    assert [r.target for r in topology.nodes["any"].requirements] == ["small"]


def test_inputs_decide_property_values_the_filter_sees(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template(COMPUTES + """
            app:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - host:
                    node_filter:
                      capabilities:
                        - tosca.capabilities.Compute:
                            properties: [{num_cpus: {greater_or_equal: 2}}]
        """))
    assert problems(path, {"cpus": 1}) == [
        "unresolved_requirement: s.yaml:20:13: node app: requirement host: no node template "
        "of type tosca.nodes.Compute offers tosca.capabilities.Compute and satisfies the "
        "node_filter (small: capability tosca.capabilities.Compute: property num_cpus: 1 is "
        "not greater than or equal to 2; big: capability tosca.capabilities.Compute: "
        "property num_cpus: 1 is not greater than or equal to 2)"]


def test_node_properties_filter_and_a_named_template_that_fails_it(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            old: {type: tosca.nodes.DBMS, properties: {port: 3306}}
            new: {type: tosca.nodes.DBMS, properties: {port: 5432}}
            db:
              type: tosca.nodes.Database
              properties: {name: shop}
              requirements:
                - host:
                    node_filter:
                      properties: [{port: {equal: 5432}}]
            pinned:
              type: tosca.nodes.Database
              properties: {name: shop}
              requirements:
                - host:
                    node: old
                    node_filter:
                      properties:
                        - port: {valid_values: [5432, 5433]}
        """))
    assert problems(path) == [
        "unresolved_requirement: s.yaml:20:13: node pinned: requirement host: node old does "
        "not satisfy the node_filter: property port: 3306 is not one of 5432, 5433"]
    path.write_text(path.read_text().replace("node: old", "node: new"))
    topology = valid(path)
    assert [r.target for r in topology.nodes["db"].requirements] == ["new"]
    assert [r.target for r in topology.nodes["pinned"].requirements] == ["new"]


def test_a_property_without_a_value_or_unknown_before_deploy_fails_the_filter(
        tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            a: {type: tosca.nodes.DBMS}
            b: {type: tosca.nodes.DBMS, properties: {port: {get_property: [a, port]}}}
            db:
              type: tosca.nodes.Database
              properties: {name: shop}
              requirements:
                - host:
                    node_filter:
                      properties: [{port: {equal: 1}}, {nothing: {equal: 1}}]
        """))
    assert problems(path) == [
        "unresolved_requirement: s.yaml:12:13: node db: requirement host: no node template "
        "of type tosca.nodes.DBMS offers tosca.capabilities.Container and satisfies the "
        "node_filter (a: property port has no value; b: property port is get_property, "
        "known only at deploy)"]


def test_the_shape_of_a_filter_is_checked_everywhere(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            server: {type: tosca.nodes.Compute}
            app:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - host:
                    node_filter:
                      properties: {num_cpus: 2}
                      nodes: []
            chosen:
              type: tosca.nodes.Compute
              node_filter:
                properties: [{nothing: {equal: 1}}]
                capabilities:
                  - host: {properties: [{num_cpus: {bogus: 1}}]}
            described:
              type: tosca.nodes.Compute
              node_filter:
                properties: [{nothing: {equal: 1}}]
                capabilities:
                  - host: {properties: [{disk: {equal: 1}}]}
                  - feature: {properties: [{num_cpus: {equal: 1}}]}
                  - nowhere: {}
        """))
    assert problems(path) == [
        "invalid_template: s.yaml:11:15: node app: requirement host: node_filter "
        "properties is a list of single-key maps",
        "invalid_template: s.yaml:12:15: node app: requirement host: unknown keyname "
        "'nodes' in node_filter (expected one of capabilities, properties)",
        "invalid_template: s.yaml:18:34: node chosen: node_filter property num_cpus: "
        "unknown constraint operator 'bogus' (expected one of equal, greater_than, "
        "greater_or_equal, less_than, less_or_equal, in_range, valid_values, length, "
        "min_length, max_length, pattern, schema)",
        # at one place, in the order of the filter's entries
        "invalid_template: s.yaml:21:7: node described: node_filter names property "
        "nothing, which type tosca.nodes.Compute does not declare",
        "invalid_template: s.yaml:21:7: node described: node_filter names capability host "
        "property disk, which type tosca.nodes.Compute does not declare",
        "invalid_template: s.yaml:21:7: node described: node_filter names capability "
        "feature property num_cpus, which type tosca.nodes.Compute does not declare",
        "invalid_template: s.yaml:21:7: node described: node_filter names capability "
        "nowhere, which type tosca.nodes.Compute does not declare",
    ]


def test_a_requirement_definition_filter_applies_unless_the_assignment_has_one(
        tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        node_types:
          BigApp:
            derived_from: tosca.nodes.SoftwareComponent
            requirements:
              - host:
                  capability: tosca.capabilities.Compute
                  node: tosca.nodes.Compute
                  relationship: tosca.relationships.HostedOn
                  node_filter:
                    capabilities:
                      - host: {properties: [{num_cpus: {greater_than: 2}}]}
          Odd:
            derived_from: tosca.nodes.SoftwareComponent
            requirements:
              - host:
                  capability: tosca.capabilities.Compute
                  node_filter: {properties: [port]}
        """ + COMPUTES + """
            app: {type: BigApp, requirements: [{host: {node: tosca.nodes.Compute}}]}
            small_app:
              type: BigApp
              requirements:
                - host:
                    node_filter:
                      capabilities: [{host: {properties: [{num_cpus: {equal: 1}}]}}]
        """))
    assert problems(path) == [
        "invalid_template: s.yaml:19:25: node type Odd: requirement host: node_filter "
        "properties is a list of single-key maps"]
    path.write_text(path.read_text().replace("node_filter: {properties: [port]}", ""))
    topology = valid(path)
    assert [r.target for r in topology.nodes["app"].requirements] == ["big"]
    assert [r.target for r in topology.nodes["small_app"].requirements] == ["small"]
