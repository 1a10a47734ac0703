"""Condition clauses on an instance: the logical forms, typed reads and their shapes."""

from __future__ import annotations

from laguna.frontends.tosca.conditions import shape_problems, unmet
from laguna.frontends.tosca.model import Node
from laguna.frontends.tosca.runtime import Instance


def instance() -> Instance:
    node = Node("db", "tosca.nodes.Database", ["tosca.nodes.Database"],
                {"port": 5432, "name": {"get_input": "x"}}, {"role": "primary"}, [], {}, {}, {})
    found = Instance(node, 0, "db", state="started")
    found.attributes["load"] = "3"
    return found


def test_clauses() -> None:
    db = instance()
    assert unmet([{"state": [{"equal": "started"}]}, {"load": [{"less_than": 5}]}], db) is None
    assert unmet([{"load": [{"greater_than": 3}]}], db) == "load 3 is not greater than 3"
    assert unmet([{"port": [{"in_range": [1, 1024]}]}], db) == \
        "port 5432 is not in range [1, 1024]"
    assert unmet([{"role": [{"valid_values": ["primary", "replica"]}]}], db) is None
    # a property whose value is a function is not read: null
    assert unmet([{"name": [{"equal": "x"}]}], db) == "name None is not equal to 'x'"
    assert unmet([{"and": [{"state": [{"equal": "started"}]},
                           {"assert": [{"role": [{"equal": "replica"}]}]}]}], db) == \
        "role 'primary' is not equal to 'replica'"
    assert unmet([{"or": [{"state": [{"equal": "error"}]}, {"role": [{"equal": "primary"}]}]}],
                 db) is None
    assert unmet([{"not": [{"state": [{"equal": "started"}]}]}], db) == \
        "it is not the case that state equal 'started'"
    assert unmet([{"not": [{"state": [{"equal": "error"}]}]}], db) is None


def test_shapes() -> None:
    assert shape_problems([{"and": [{"state": [{"equal": 1}]}]}]) == []
    assert shape_problems({"state": []}) == ["a condition is a list of condition clauses"]
    assert shape_problems([{"a": 1, "b": 2}, {"assert": 3}, {"or": [{"s": [{"near": 1}]}]}]) == [
        "a condition clause is a map of one key, got {'a': 1, 'b': 2}",
        "assert takes a list of {attribute: [constraint clauses]}",
        "attribute s: unknown constraint operator 'near' (expected one of equal, greater_than, "
        "greater_or_equal, less_than, less_or_equal, in_range, valid_values, length, "
        "min_length, max_length, pattern, schema)"]
