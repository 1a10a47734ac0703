"""Substitution composed: a node template whose type another template substitutes
(its ``substitution_mappings.node_type``) deploys that inner topology.

The substituting template is found among the documents the blueprint imports
(a file of the same CSAR, or a catalog package imported as ``catalog:NAME``):
the first, in import order, whose ``topology_template`` has substitution
mappings for the node's type. Composition flattens it into the outer
topology, once the outer one is valid:

- the inner template is validated with the outer node's property values as
  its inputs: ``properties: {PROP: [INPUT]}`` maps PROP to INPUT; a property
  not mapped goes to the input of the same name when there is one;
- each inner node becomes ``<outer node>.<inner node>`` (nested
  substitutions repeat it: ``app.db.server``); what names inner nodes
  (requirements, get_property/get_attribute/get_operation_output/get_artifact,
  a BlockUntilRunning ``target``) is renamed with it, and each ``get_input``
  of the inner template becomes the value its input got;
- ``requirements: {REQ: [NODE, NODE_REQ]}``: the outer node's requirement REQ
  becomes NODE_REQ of inner NODE (the outer node no longer has it);
- ``capabilities: {CAP: [NODE, NODE_CAP]}``: a requirement of another outer
  node met by the outer node's CAP is met by NODE's NODE_CAP instead;
- every inner output is an attribute of the outer node, and ``attributes:
  {ATTR: [OUTPUT]}`` or ``{ATTR: [NODE, ATTRIBUTE]}`` adds others;
- the outer node waits for every inner node to be started (an AMP
  RequiresRunning on each), so it is started when its inner topology is;
  undeploy takes it down first, then the inner nodes.

- the inner template's groups, policies and workflows come along, named
  ``<outer node>.<name>`` as its nodes are; what names an inner node, group or
  workflow in them (members, targets, a trigger's ``target_filter``, a step's
  target and precondition targets, ``inline``/``delegate`` workflows) is
  renamed with it, so an inner policy acts on the inner nodes and an inner
  workflow runs on them, called by its new name.
"""

from __future__ import annotations

import dataclasses
import posixpath
import typing as t
from pathlib import Path

from laguna.frontends.tosca.blocking import BLOCK_UNTIL_RUNNING
from laguna.frontends.tosca.documents import Document
from laguna.frontends.tosca.model import Node, Operation, Requirement, Topology
from laguna.frontends.tosca.problems import INVALID_TEMPLATE, Problems
from laguna.frontends.tosca.types import Registry
from laguna.source import Span

#: how deep substitutions may nest (a template substituting its own type loops)
MAX_DEPTH = 8
#: the relationship that holds the outer node until its inner nodes are started
REQUIRES_RUNNING = "brooklyn.tosca.relationships.RequiresRunning"
_NAMING_FUNCTIONS = frozenset({"get_property", "get_attribute", "get_operation_output",
                               "get_artifact"})

#: validates an inner template with its input values (the outer run's settings)
LoadInner = t.Callable[[Path, dict[str, t.Any]], tuple[Topology | None, Problems]]


def substituting(documents: t.Sequence[Document], registry: Registry
                 ) -> dict[str, Document]:
    """Node type (full name) -> the imported document whose topology substitutes it."""
    found: dict[str, Document] = {}
    for document in documents[1:]:
        topology = document.data.get("topology_template")
        mappings = topology.get("substitution_mappings") if isinstance(topology, dict) \
            else None
        if not isinstance(mappings, dict) or not isinstance(mappings.get("node_type"), str):
            continue
        definition = registry.resolve("node_types", mappings["node_type"], document.prefix)
        if definition is not None:
            found.setdefault(definition.name, document)
    return found


