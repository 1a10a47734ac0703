"""The descriptor grammar, loaded with spans; structural problems collected."""

from __future__ import annotations

from pathlib import Path

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.descriptor import load_descriptor
from laguna.frontends.marks import is_assembly

SEED_STYLE = """\
name: assembly::assembly_A::1.0
description: from the seed
properties:
  deploymentLocation: {type: string, required: true}
  numOfStreamers: {type: string, default: 2}
  test_boolean: {type: boolean, default: true, readOnly: true}
  test_timestamp: {type: timestamp, default: 2019-09-07T15:50-04:00, volatile: true}
  test_list:
    type: list
    entry_schema: {type: integer}
  test_map:
    type: map
    entry-schema: sap-type
data-types:
  base-type:
    properties:
      source: {type: string}
  sap-type:
    derived-from: base-type
    properties:
      id: {type: string}
composition:
  streamer:
    type: resource::c_streamer::1.0
    cluster: {initial-quantity: '${numOfStreamers}', maximum-nodes: 4}
    upgrade-dependencies: [balancer]
  balancer:
    type: resource::c_balancer::1.0
    quantity: '1'
operations:
  Operation_1:
    source-operation: streamer.R_op1
    multiple-instances: any
lifecycle:
  - Install
  - Start: {}
"""


def test_the_whole_grammar_loads_with_spans(tmp_path: Path) -> None:
    descriptor, problems = load_descriptor(tmp_path / "a.yaml", SEED_STYLE, "a.yaml")
    assert problems == []
    assert descriptor is not None
    assert (descriptor.kind, descriptor.version, descriptor.description) == (
        "assembly", "1.0", "from the seed")
    props = descriptor.properties
    assert props["deploymentLocation"].required is True
    assert (props["numOfStreamers"].default, props["test_boolean"].read_only) == (2, True)
    assert (props["test_timestamp"].volatile, props["test_timestamp"].default) == (
        True, "2019-09-07T15:50-04:00")
    assert props["test_list"].entry_schema is not None
    assert props["test_list"].entry_schema.type == "integer"
    assert props["test_map"].entry_schema is not None
    assert props["test_map"].entry_schema.type == "sap-type"
    assert str(props["test_map"].span) == "a.yaml:11:3"
    assert descriptor.data_types["sap-type"].derived_from == "base-type"
    streamer = descriptor.composition["streamer"]
    assert streamer.cluster is not None
    assert (streamer.cluster.initial_quantity, streamer.cluster.minimum_nodes,
            streamer.cluster.maximum_nodes, streamer.cluster.scaling_increment) == (
        "${numOfStreamers}", 1, 4, 1)
    assert [d for d, _ in streamer.upgrade_dependencies] == ["balancer"]
    assert str(streamer.type_span) == "a.yaml:24:11"
    op = descriptor.operations["Operation_1"]
    assert (op.source, op.multiple) == ("streamer.R_op1", "any")
    assert descriptor.lifecycle == ("Install", "Start")


def test_every_structural_problem_is_collected(tmp_path: Path) -> None:
    text = """\
name: assembly::ok::1.0
properties:
  a: {type: widget}
  v: {volatile: true, read-only: true}
  s: just a string
composition:
  x: {quantity: 2}
relationships:
  r:
    source-state: Running
    target-state-modifier: later
operations:
  P: {source-operation: nodot, multiple-instances: some}
"""
    _, problems = load_descriptor(tmp_path / "b.yaml", text, "b.yaml")
    assert [(p.kind, p.brief()) for p in problems] == [
        (e.INVALID_DESCRIPTOR, "b.yaml:4:3: volatile property 'v' cannot be read-only"),
        (e.INVALID_DESCRIPTOR, "b.yaml:5:6: property 's' must be a map"),
        (e.INVALID_DESCRIPTOR, "b.yaml:7:3: component 'x' has no type"),
    ] + [
        (e.INVALID_DESCRIPTOR, f"b.yaml:9:3: relationship 'r': {field} is required")
        for field in ("source-capabilities", "target-requirements", "target-state",
                      "properties", "lifecycle")
    ] + [
        (e.INVALID_RELATIONSHIP, "b.yaml:10:5: relationship 'r': source-state 'Running' is not "
                                 "one of Installed, Inactive, Active, Broken"),
        (e.INVALID_RELATIONSHIP, "b.yaml:11:5: relationship 'r': target-state-modifier 'later' "
                                 "is not one of pre, post"),
        (e.INVALID_DESCRIPTOR, "b.yaml:13:3: operation 'P' needs source-operation: "
                               "component.operation"),
        (e.INVALID_DESCRIPTOR, "b.yaml:13:3: operation 'P': multiple-instances 'some' is not "
                               "every, any or first"),
        (e.INVALID_DATA_TYPE, "b.yaml:3:3: property 'a' has unknown type 'widget'"),
    ]


def test_yaml_errors_and_names_stop_loading(tmp_path: Path) -> None:
    descriptor, problems = load_descriptor(tmp_path / "c.yaml", "name: [\n", "c.yaml")
    assert descriptor is None
    assert [p.kind for p in problems] == [e.INVALID_DESCRIPTOR]
    descriptor, problems = load_descriptor(tmp_path / "d.yaml", "description: x\n", "d.yaml")
    assert descriptor is None
    assert [(p.kind, p.brief()) for p in problems] == [
        (e.INVALID_DESCRIPTOR_NAME, "d.yaml:1:1: the descriptor has no name (only one in a "
                                    "package, Definitions/lm/, may leave it out)")]


def _package_file(root: Path, kind: str, text: str) -> Path:
    path = root / "Definitions" / "lm" / f"{kind}.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_a_nameless_descriptor_is_named_by_its_package_folder(tmp_path: Path) -> None:
    path = _package_file(tmp_path / "acme.web-1.10", "resource", "description: x\n")
    descriptor, problems = load_descriptor(path, source="resource.yaml")
    assert problems == []
    assert descriptor is not None
    assert (descriptor.name, descriptor.kind) == ("resource::acme.web::1.10", "resource")


def test_a_nameless_descriptor_is_named_by_its_lmproject_first(tmp_path: Path) -> None:
    root = tmp_path / "folder-9.9"
    path = _package_file(root, "assembly", "description: x\nproperties: {}\n")
    (root / "lmproject.yml").write_text("schema: '2.0'\nname: shop\nversion: '2.1'\n")
    descriptor, _ = load_descriptor(path)
    assert descriptor is not None and descriptor.name == "assembly::shop::2.1"
    assert is_assembly(path)


def test_a_named_descriptor_in_a_package_keeps_its_name(tmp_path: Path) -> None:
    path = _package_file(tmp_path / "acme.web-1.0", "resource",
                         "name: resource::other::3.0\n")
    descriptor, _ = load_descriptor(path)
    assert descriptor is not None and descriptor.name == "resource::other::3.0"


def test_a_nameless_descriptor_in_a_folder_without_a_version_has_no_name(
        tmp_path: Path) -> None:
    path = _package_file(tmp_path / "web", "resource", "description: x\n")
    descriptor, problems = load_descriptor(path, source="resource.yaml")
    assert descriptor is None
    assert [(p.kind, p.brief()) for p in problems] == [
        (e.INVALID_DESCRIPTOR_NAME, "resource.yaml:1:1: the descriptor has no name (only one "
                                    "in a package, Definitions/lm/, may leave it out)")]
