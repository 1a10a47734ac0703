"""Validation of whole blueprints: what is accepted, and every problem of what is not."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import pytest

from laguna.frontends.tosca.frontend import recognises
from laguna.frontends.tosca.model import Topology
from laguna.frontends.tosca.topology import load_topology

HEAD = "tosca_definitions_version: tosca_simple_yaml_1_3\n"


def template(body: str) -> str:
    return HEAD + textwrap.dedent(body)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def problems(path: Path, inputs: dict[str, object] | None = None) -> list[str]:
    topology, found = load_topology(path, inputs)
    assert topology is None
    return [f"{p.kind}: {p.brief()}" for p in found.sorted()]


def valid(path: Path, inputs: dict[str, object] | None = None) -> Topology:
    topology, found = load_topology(path, inputs)
    assert [p.brief() for p in found.sorted()] == []
    assert topology is not None
    return topology


def test_refinement_keeps_the_parent_type_and_adds_constraints(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        node_types:
          Base:
            derived_from: tosca.nodes.Root
            properties:
              size: {type: integer, default: 1}
          Small:
            derived_from: Base
            properties:
              size: {default: 2, constraints: [{less_than: 10}]}
        topology_template:
          node_templates:
            ok: {type: Small}
            big: {type: Small, properties: {size: 12}}
        """))
    assert problems(path) == [
        "constraint_violation: s.yaml:15:37: node big: property size: 12 is not less than 10"]


def test_refinement_to_a_type_not_derived_is_a_mismatch(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        node_types:
          Base:
            derived_from: tosca.nodes.Root
            properties:
              size: {type: integer}
          Other:
            derived_from: Base
            properties:
              size: {type: string}
        """))
    assert problems(path) == [
        "type_mismatch: s.yaml:11:14: node type Other: size: refines type integer with string, "
        "which does not derive from it"]


def test_defaults_fill_in_and_fixed_values_win(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        node_types:
          Base:
            derived_from: tosca.nodes.Root
            properties:
              a: {type: string, default: x}
              b: {type: string, required: false}
          Fixed:
            derived_from: Base
            properties:
              a: {value: fixed}
        topology_template:
          node_templates:
            n: {type: Fixed}
        """))
    assert valid(path).nodes["n"].properties == {"a": "fixed"}


def test_requirement_by_node_type_picks_a_matching_template(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            db: {type: tosca.nodes.Database, properties: {name: d}}
            dbms: {type: tosca.nodes.DBMS}
            other: {type: tosca.nodes.Compute}
            app:
              type: tosca.nodes.SoftwareComponent
              requirements:
                - dependency: {node: tosca.nodes.DBMS}
                - dependency: {capability: tosca.capabilities.Endpoint.Database}
        """))
    app = valid(path).nodes["app"]
    assert [(r.name, r.target, r.capability, r.relationship_type) for r in app.requirements] == [
        ("dependency", "dbms", "feature", "tosca.relationships.DependsOn"),
        ("dependency", "db", "database_endpoint", "tosca.relationships.DependsOn")]


def test_occurrences_bound_the_assignments(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        node_types:
          Pair:
            derived_from: tosca.nodes.Root
            requirements:
              - peer: {capability: tosca.capabilities.Node, occurrences: [2, 2]}
        topology_template:
          node_templates:
            one: {type: Pair, requirements: [{peer: two}]}
            two: {type: Pair, requirements: [{peer: one}, {peer: one}, {peer: one}]}
        """))
    assert problems(path) == [
        "unresolved_requirement: s.yaml:10:23: node one: requirement peer needs at least 2 "
        "assignment(s), has 1",
        "unresolved_requirement: s.yaml:11:23: node two: requirement peer allows at most 2 "
        "assignment(s), has 3"]


def test_host_is_optional_a_software_component_runs_here(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            alone: {type: tosca.nodes.SoftwareComponent}
        """))
    assert valid(path).nodes["alone"].hosts == []


def test_data_types_nest_with_entry_and_key_schemas(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        data_types:
          Port:
            derived_from: integer
            constraints: [{in_range: [1, 65535]}]
          Service:
            derived_from: tosca.datatypes.Root
            properties:
              ports: {type: map, key_schema: {type: string, constraints: [{pattern: "[a-z]+"}]},
                      entry_schema: {type: Port}}
              tags: {type: list, entry_schema: {type: string}, required: false}
        node_types:
          N:
            derived_from: tosca.nodes.Root
            properties:
              services: {type: list, entry_schema: Service}
        topology_template:
          node_templates:
            n:
              type: N
              properties:
                services:
                  - ports: {http: 80}
                  - ports: {HTTP: 0}
                    tags: [1]
        """))
    assert problems(path) == [
        "constraint_violation: s.yaml:23:9: node n: property services: ports: 'HTTP' does not "
        "match the pattern '[a-z]+'",
        "constraint_violation: s.yaml:23:9: node n: property services: ports: 0 is not in range "
        "[1, 65535]",
        "type_mismatch: s.yaml:23:9: node n: property services: tags: 1 is not a string"]


