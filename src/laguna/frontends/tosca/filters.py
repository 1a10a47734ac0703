"""Node filters (TOSCA 1.3, 3.6.5): which node templates a requirement may
choose, by constraint clauses on their properties and on their capabilities'
properties.

The grammar::

    node_filter:
      properties:                       # a list of single-key maps
        - num_cpus: {in_range: [1, 4]}  # a clause, or a list of clauses
      capabilities:                     # a list of single-key maps
        - host:                         # a capability name or type
            properties:
              - mem_size: [{greater_or_equal: 2 GB}]

:func:`parse` checks that shape and reports every problem; :func:`failure` says
why a candidate does not satisfy a filter (None when it does).
"""

from __future__ import annotations

import dataclasses
import typing as t

from laguna.frontends.tosca import values
from laguna.frontends.tosca.problems import INVALID_TEMPLATE
from laguna.frontends.tosca.types import is_function

#: reports a problem: (kind, message, the map holding the key, the key, the entity)
Report = t.Callable[[str, str, object, object, str], None]

#: a property's value and its type name, or None when the candidate has no such property
Lookup = t.Callable[[str], "tuple[t.Any, str] | None"]


@dataclasses.dataclass(frozen=True)
class PropertyFilter:
    """Every clause must hold for the property's value."""

    name: str
    clauses: tuple[t.Mapping[str, t.Any], ...]


@dataclasses.dataclass(frozen=True)
class CapabilityFilter:
    """A capability (by name or type) whose properties must pass ``properties``."""

    capability: str
    properties: tuple[PropertyFilter, ...]


@dataclasses.dataclass(frozen=True)
class NodeFilter:
    properties: tuple[PropertyFilter, ...]
    capabilities: tuple[CapabilityFilter, ...]


class Candidate(t.Protocol):
    """What a filter looks at in a node template."""

    def property(self, name: str) -> tuple[t.Any, str] | None:
        """The property's value and type; None when its type has no such property."""

    def capability(self, name_or_type: str) -> Lookup | None:
        """The lookup of a capability's properties; None when it has no such capability."""


def parse(raw: object, holder: object, key: object, entity: str, report: Report
          ) -> NodeFilter | None:
    """The filter ``holder[key]``; None (with every problem reported) when its shape
    is wrong."""
    if not isinstance(raw, dict):
        report(INVALID_TEMPLATE, "node_filter is a map of properties and capabilities",
               holder, key, entity)
        return None
    ok = True
    for name in raw:
        if name not in ("properties", "capabilities"):
            report(INVALID_TEMPLATE, f"unknown keyname {name!r} in node_filter (expected "
                   "one of capabilities, properties)", raw, name, entity)
            ok = False
    properties = _properties(raw, "properties", entity, report)
    capabilities: list[CapabilityFilter] = []
    items = _single_key_items(raw, "capabilities", entity, report)
    if items is None:
        ok = False
    for name, body, where in items or []:
        if not isinstance(body, dict) or set(body) - {"properties"}:
            report(INVALID_TEMPLATE, f"node_filter capability {name} is a map with "
                   "properties", where, name, entity)
            ok = False
            continue
        own = _properties(body, "properties", entity, report)
        if own is None:
            ok = False
            continue
        capabilities.append(CapabilityFilter(str(name), tuple(own)))
    if properties is None or not ok:
        return None
    return NodeFilter(tuple(properties), tuple(capabilities))


def undeclared(node_filter: NodeFilter, candidate: Candidate) -> list[str]:
    """What ``node_filter`` names that ``candidate``'s type does not declare."""
    missing = [f"property {p.name}" for p in node_filter.properties
               if candidate.property(p.name) is None]
    for wanted in node_filter.capabilities:
        lookup = candidate.capability(wanted.capability)
        if lookup is None:
            missing.append(f"capability {wanted.capability}")
            continue
        missing += [f"capability {wanted.capability} property {p.name}"
                    for p in wanted.properties if lookup(p.name) is None]
    return missing


def _single_key_items(holder: t.Mapping[str, t.Any], key: str, entity: str,
                      report: Report) -> list[tuple[object, object, object]] | None:
    """``holder[key]`` as (name, value, the item) triples; None when it is not a list
    of single-key maps."""
    items = holder.get(key)
    if items is None:
        return []
    if not isinstance(items, list) or not all(
            isinstance(i, dict) and len(i) == 1 for i in items):
        report(INVALID_TEMPLATE, f"node_filter {key} is a list of single-key maps",
               holder, key, entity)
        return None
    return [(*next(iter(i.items())), i) for i in items]


def _properties(holder: t.Mapping[str, t.Any], key: str, entity: str, report: Report
                ) -> list[PropertyFilter] | None:
    items = _single_key_items(holder, key, entity, report)
    if items is None:
        return None
    result: list[PropertyFilter] = []
    ok = True
    for name, given, where in items:
        clauses = given if isinstance(given, list) else [given]
        for clause in clauses:
            # the clause's shape only: the property's type is the candidate's
            problem = values.check_constraint_clause(clause, "string")
            if problem is not None:
                report(problem[0], f"node_filter property {name}: {problem[1]}", where,
                       name, entity)
                ok = False
        # each clause is a map of one operator: checked just above
        result.append(PropertyFilter(str(name), tuple(t.cast(
            list[t.Mapping[str, t.Any]], clauses))))
    return result if ok else None


def failure(node_filter: NodeFilter, candidate: Candidate) -> str | None:
    """Why ``candidate`` does not satisfy ``node_filter``; None when it does."""
    why = _properties_failure(node_filter.properties, candidate.property)
    if why is not None:
        return why
    for wanted in node_filter.capabilities:
        lookup = candidate.capability(wanted.capability)
        if lookup is None:
            return f"no capability {wanted.capability}"
        why = _properties_failure(wanted.properties, lookup)
        if why is not None:
            return f"capability {wanted.capability}: {why}"
    return None


def _properties_failure(filters: t.Iterable[PropertyFilter], lookup: Lookup) -> str | None:
    for wanted in filters:
        found = lookup(wanted.name)
        if found is None:
            return f"no property {wanted.name}"
        value, type_name = found
        if value is None:
            return f"property {wanted.name} has no value"
        if is_function(value):
            return f"property {wanted.name} is {next(iter(value))}, known only at deploy"
        for clause in wanted.clauses:
            why = values.check_constraint(clause, type_name, value)
            if why is not None:
                return f"property {wanted.name}: {why}"
    return None