def compose(topology: Topology, documents: t.Sequence[Document], registry: Registry,
            problems: Problems, load_inner: LoadInner, depth: int = 0) -> None:
    """Flatten into ``topology`` the inner topology of each substituted node (module
    docstring); problems of an inner template are added to ``problems``."""
    by_type = substituting(documents, registry)
    if not by_type:
        return
    for name, node in list(topology.nodes.items()):
        document = by_type.get(node.type)
        if document is None:
            continue
        entity = f"node {name}"
        where = Span(document.source, 1, 1)
        if depth >= MAX_DEPTH:
            problems.add(INVALID_TEMPLATE, f"substitution nests deeper than {MAX_DEPTH} "
                         f"templates ({document.source} substitutes {node.type} again)",
                         where, entity)
            return
        mappings = document.data["topology_template"]["substitution_mappings"]
        inputs = _inner_inputs(node, mappings, document)
        inner, found = load_inner(document.path, inputs)
        if inner is None or found:
            # the inner template's files are named from its folder: name them as the
            # outer blueprint does (types/inner.yaml, catalog:web==1.1.0/web.yaml)
            folder = posixpath.dirname(document.source)
            for problem in found.sorted():
                span = problem.span
                if span is not None and folder and not span.source.startswith(
                        (folder + "/", "catalog:", "http:", "https:", "file:", "/")):
                    span = dataclasses.replace(span, source=f"{folder}/{span.source}")
                problems.add(problem.kind, f"substituted by {document.source}: "
                             f"{problem.message}", span,
                             f"{entity}: {problem.entity}" if problem.entity else entity)
            if inner is None and not found:
                problems.add(INVALID_TEMPLATE, f"{document.source} has no topology to "
                             "substitute it", where, entity)
            continue
        for clash in _flatten(topology, name, inner, mappings):
            problems.add(INVALID_TEMPLATE, f"substituted by {document.source}: its {clash} "
                         "has the name of one of the outer template's", where, entity)


def _inner_inputs(node: Node, mappings: t.Mapping[str, t.Any], document: Document
                  ) -> dict[str, t.Any]:
    declared = document.data["topology_template"].get("inputs") or {}
    mapped = mappings.get("properties") or {}
    inputs: dict[str, t.Any] = {}
    for prop, value in node.properties.items():
        target = mapped.get(prop) if isinstance(mapped, dict) else None
        if isinstance(target, list) and len(target) == 1:
            inputs[str(target[0])] = value
        elif target is None and prop in declared:
            inputs[prop] = value
    return inputs