def test_imports_nest_and_prefix_their_types(tmp_path: Path) -> None:
    write(tmp_path, "lib/inner.yaml", template("""
        node_types:
          Inner: {derived_from: tosca.nodes.Root}
        """))
    write(tmp_path, "lib/outer.yaml", template("""
        imports: [inner.yaml]
        node_types:
          Outer: {derived_from: Inner}
        """))
    path = write(tmp_path, "s.yaml", template("""
        imports:
          - file: lib/outer.yaml
            namespace_prefix: ns
        topology_template:
          node_templates:
            a: {type: ns:Outer}
            b: {type: Outer}
        """))
    assert problems(path) == ["unknown_type: s.yaml:9:9: node b: unknown node type 'Outer'"]


def test_a_missing_import_is_reported_where_it_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", HEAD + "imports:\n  - nowhere.yaml\n")
    assert problems(path) == [
        "invalid_template: s.yaml:3:5: imported file nowhere.yaml does not exist"]


def test_groups_policies_substitution_and_workflows_are_checked(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          substitution_mappings:
            node_type: tosca.nodes.WebServer
            capabilities:
              data_endpoint: [web, nowhere]
              nonsense: [web, feature]
          node_templates:
            web: {type: tosca.nodes.SoftwareComponent}
          groups:
            g: {type: tosca.groups.Root, members: [web, ghost]}
          policies:
            - p: {type: tosca.policies.Placement, targets: [ghost]}
            - q: {type: no.such.Policy}
          workflows:
            w:
              steps:
                one:
                  target: web
                  activities:
                    - call_operation: Standard.explode
                    - set_state: sleeping
                  on_success: [two]
        """))
    assert problems(path) == [
        "invalid_template: s.yaml:8:7: substitution_mappings: tosca.nodes.WebServer has no "
        "capability 'nonsense'",
        "unresolved_requirement: s.yaml:12:34: group g: member 'ghost' is not a node template",
        "unresolved_requirement: s.yaml:14:43: policy p: target 'ghost' is not a node template "
        "or group",
        "unknown_type: s.yaml:15:11: policy q: unknown policy type 'no.such.Policy'",
        "invalid_template: s.yaml:21:11: workflow w: step one: call_operation: web has no "
        "operation Standard.explode",
        "invalid_template: s.yaml:21:11: workflow w: step one: set_state: 'sleeping' is not a "
        "node state",
        "invalid_template: s.yaml:24:11: workflow w: step one: unknown step 'two'"]


def test_scaling_policy_sets_the_instance_count(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", template("""
        topology_template:
          node_templates:
            w: {type: tosca.nodes.SoftwareComponent}
            c: {type: tosca.entity.DynamicCluster, properties: {cluster.initial.size: 4}}
          policies:
            - s: {type: tosca.policies.Scaling, targets: [w], properties: {minPoolSize: 2}}
        """))
    topology = valid(path)
    assert (topology.nodes["w"].instances, topology.nodes["c"].instances) == (2, 4)


def test_csar_zip_with_meta(tmp_path: Path) -> None:
    archive = tmp_path / "shop.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("TOSCA-Metadata/TOSCA.meta", "TOSCA-Meta-File-Version: 1.1\n"
                   "CSAR-Version: 1.1\nCreated-By: me\nEntry-Definitions: defs/main.yaml\n")
        z.writestr("defs/main.yaml", HEAD + "topology_template:\n  node_templates: {}\n")
    assert recognises(archive)
    assert valid(archive).name == "shop"


def test_csar_meta_without_its_fields(tmp_path: Path) -> None:
    write(tmp_path, "c/TOSCA-Metadata/TOSCA.meta", "CSAR-Version: 1.1\n")
    assert problems(tmp_path / "c") == [
        "csar_invalid: c:1:1: TOSCA-Metadata/TOSCA.meta has no TOSCA-Meta-File-Version"]


@pytest.mark.parametrize(("text", "expected"), [
    (HEAD, True),
    ("# comment\n" + HEAD, True),
    ("Objects:\n  tosca_definitions_version: x\n", False),
    ("Format: 1.0\n", False),
])
def test_recognised_by_the_version_keyname(tmp_path: Path, text: str, expected: bool) -> None:
    assert recognises(write(tmp_path, "b.yaml", text)) is expected
