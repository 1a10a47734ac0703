"""Checks of the topology template's sections besides nodes: groups, policies
(Scaling sets instance counts), outputs, substitution mappings and workflows.
"""

from __future__ import annotations

import graphlib
import typing as t

from laguna.frontends.tosca import conditions, initializers, triggers
from laguna.frontends.tosca.definitions import CheckerBase, written
from laguna.frontends.tosca.initializers import AMP_INITIALIZER
from laguna.frontends.tosca.grammar import ACTIVITIES, NODE_STATES, OPERATION_HOSTS
from laguna.frontends.tosca.model import Node
from laguna.frontends.tosca.problems import (
    BAD_FUNCTION,
    CYCLE,
    INVALID_TEMPLATE,
    MISSING_REQUIRED,
    TYPE_MISMATCH,
    UNKNOWN_TYPE,
    UNRESOLVED_REQUIREMENT,
)

#: the declarative workflows a step may ``delegate`` an instance to
DELEGATED = ("deploy", "undeploy")


class SectionChecks(CheckerBase):
    """Groups, policies, outputs, substitution mappings and workflows."""

    def _groups(self, groups: object, data: t.Mapping[str, t.Any]) -> dict[str, dict[str, t.Any]]:
        result: dict[str, dict[str, t.Any]] = {}
        if groups is None:
            return result
        items = self._named_items(groups, data, "groups", "group")
        for name, body, holder in items:
            entity = f"group {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "a group is a map", holder, name, entity)
                continue
            self._keys(body, "group", entity)
            type_name = str(body.get("type") or "")
            if self.registry.resolve("group_types", type_name) is None:
                self.add(UNKNOWN_TYPE if type_name else MISSING_REQUIRED,
                         f"unknown group type {type_name!r}" if type_name
                         else "a group needs a type", body, "type", entity)
                continue
            members = body.get("members") or []
            allowed = self.registry.chain("group_types", type_name)
            member_types = [m for d in allowed for m in (d.data.get("members") or [])]
            for member in members:
                if member not in self.templates:
                    self.add(UNRESOLVED_REQUIREMENT,
                             f"member {member!r} is not a node template", body, "members",
                             entity)
                elif member_types and member in self.node_types and not any(
                        self.registry.derives("node_types", self.node_types[member], m)
                        for m in member_types):
                    self.add(TYPE_MISMATCH, f"member {member!r} is not one of "
                             f"{', '.join(member_types)}", body, "members", entity)
            # AMP's initializer group carries AMP configuration (brooklyn.policies,
            # location...) that no TOSCA type declares
            properties = self._assign(body.get("properties"), self.registry.definitions(
                "group_types", type_name, "properties"), body, "properties", entity,
                strict=not self.registry.derives("group_types", type_name, AMP_INITIALIZER))
            full = self.registry.full_name("group_types", type_name)
            if self.registry.derives("group_types", full, AMP_INITIALIZER):
                given = body.get("properties")
                for kind, why, holder, key in initializers.check(
                        given if isinstance(given, dict) else {}, self.templates):
                    self.add(kind, why, holder, key, entity)
            result[str(name)] = {"type": full, "members": list(members),
                                 "properties": properties}
        return result

    def _policies(self, policies: object, data: t.Mapping[str, t.Any],
                  nodes: dict[str, Node]) -> dict[str, dict[str, t.Any]]:
        result: dict[str, dict[str, t.Any]] = {}
        if policies is None:
            return result
        items = self._named_items(policies, data, "policies", "policy")
        for name, body, holder in items:
            entity = f"policy {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "a policy is a map", holder, name, entity)
                continue
            self._keys(body, "policy", entity)
            type_name = str(body.get("type") or "")
            if self.registry.resolve("policy_types", type_name) is None:
                self.add(UNKNOWN_TYPE if type_name else MISSING_REQUIRED,
                         f"unknown policy type {type_name!r}" if type_name
                         else "a policy needs a type", body, "type", entity)
                continue
            defs = self.registry.definitions("policy_types", type_name, "properties")
            # a policy type that declares no properties (Scaling) takes any
            properties = self._assign(body.get("properties"), defs, body, "properties",
                                      entity, strict=bool(defs))
            targets = body.get("targets") or []
            for target in targets:
                if not self._is_target(target, data):
                    self.add(UNRESOLVED_REQUIREMENT, f"target {target!r} is not a node template "
                             "or group", body, "targets", entity)
            flows = data.get("workflows")
            for why, where, key in triggers.problems(
                    body.get("triggers"), [str(n) for n in targets], nodes,
                    list(flows) if isinstance(flows, dict) else []):
                self.add(INVALID_TEMPLATE, why, where, key, entity)
            full = self.registry.full_name("policy_types", type_name)
            result[str(name)] = {"type": full, "targets": list(targets),
                                 "properties": properties,
                                 "triggers": dict(body.get("triggers") or {})}
            if self.registry.derives("policy_types", full, "tosca.policies.Scaling"):
                count = _instances(properties)
                for kind, why in [] if count is None or isinstance(count, int) else \
                        [(TYPE_MISMATCH, "the number of instances is not an integer")]:
                    self.add(kind, why, body, "properties", entity)
                for target in targets:
                    if target not in nodes:
                        continue
                    # a policy that gives no count leaves it to the target's
                    # Scalable capability (TOSCA 1.3 5.5.10: "the starting number
                    # of instances a TOSCA orchestrator should attempt to allocate")
                    own = count if count is not None else _scalable(nodes[target])
                    if isinstance(own, int):
                        nodes[target].instances = own
        return result

    def _outputs(self, outputs: object, data: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        result: dict[str, t.Any] = {}
        if outputs is None:
            return result
        if not isinstance(outputs, dict):
            self.add(INVALID_TEMPLATE, "outputs is a map", data, "outputs", "outputs")
            return result
        for name, body in outputs.items():
            entity = f"output {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "an output is a map with a value", outputs, name,
                         entity)
                continue
            self._keys(body, "parameter", entity)
            if "value" not in body:
                self.add(MISSING_REQUIRED, "an output needs a value", outputs, name, entity)
                continue
            type_name = body.get("type")
            if type_name is not None and not self._known_data_type(type_name):
                self.add(UNKNOWN_TYPE, self._type_problem(type_name), body, "type", entity)
            self._functions(body["value"], None, body, "value", entity)
            value = written(body, "value", body["value"])
            result[str(name)] = {"value": value, "type": type_name}
        return result

    def _substitution(self, mappings: object, data: t.Mapping[str, t.Any]) -> None:
        if mappings is None:
            return
        entity = "substitution_mappings"
        if not isinstance(mappings, dict):
            self.add(INVALID_TEMPLATE, "substitution_mappings is a map", data, entity, entity)
            return
        self._keys(mappings, "substitution_mappings", entity)
        node_type = mappings.get("node_type")
        if node_type is None:
            self.add(MISSING_REQUIRED, "substitution_mappings needs a node_type", data, entity,
                     entity)
            return
        if self.registry.resolve("node_types", node_type) is None:
            self.add(UNKNOWN_TYPE, f"unknown node type {node_type!r}", mappings, "node_type",
                     entity)
            return
        caps = self.registry.definitions("node_types", node_type, "capabilities")
        reqs = self.registry.requirements(node_type)
        props = self.registry.definitions("node_types", node_type, "properties")
        singular = {"capabilities": "capability", "requirements": "requirement",
                    "properties": "property"}
        for section, known in (("capabilities", caps), ("requirements", reqs),
                               ("properties", props)):
            given = mappings.get(section) or {}
            if not isinstance(given, dict):
                continue
            for key, target in given.items():
                if key not in known:
                    self.add(INVALID_TEMPLATE, f"{node_type} has no {singular[section]} {key!r}",
                             given, key, entity)
                    continue
                if section == "properties":
                    if isinstance(target, list) and target and target[0] not in self.input_defs:
                        self.add(BAD_FUNCTION, f"property {key} maps to unknown input "
                                 f"{target[0]!r}", given, key, entity)
                    continue
                if not isinstance(target, list) or len(target) != 2:
                    self.add(INVALID_TEMPLATE, f"{singular[section]} {key} maps to [node, name]",
                             given, key, entity)
                elif target[0] not in self.templates:
                    self.add(UNRESOLVED_REQUIREMENT, f"{singular[section]} {key} maps to unknown "
                             f"node {target[0]!r}", given, key, entity)

    def _workflows(self, workflows: object, data: t.Mapping[str, t.Any],
                   nodes: dict[str, Node]) -> dict[str, t.Any]:
        if workflows is None:
            return {}
        if not isinstance(workflows, dict):
            self.add(INVALID_TEMPLATE, "workflows is a map", data, "workflows", "workflows")
            return {}
        inlined: dict[str, set[str]] = {}
        for name, body in workflows.items():
            entity = f"workflow {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "a workflow is a map", workflows, name, entity)
                continue
            self._keys(body, "workflow", entity)
            self._check_parameters(body.get("inputs"), body, entity)
            self._preconditions(body, data, entity)
            self._implementation(body, entity)
            self._workflow_outputs(body, entity)
            steps = body.get("steps") or {}
            if not isinstance(steps, dict):
                self.add(INVALID_TEMPLATE, "steps is a map", body, "steps", entity)
                continue
            graph: dict[str, set[str]] = {}
            # get_input in a step sees the workflow's inputs besides the topology's
            topology_inputs = self.input_defs
            own = body.get("inputs")
            self.input_defs = {**topology_inputs, **(own if isinstance(own, dict) else {})}
            for step_name, step in steps.items():
                where = f"{entity}: step {step_name}"
                if not isinstance(step, dict):
                    self.add(INVALID_TEMPLATE, "a step is a map", steps, step_name, where)
                    continue
                self._keys(step, "step", where)
                target = step.get("target")
                if target is None:
                    self.add(MISSING_REQUIRED, "a step needs a target", steps, step_name, where)
                elif not self._is_target(target, data):
                    self.add(UNRESOLVED_REQUIREMENT, f"unknown target {target!r}", step,
                             "target", where)
                relationship = step.get("target_relationship")
                self._operation_host(step, where)
                node = nodes.get(str(target))
                if relationship is not None and node is not None and not any(
                        r.name == relationship for r in node.requirements):
                    self.add(UNRESOLVED_REQUIREMENT, f"target_relationship: {target} has no "
                             f"requirement {relationship!r}", step, "target_relationship",
                             where)
                for why in [] if step.get("filter") is None else \
                        conditions.shape_problems(step.get("filter")):
                    self.add(INVALID_TEMPLATE, f"filter: {why}", step, "filter", where)
                for branch in ("on_success", "on_failure"):
                    followers = step.get(branch) or []
                    if not isinstance(followers, list):
                        self.add(INVALID_TEMPLATE, f"{branch} is a list of step names", step,
                                 branch, where)
                        continue
                    for follower in followers:
                        if follower not in steps:
                            self.add(INVALID_TEMPLATE, f"unknown step {follower!r}", step,
                                     branch, where)
                        else:
                            graph.setdefault(str(follower), set()).add(str(step_name))
                for activity in step.get("activities") or []:
                    inline = self._activity(activity, step, target, nodes, workflows, where)
                    if inline is not None:
                        inlined.setdefault(str(name), set()).add(inline)
            self.input_defs = topology_inputs
            self._acyclic(graph, body, "steps", entity, "steps")
        self._acyclic(inlined, data, "workflows", "workflows", "workflows inline")
        return dict(workflows)

    def _implementation(self, body: t.Mapping[str, t.Any], entity: str) -> None:
        """An external workflow definition: its files exist, and (TOSCA 1.3) the
        workflow has no steps besides."""
        implementation = body.get("implementation")
        if implementation is None:
            return
        if body.get("steps"):
            self.add(INVALID_TEMPLATE, "a workflow has steps or an implementation, not both",
                     body, "implementation", entity)
        operation = implementation if isinstance(implementation, str) else \
            {"implementation": implementation}
        self._check_operation(operation, body, "implementation", entity,
                              self.main.path.parent, None)

    def _workflow_outputs(self, body: t.Mapping[str, t.Any], entity: str) -> None:
        """Workflow outputs map each output onto an attribute: ``[node template,
        attribute]``."""
        outputs = body.get("outputs")
        if outputs is None:
            return
        if not isinstance(outputs, dict):
            self.add(INVALID_TEMPLATE, "outputs is a map of attribute mappings", body,
                     "outputs", entity)
            return
        for name, mapping in outputs.items():
            if not isinstance(mapping, list) or len(mapping) != 2 or \
                    not all(isinstance(part, str) for part in mapping):
                self.add(INVALID_TEMPLATE, f"output {name} maps to [node template, "
                         "attribute]", outputs, name, entity)
            elif mapping[0] not in self.templates:
                self.add(UNRESOLVED_REQUIREMENT, f"output {name} maps to unknown node "
                         f"template {mapping[0]!r}", outputs, name, entity)

    def _operation_host(self, step: t.Mapping[str, t.Any], where: str) -> None:
        """``operation_host`` is one of TOSCA's five, and SOURCE or TARGET name an end of
        the step's relationship."""
        host = step.get("operation_host")
        if host is None:
            return
        if host not in OPERATION_HOSTS:
            self.add(INVALID_TEMPLATE, f"operation_host: {host!r} is not one of "
                     f"{', '.join(OPERATION_HOSTS)}", step, "operation_host", where)
        elif host in ("SOURCE", "TARGET") and step.get("target_relationship") is None:
            self.add(INVALID_TEMPLATE, f"operation_host: {host} names an end of a "
                     "relationship, and the step has no target_relationship", step,
                     "operation_host", where)

    def _is_target(self, target: object, data: t.Mapping[str, t.Any]) -> bool:
        return target in self.templates or target in group_names(data.get("groups"))

    def _named_items(self, section: object, data: t.Mapping[str, t.Any], key: str,
                     what: str) -> list[tuple[object, object, object]]:
        """The entries of ``groups`` or ``policies`` as (name, body, holder): TOSCA 1.3
        writes policies as a list of single-key maps and groups as a map, and the seed
        writes groups as a list too (``groups: - add_brooklyn_types: ...``); both take
        either form."""
        if isinstance(section, dict):
            return [(name, body, section) for name, body in section.items()]
        if not isinstance(section, list):
            self.add(INVALID_TEMPLATE, f"{key} is a map or a list of single-key maps", data,
                     key, key)
            return []
        items: list[tuple[object, object, object]] = []
        for item in section:
            if isinstance(item, dict) and len(item) == 1:
                ((name, body),) = item.items()
                items.append((name, body, item))
            else:
                self.add(INVALID_TEMPLATE, f"a {what} is a map of one name", item, None, key)
        return items

    def _preconditions(self, body: t.Mapping[str, t.Any], data: t.Mapping[str, t.Any],
                       entity: str) -> None:
        preconditions = body.get("preconditions")
        if preconditions is None:
            return
        if not isinstance(preconditions, list):
            self.add(INVALID_TEMPLATE, "preconditions is a list", body, "preconditions", entity)
            return
        for precondition in preconditions:
            if not isinstance(precondition, dict):
                self.add(INVALID_TEMPLATE, "a precondition is a map with a target and a "
                         "condition", body, "preconditions", entity)
                continue
            self._keys(precondition, "precondition", entity)
            target = precondition.get("target")
            if target is None:
                self.add(MISSING_REQUIRED, "a precondition needs a target", body,
                         "preconditions", entity)
            elif not self._is_target(target, data):
                self.add(UNRESOLVED_REQUIREMENT, f"precondition: unknown target {target!r}",
                         precondition, "target", entity)
            for why in conditions.shape_problems(precondition.get("condition") or []):
                self.add(INVALID_TEMPLATE, f"precondition: {why}", precondition, "condition",
                         entity)

    def _activity(self, activity: object, step: t.Mapping[str, t.Any], target: object,
                  nodes: dict[str, Node], workflows: t.Mapping[str, t.Any],
                  where: str) -> str | None:
        """Check one activity; the workflow it inlines, if any."""
        if not isinstance(activity, dict) or len(activity) != 1 or \
                next(iter(activity)) not in ACTIVITIES:
            self.add(INVALID_TEMPLATE, f"an activity is one of {', '.join(ACTIVITIES)}", step,
                     "activities", where)
            return None
        ((kind, argument),) = activity.items()
        named = argument.get("workflow") if isinstance(argument, dict) and kind in (
            "inline", "delegate") else argument
        if kind == "call_operation":
            operation = argument.get("operation") if isinstance(argument, dict) else argument
            node = nodes.get(str(target))
            relationship = step.get("target_relationship")
            if node is not None and relationship is None and \
                    node.operation(str(operation)) is None:
                self.add(INVALID_TEMPLATE, f"call_operation: {target} has no operation "
                         f"{operation}", step, "activities", where)
            elif node is not None and relationship is not None and (matching := [
                    r for r in node.requirements if r.name == relationship]) and not any(
                    r.operation(str(operation)) for r in matching):
                self.add(INVALID_TEMPLATE, f"call_operation: relationship {relationship} of "
                         f"{target} has no operation {operation}", step, "activities", where)
            if isinstance(argument, dict):
                self._functions(argument.get("inputs"), str(target), argument, "inputs", where)
        elif kind == "inline":
            if not isinstance(named, str) or named not in workflows:
                self.add(INVALID_TEMPLATE, f"inline: unknown workflow {named!r}", step,
                         "activities", where)
                return None
            return named
        elif kind == "delegate" and named not in DELEGATED:
            self.add(INVALID_TEMPLATE, f"delegate: {named!r} is not a declarative workflow "
                     f"({', '.join(DELEGATED)})", step, "activities", where)
        elif kind == "set_state" and argument not in NODE_STATES:
            self.add(INVALID_TEMPLATE, f"set_state: {argument!r} is not a node state", step,
                     "activities", where)
        return None

    def _acyclic(self, graph: dict[str, set[str]], data: object, key: str, entity: str,
                 what: str) -> None:
        try:
            graphlib.TopologicalSorter(graph).prepare()
        except graphlib.CycleError as error:
            loop = " -> ".join(reversed(error.args[1]))
            self.add(CYCLE, f"{what} form a cycle: {loop}", data, key, entity)

    # -- functions -------------------------------------------------------------------------


def group_names(groups: object) -> list[str]:
    """The names of the groups of a topology, in either form."""
    if isinstance(groups, dict):
        return [str(name) for name in groups]
    if isinstance(groups, list):
        return [str(name) for item in groups if isinstance(item, dict) and len(item) == 1
                for name in item]
    return []


def _instances(properties: t.Mapping[str, t.Any]) -> object:
    """The instance count a Scaling policy asks for (TOSCA's or AMP's keynames),
    None when it gives none."""
    for key in ("default_instances", "min_instances", "minPoolSize"):
        if key in properties:
            return properties[key]
    return None


def _scalable(node: Node) -> object:
    """The instance count of a node's Scalable capability: default_instances, else
    min_instances (whose default is 1)."""
    for capability in node.capabilities.values():
        if "tosca.capabilities.Scalable" in capability["types"]:
            found = _instances(capability["properties"])
            return 1 if found is None else found
    return 1
