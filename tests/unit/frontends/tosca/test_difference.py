"""Redeploy by difference: what changes a node's fingerprint (and what does
not), and which nodes a redeploy keeps, reruns, resizes and undeploys."""

from __future__ import annotations

import textwrap
import typing as t
from pathlib import Path

from laguna.frontends.tosca.difference import difference, fingerprints
from laguna.frontends.tosca.model import Topology
from laguna.frontends.tosca.topology import load_topology

TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_3
description: {description}
topology_template:
  inputs:
    port: {{type: integer, default: 8080}}
  node_templates:
    vm:
      type: tosca.nodes.Compute
    db:
      type: tosca.nodes.SoftwareComponent
      description: {description}
      requirements: [{{host: vm}}]
      interfaces:
        Standard:
          start: {{implementation: start.sh, inputs: {{NAME: db}}}}
    web:
      type: tosca.nodes.SoftwareComponent
      properties: {{component_version: "{version}"}}
      requirements: [{{host: vm}}, {{dependency: db}}]
      interfaces:
        Standard:
          start:
            implementation: start.sh
            inputs: {{PORT: {{get_input: port}}, DB: {{get_attribute: [db, tosca_id]}}}}
    lone:
      type: tosca.nodes.SoftwareComponent
      interfaces:
        Standard:
          create: create.sh
"""


def topology(tmp_path: Path, inputs: dict[str, t.Any] | None = None,
             description: str = "first", version: str = "1.0",
             start: str = "sleep 1\n") -> Topology:
    (tmp_path / "start.sh").write_text(start)
    (tmp_path / "create.sh").write_text("true\n")
    path = tmp_path / "service.yaml"
    path.write_text(TEMPLATE.format(description=description, version=version))
    found, problems = load_topology(path, inputs or {})
    assert found is not None and not problems, problems.sorted()
    return found


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(name for name in before if before[name] != after[name])


def test_the_same_template_has_the_same_fingerprints(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    assert sorted(first) == ["db", "lone", "vm", "web"]
    assert all(len(value) == 64 for value in first.values())
    assert fingerprints(topology(tmp_path), "here") == first


def test_descriptions_change_no_fingerprint(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    assert changed(first, fingerprints(topology(tmp_path, description="second"), "here")) == []


def test_a_property_changes_its_node_only(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    assert changed(first, fingerprints(topology(tmp_path, version="2.0"), "here")) == ["web"]


def test_an_input_an_operation_reads_changes_that_node(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    assert changed(first, fingerprints(topology(tmp_path, {"port": 9090}), "here")) == ["web"]


def test_a_script_s_contents_change_the_nodes_that_run_it(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    after = fingerprints(topology(tmp_path, start="sleep 2\n"), "here")
    assert changed(first, after) == ["db", "web"]


def test_another_cloud_changes_every_node(tmp_path: Path) -> None:
    first = fingerprints(topology(tmp_path), "here")
    assert changed(first, fingerprints(topology(tmp_path), "local")) == [
        "db", "lone", "vm", "web"]


def stored(prints: dict[str, str], states: dict[str, str] | None = None,
           counts: dict[str, int] | None = None) -> dict[str, t.Any]:
    states = states or {}
    return {"fingerprints": prints,
            "counts": counts or {name: 1 for name in prints},
            "instances": {name: {"node": name, "index": 0,
                                 "state": states.get(name, "started")}
                          for name in prints}}


def test_an_unchanged_started_topology_is_kept_whole(tmp_path: Path) -> None:
    shape = topology(tmp_path)
    prints = fingerprints(shape, "here")
    change = difference(shape, prints, stored(prints), ())
    assert (sorted(change.kept), sorted(change.rerun), sorted(change.gone)) == (
        ["db", "lone", "vm", "web"], [], [])


def test_a_changed_node_reruns_with_its_dependents(tmp_path: Path) -> None:
    shape = topology(tmp_path)
    prints = fingerprints(shape, "here")
    changed_shape = topology(tmp_path, start="sleep 2\n")
    change = difference(changed_shape, fingerprints(changed_shape, "here"), stored(prints), ())
    assert (sorted(change.kept), change.why) == (
        ["lone", "vm"], {"db": "changed", "web": "changed"})
    # a host that reruns takes what it hosts along
    change = difference(shape, prints, stored(prints), ("vm",))
    assert (sorted(change.kept), change.why) == (["lone"], {
        "vm": "drifted (laguna check)", "db": "vm reruns", "web": "vm reruns"})


def test_drifted_failed_new_and_gone_nodes(tmp_path: Path) -> None:
    shape = topology(tmp_path)
    prints = fingerprints(shape, "here")
    old = {**prints, "old": "x" * 64}
    del old["lone"]
    change = difference(shape, prints, stored(old, {"db": "error"}), ("web",))
    assert (sorted(change.kept), change.why, sorted(change.gone)) == (["vm"], {
        "db": "not started by the last deploy", "web": "drifted (laguna check)",
        "lone": "new"}, ["old"])


def test_a_kept_node_whose_count_changed_is_resized_and_its_dependents_rerun(
        tmp_path: Path) -> None:
    shape = topology(tmp_path)
    prints = fingerprints(shape, "here")
    change = difference(shape, prints, stored(prints, counts={
        "vm": 1, "db": 3, "web": 1, "lone": 1}), ())
    assert (sorted(change.kept), dict(change.resized), change.why) == (
        ["db", "lone", "vm"], {"db": 1}, {"web": "db was resized"})


def test_a_model_without_fingerprints_reruns_everything(tmp_path: Path) -> None:
    shape = topology(tmp_path)
    prints = fingerprints(shape, "here")
    old = stored(prints)
    del old["fingerprints"]
    change = difference(shape, prints, old, ())
    assert (sorted(change.kept), set(change.why.values())) == ([], {"no fingerprint kept"})