@dataclasses.dataclass(frozen=True)
class _Renaming:
    """The inner nodes' (groups', workflows') names in the outer topology, and the
    inner inputs' values."""

    prefix: str
    names: frozenset[str]
    inputs: t.Mapping[str, t.Any]
    #: the inner template's workflows (renamed where an activity names one)
    workflows: frozenset[str] = frozenset()

    def name(self, inner: str) -> str:
        return f"{self.prefix}{inner}" if inner in self.names else inner

    def names_of(self, value: object) -> t.Any:
        """A list of node or group names, renamed (another value as it is)."""
        return [self.name(str(v)) for v in value] if isinstance(value, list) else value

    def workflow(self, name: object) -> object:
        return f"{self.prefix}{name}" if isinstance(name, str) and name in self.workflows \
            else name

    def activity(self, activity: object) -> object:
        """A workflow step's or a trigger's activity, what it names renamed."""
        if not isinstance(activity, dict) or len(activity) != 1:
            return activity
        ((kind, argument),) = activity.items()
        if kind in ("inline", "delegate"):
            if isinstance(argument, dict):
                return {kind: {**self.value(argument),
                               "workflow": self.workflow(argument.get("workflow"))}}
            return {kind: self.workflow(argument)}
        return {kind: self.value(argument)}

    def group(self, body: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        result = {k: self.value(v) for k, v in body.items()}
        if "members" in body:
            result["members"] = self.names_of(body["members"])
        return result

    def policy(self, body: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        result = {k: self.value(v) for k, v in body.items() if k != "triggers"}
        if "targets" in body:
            result["targets"] = self.names_of(body["targets"])
        triggers = body.get("triggers")
        if isinstance(triggers, dict):
            result["triggers"] = {name: self._trigger(trigger)
                                  for name, trigger in triggers.items()}
        elif "triggers" in body:
            result["triggers"] = triggers
        return result

    def _trigger(self, trigger: object) -> object:
        if not isinstance(trigger, dict):
            return trigger
        result = {k: self.value(v) for k, v in trigger.items()}
        target_filter = trigger.get("target_filter")
        if isinstance(target_filter, dict) and isinstance(target_filter.get("node"), str):
            result["target_filter"] = {**result["target_filter"],
                                       "node": self.name(target_filter["node"])}
        action = trigger.get("action")
        if isinstance(action, list):
            result["action"] = [self.activity(a) for a in action]
        return result

    def workflow_body(self, body: object) -> object:
        if not isinstance(body, dict):
            return body
        result = {k: self.value(v) for k, v in body.items() if k not in ("steps",)}
        preconditions = body.get("preconditions")
        if isinstance(preconditions, list):
            result["preconditions"] = [
                {**self.value(p), "target": self.name(str(p["target"]))}
                if isinstance(p, dict) and "target" in p else p for p in preconditions]
        steps = body.get("steps")
        if isinstance(steps, dict):
            result["steps"] = {name: self._step(step) for name, step in steps.items()}
        elif "steps" in body:
            result["steps"] = steps
        return result

    def _step(self, step: object) -> object:
        if not isinstance(step, dict):
            return step
        result = {k: self.value(v) for k, v in step.items()}
        if isinstance(step.get("target"), str):
            result["target"] = self.name(step["target"])
        if isinstance(step.get("activities"), list):
            result["activities"] = [self.activity(a) for a in step["activities"]]
        return result

    def value(self, value: t.Any) -> t.Any:
        """``value`` with inner node names renamed and get_input replaced."""
        if isinstance(value, dict):
            if len(value) == 1:
                key, argument = next(iter(value.items()))
                if key == "get_input":
                    return self._input(argument, value)
                if key in _NAMING_FUNCTIONS and isinstance(argument, list) and argument:
                    return {key: [self.name(str(argument[0])) if isinstance(argument[0], str)
                                  else argument[0], *(self.value(a) for a in argument[1:])]}
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def _input(self, argument: t.Any, written: t.Any) -> t.Any:
        path = argument if isinstance(argument, list) else [argument]
        if not path or path[0] not in self.inputs:
            return written
        found = self.inputs[path[0]]
        for step in path[1:]:
            found = found[step] if isinstance(found, (dict, list)) else None
        return found

    def operation(self, op: Operation) -> Operation:
        inputs = {k: self.value(v) for k, v in op.inputs.items()}
        if op.builtin == BLOCK_UNTIL_RUNNING and isinstance(inputs.get("target"), str):
            inputs["target"] = self.name(inputs["target"])
        return dataclasses.replace(op, inputs=inputs)

    def requirement(self, requirement: Requirement) -> Requirement:
        return dataclasses.replace(
            requirement, target=self.name(requirement.target),
            properties={k: self.value(v) for k, v in requirement.properties.items()},
            operations={k: self.operation(op) for k, op in requirement.operations.items()})

    def node(self, node: Node) -> Node:
        return dataclasses.replace(
            node, name=self.name(node.name),
            properties={k: self.value(v) for k, v in node.properties.items()},
            attributes={k: self.value(v) for k, v in node.attributes.items()},
            requirements=[self.requirement(r) for r in node.requirements],
            capabilities={k: self.value(v) for k, v in node.capabilities.items()},
            interfaces={iface: {op_name: self.operation(op) for op_name, op in ops.items()}
                        for iface, ops in node.interfaces.items()})


def _pair(value: object) -> tuple[str, str] | None:
    if isinstance(value, list) and len(value) == 2:
        return str(value[0]), str(value[1])
    return None


def _flatten(topology: Topology, name: str, inner: Topology,
             mappings: t.Mapping[str, t.Any]) -> list[str]:
    """Compose ``inner`` into ``topology`` in place of node ``name``; the inner
    groups, policies and workflows whose new names the outer template already
    has (left out)."""
    outer = topology.nodes[name]
    renaming = _Renaming(f"{name}.", frozenset(inner.nodes) | frozenset(inner.groups),
                         inner.inputs, frozenset(inner.workflows))
    nodes = {renaming.name(n): renaming.node(node) for n, node in inner.nodes.items()}
    clashes = _carry(topology, renaming, inner)
    kept: list[Requirement] = []
    exported = mappings.get("requirements") or {}
    for requirement in outer.requirements:
        pair = _pair(exported.get(requirement.name)) if isinstance(exported, dict) else None
        if pair is not None and renaming.name(pair[0]) in nodes:
            nodes[renaming.name(pair[0])].requirements.append(
                dataclasses.replace(requirement, name=pair[1]))
        else:
            kept.append(requirement)
    capabilities = mappings.get("capabilities") or {}
    for other in topology.nodes.values():
        for index, requirement in enumerate(other.requirements):
            pair = _pair(capabilities.get(requirement.capability)) \
                if requirement.target == name and isinstance(capabilities, dict) else None
            if pair is not None and renaming.name(pair[0]) in nodes:
                other.requirements[index] = dataclasses.replace(
                    requirement, target=renaming.name(pair[0]), capability=pair[1])
    attributes = {out: renaming.value(body.get("value") if isinstance(body, dict) else body)
                  for out, body in inner.outputs.items()}
    for attribute, target in (mappings.get("attributes") or {}).items():
        if isinstance(target, list) and len(target) == 1 and target[0] in attributes:
            attributes[str(attribute)] = attributes[str(target[0])]
        elif (pair := _pair(target)) is not None:
            attributes[str(attribute)] = {"get_attribute": [renaming.name(pair[0]), pair[1]]}
    waits = [Requirement(f"substitution:{inner_name}", inner_name, "feature", REQUIRES_RUNNING,
                         [REQUIRES_RUNNING, "tosca.relationships.DependsOn",
                          "tosca.relationships.Root"])
             for inner_name in nodes]
    topology.nodes[name] = dataclasses.replace(
        outer, requirements=kept + waits, attributes={**outer.attributes, **attributes})
    # the inner nodes go before the outer one: document order, as the outer waits
    rebuilt: dict[str, Node] = {}
    for key, node in topology.nodes.items():
        if key == name:
            rebuilt.update(nodes)
        rebuilt[key] = node
    topology.nodes.clear()
    topology.nodes.update(rebuilt)
    return clashes


def _carry(topology: Topology, renaming: _Renaming, inner: Topology) -> list[str]:
    """The inner template's groups, policies and workflows, renamed, in ``topology``;
    those whose new name the outer template has already (as ``group NAME``...)."""
    clashes: list[str] = []

    def put(kind: str, into: dict[str, t.Any], name: str, value: t.Any) -> None:
        if name in into:
            clashes.append(f"{kind} {name}")
        else:
            into[name] = value

    prefix = renaming.prefix
    for group, body in inner.groups.items():
        put("group", topology.groups, renaming.name(group), renaming.group(body))
    for policy, body in inner.policies.items():
        put("policy", topology.policies, f"{prefix}{policy}", renaming.policy(body))
    for flow, body in inner.workflows.items():
        put("workflow", topology.workflows, f"{prefix}{flow}", renaming.workflow_body(body))
    for flow, external in inner.external_workflows.items():
        topology.external_workflows.setdefault(f"{prefix}{flow}", dataclasses.replace(
            external, operation=renaming.operation(external.operation)))
    return clashes
