"""AMP's blueprint forms read by the TOSCA front end (seed 003): the ``$brooklyn:``
DSL as TOSCA functions, initializer groups' policies as topology policies, and
the DynamicCluster's member template."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.frontends.tosca import dsl
from laguna.frontends.tosca.topology import load_topology
from laguna.yamlio import plain

CONFORMANCE = Path(__file__).parents[3] / "conformance" / "tosca" / "cases"


def translated(text: str, nodes: t.Collection[str] = ("db", "web")) -> t.Any:
    return plain(dsl.expression(text, nodes, None))


@pytest.mark.parametrize(("text", "function"), [
    ('$brooklyn:config("port")', {"get_property": ["SELF", "port"]}),
    ('$brooklyn:self().config("port")', {"get_property": ["SELF", "port"]}),
    ('$brooklyn:component("db").config("port")', {"get_property": ["db", "port"]}),
    ('$brooklyn:component("global", "db").config("port")', {"get_property": ["db", "port"]}),
    ('$brooklyn:entity("db").attributeWhenReady("host")', {"get_attribute": ["db", "host"]}),
    ('$brooklyn:attributeWhenReady("host")', {"get_attribute": ["SELF", "host"]}),
    ('$brooklyn:scopeRoot().config("size")', {"get_input": "size"}),
    ("$brooklyn:literal('$brooklyn:config(\"x\")')", '$brooklyn:config("x")'),
    ('$brooklyn:entity("web")', "web"),
    ('$brooklyn:formatString("%s:%d%%", component("db").attributeWhenReady("host"), 80)',
     {"concat": [{"get_attribute": ["db", "host"]}, ":", 80, "%"]}),
    ('$brooklyn:formatString("%2$s/%1$s")', None),
])
def test_dsl_string_form_becomes_a_tosca_function(text: str, function: t.Any) -> None:
    if function is None:
        with pytest.raises(dsl.DslError, match=r"^formatString: %2\$s needs argument 2 after "
                           r"the format, but 0 are given$"):
            translated(text)
        return
    assert translated(text) == function


def test_dsl_map_form_takes_its_value_as_arguments() -> None:
    found: dsl.Found = []
    data = {"a": {"$brooklyn:formatString": ["%s-%s", '$brooklyn:config("x")', "y"]},
            "b": {"$brooklyn:component": "db"}, "c": {"$brooklyn:literal": "$brooklyn:z"},
            "spec": {"$brooklyn:entitySpec": {"type": "T", "brooklyn.config": {
                "p": '$brooklyn:entity("web").attributeWhenReady("url")'}}}}
    assert plain(dsl.translate(data, ["db", "web"], found)) == {
        "a": {"concat": [{"get_property": ["SELF", "x"]}, "-y"]}, "b": "db",
        "c": "$brooklyn:z",
        "spec": {"$brooklyn:entitySpec": {"type": "T", "brooklyn.config": {
            "p": {"get_attribute": ["web", "url"]}}}}}
    assert found == []


def test_initializer_group_policies_become_topology_policies() -> None:
    topology, problems = load_topology(
        CONFORMANCE / "validate_initializer_groups" / "service.yaml")
    assert not problems and topology is not None
    policies = {name: plain(body) for name, body in topology.policies.items()}
    assert policies == {
        "add_brooklyn_types.0": {
            "type": "org.apache.brooklyn.policy.autoscaling.AutoScalerPolicy",
            "properties": {"metric": "cpu.perNode", "metricLowerBound": 0.5,
                           "metricUpperBound": 0.8, "resizeUpStabilizationDelay": "2s",
                           "resizeDownStabilizationDelay": "1m", "minPoolSize": 2,
                           "maxPoolSize": 5},
            "targets": ["tomcat-cluster"]},
        "healing.0": {"type": "org.apache.brooklyn.policy.ha.ServiceRestarter",
                      "properties": {"failOnRecurringFailuresInThisDuration": "5m",
                                     "setOnFireOnFailure": True},
                      "targets": ["tomcat-cluster", "db"]},
        "healing.1": {"type": "org.apache.brooklyn.policy.ha.ServiceReplacer",
                      "properties": {"failOnRecurringFailuresInThisDuration": 300000,
                                     "failOnNumRecurringFailures": 3},
                      "targets": ["tomcat-cluster", "db"]},
        "healing.2": {"type": "com.example.SomeOtherPolicy",
                      "properties": {"anything": [1, 2]},
                      "targets": ["tomcat-cluster", "db"]},
    }
    healing = plain(topology.groups["healing"]["properties"])
    assert healing["brooklyn.config"] == {"entityWithMetric": "db"}
    assert healing["brooklyn.enrichers"] == [{
        "type": "org.apache.brooklyn.enricher.stock.Aggregator",
        "brooklyn.config": {"enricher.sourceSensor": {"get_attribute": ["db", "host"]}}}]


def test_dsl_leaves_descriptions_but_reads_a_property_named_description() -> None:
    found: dsl.Found = []
    data = {"description": '$brooklyn:config("x") is how AMP reads x',
            "properties": {"description": '$brooklyn:config("x")'}}
    assert plain(dsl.translate(data, ["web"], found)) == {
        "description": '$brooklyn:config("x") is how AMP reads x',
        "properties": {"description": {"get_property": ["SELF", "x"]}}}
    assert found == []


def test_dsl_problem_names_the_entity_and_the_character() -> None:
    found: dsl.Found = []
    data = {"topology_template": {"node_templates": {"web": {"properties": {
        "p": '$brooklyn:config("x"'}}}}}
    dsl.translate(data, ["web"], found)
    assert found == [("bad_function", '$brooklyn:config("x": expected \',\' or \')\' in the '
                      'arguments of config (at character 21)', None, "node web")]
