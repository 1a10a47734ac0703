"""The ``copy`` keyname of node and relationship templates."""

from __future__ import annotations

from pathlib import Path

from tests.unit.frontends.tosca.test_topology import problems, template, valid, write


def test_a_copy_takes_the_named_template_and_overrides_keyname_by_keyname(
        tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            db:
              type: tosca.nodes.Database
              properties: {name: shop, port: 5432}
              requirements: [{host: dbms}]
            dbms: {type: tosca.nodes.DBMS}
            copied:
              copy: db
              properties: {name: other}
        """))
    topology = valid(path)
    copied = topology.nodes["copied"]
    assert copied.type == "tosca.nodes.Database"
    # properties is one keyname: the copy's own replaces the basis' whole map
    assert copied.properties == {"name": "other"}
    assert [(r.name, r.target) for r in copied.requirements] == [("host", "dbms")]
    assert topology.nodes["db"].properties == {"name": "shop", "port": 5432}


def test_a_relationship_template_copy_keeps_type_and_properties(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          relationship_templates:
            conn:
              type: tosca.relationships.ConnectsTo
              properties: {credential: {user: a, token: b}}
            again: {copy: conn}
          node_templates:
            db: {type: tosca.nodes.Database, properties: {name: shop}}
            dbms: {type: tosca.nodes.DBMS}
            app:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - dependency: {node: dbms, relationship: again}
        """))
    (requirement,) = valid(path).nodes["app"].requirements
    assert requirement.relationship_type == "tosca.relationships.ConnectsTo"
    assert requirement.properties == {"credential": {"user": "a", "token": "b"}}


def test_copy_of_itself_of_a_copy_and_of_nothing_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          relationship_templates:
            conn: {type: tosca.relationships.ConnectsTo}
            once: {copy: conn}
            twice: {copy: once}
          node_templates:
            db: {type: tosca.nodes.Database, properties: {name: shop}}
            db2: {copy: db}
            me: {copy: me}
            chain: {copy: db2}
            lost: {copy: nowhere, type: tosca.nodes.Root}
            odd: {copy: [db]}
        """))
    assert problems(path) == [
        "invalid_template: s.yaml:7:13: relationship twice: copy names 'once', which itself "
        "uses copy (copy a complete template)",
        "invalid_template: s.yaml:11:10: node me: copy names the node template itself",
        "invalid_template: s.yaml:12:13: node chain: copy names 'db2', which itself uses "
        "copy (copy a complete template)",
        "invalid_template: s.yaml:13:12: node lost: copy names 'nowhere', which is not a "
        "node template",
        "invalid_template: s.yaml:14:11: node odd: copy names a template",
    ]


def test_problems_of_copied_values_point_at_where_they_were_written(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            db:
              type: tosca.nodes.Database
              properties: {name: shop, port: high}
            db2:
              copy: db
              properties: {name: other, port: low}
        """))
    assert problems(path) == [
        "type_mismatch: s.yaml:7:32: node db: property port: 'high' is not an integer",
        "type_mismatch: s.yaml:10:33: node db2: property port: 'low' is not an integer",
    ]
