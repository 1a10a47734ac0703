"""AMP's DynamicCluster (seed 003): a node template of type
``tosca.entity.DynamicCluster`` (AMP's ``org.apache.brooklyn.entity.group.DynamicCluster``)
whose ``dynamiccluster.memberspec`` is ``{$brooklyn:entitySpec: {type, brooklyn.config,
...}}`` deploys as ``cluster.initial.size`` members of that spec.

The cluster becomes one node template of the member's type, named as the
cluster, with ``cluster.initial.size`` instances: the multi-instance mechanism a
Scaling policy's ``default_instances`` uses, so resizing a cluster at run time
is resizing that node. Its members are the node's instances (``<cluster>.0``,
``<cluster>.1``, ...; the cluster's own name when it has one member), each with
its own ``tosca_id`` (``<deploy run>-<cluster>.<i>``) and lifecycle. The spec's
``brooklyn.config`` are the member's properties; its ``requirements``,
``interfaces``, ``artifacts``, ``attributes`` and ``capabilities`` are the
member template's, so a requirement written there is injected into every
member (the seed's reason for the entitySpec).
"""

from __future__ import annotations

import typing as t

from laguna.frontends.tosca.dsl import ENTITY_SPEC
from laguna.frontends.tosca.problems import (
    CONSTRAINT_VIOLATION,
    INVALID_TEMPLATE,
    MISSING_REQUIRED,
    TYPE_MISMATCH,
)
from laguna.yamlio import YMap

DYNAMIC_CLUSTER = "tosca.entity.DynamicCluster"
MEMBER_SPEC = "dynamiccluster.memberspec"
INITIAL_SIZE = "cluster.initial.size"
#: the keynames of an entitySpec: AMP's, and the node template keynames a member takes
SPEC_KEYS = ("type", "name", "brooklyn.config", "requirements", "interfaces", "artifacts",
             "attributes", "capabilities")
#: the keynames of the cluster template itself (the rest belongs in the member spec)
CLUSTER_KEYS = ("type", "description", "metadata", "properties", "directives")
#: what becomes of the spec's keynames in the member's node template
_AS_TEMPLATE = {"brooklyn.config": "properties", "requirements": "requirements",
                "interfaces": "interfaces", "artifacts": "artifacts",
                "attributes": "attributes", "capabilities": "capabilities"}

#: a problem: (kind, message, the map holding the key, the key)
Finding = tuple[str, str, object, object]


def member_template(name: str, body: t.Mapping[str, t.Any]
                    ) -> tuple[YMap | None, list[Finding]]:
    """The node template of a cluster's members (None when the cluster gives no
    member spec: it then deploys as a plain node with its instances), and the
    problems of the cluster's own keynames and spec."""
    found: list[Finding] = []
    for key in body:
        if key not in CLUSTER_KEYS:
            found.append((INVALID_TEMPLATE, f"a DynamicCluster takes {key} for its members "
                          f"in {MEMBER_SPEC} ({ENTITY_SPEC}: {{...}})", body, key))
    properties = body.get("properties")
    if not isinstance(properties, dict) or MEMBER_SPEC not in properties:
        return None, found
    wrapped = properties[MEMBER_SPEC]
    if not (isinstance(wrapped, dict) and len(wrapped) == 1 and ENTITY_SPEC in wrapped):
        found.append((TYPE_MISMATCH, f"{MEMBER_SPEC} is {{{ENTITY_SPEC}: {{type: ..., "
                      "brooklyn.config: {...}}}", properties, MEMBER_SPEC))
        return None, found
    spec = wrapped[ENTITY_SPEC]
    if not isinstance(spec, dict):
        found.append((TYPE_MISMATCH, f"{ENTITY_SPEC} is a map with a type", wrapped,
                      ENTITY_SPEC))
        return None, found
    for key in spec:
        if key not in SPEC_KEYS:
            found.append((INVALID_TEMPLATE, f"{ENTITY_SPEC}: unknown keyname {key!r} "
                          f"(expected one of {', '.join(SPEC_KEYS)})", spec, key))
    if not isinstance(spec.get("type"), str):
        found.append((MISSING_REQUIRED, f"{ENTITY_SPEC} needs the members' node type",
                      wrapped, ENTITY_SPEC))
        return None, found
    member = YMap()
    member.span = getattr(spec, "span", None) or getattr(body, "span")
    member.key_spans = {"type": getattr(spec, "key_spans", {}).get("type", member.span)}
    member.number_texts = {}
    member["type"] = spec["type"]
    for key, keyname in _AS_TEMPLATE.items():
        if key in spec:
            member[keyname] = spec[key]
            member.key_spans[keyname] = getattr(spec, "key_spans", {}).get(key, member.span)
    return member, found


def initial_size(value: object, holder: object) -> tuple[int | None, list[Finding]]:
    """The member count ``cluster.initial.size`` asks for. AMP allows an empty
    cluster; laguna deploys at least one member (an empty node would leave
    every relationship to it without a target instance)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None, []     # a type problem, reported with the properties
    if value < 1:
        return None, [(CONSTRAINT_VIOLATION, f"{INITIAL_SIZE} {value}: laguna deploys a "
                       "DynamicCluster with at least one member", holder, INITIAL_SIZE)]
    return value, []
