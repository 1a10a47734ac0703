"""Validation of a whole blueprint: every file, every type, the topology
template and its functions, with every problem collected; then the
:class:`~.model.Topology` the runtime deploys.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t
from pathlib import Path

from laguna.frontends.tosca import blocking, clusters, dsl, filters, locations, values
from laguna.frontends.tosca.copies import apply_copies
from laguna.frontends.tosca.definitions import (
    IMPLICIT_INTERFACES,
    fixed_values,
    param_values,
    written,
)
from laguna.frontends.tosca.csar import CatalogImports
from laguna.frontends.tosca.documents import CsarError, load, locate
from laguna.frontends.tosca.grammar import TYPE_KINDS
from laguna.frontends.tosca.initializers import AMP_INITIALIZER, initializer_policies
from laguna.frontends.tosca.remote import Fetcher
from laguna.frontends.tosca.model import (
    SHELL_SCRIPT,
    ExternalWorkflow,
    Node,
    Operation,
    Requirement,
    Topology,
)
from laguna.frontends.tosca.problems import (
    CSAR_INVALID,
    CYCLE,
    INVALID_TEMPLATE,
    MISSING_REQUIRED,
    UNKNOWN_TYPE,
    UNRESOLVED_REQUIREMENT,
    Problems,
)
from laguna.frontends.tosca.sections import SectionChecks
from laguna.frontends.tosca.substitution import compose
from laguna.frontends.tosca.types import (
    TypeDef,
    inputs_of,
    operations,
    refined_operation,
    span_of,
)
from laguna.source import Span
from laguna.yamlio import YMap

STANDARD = "tosca.interfaces.node.lifecycle.Standard"
CONFIGURE = "tosca.interfaces.relationship.Configure"
HOSTED_ON = "tosca.relationships.HostedOn"



def load_topology(path: Path, inputs: t.Mapping[str, t.Any] | None = None,
                  problems: Problems | None = None, fetcher: Fetcher | None = None,
                  confined: bool = False, catalog: CatalogImports | None = None,
                  depth: int = 0) -> tuple[Topology | None, Problems]:
    """Validate the blueprint at ``path`` with ``inputs``; the topology is None when
    any problem was found. Files named by URL come through ``fetcher`` (none: such
    a file is a problem), ``catalog:NAME`` imports from ``catalog``; ``confined``:
    no file outside the blueprint's folder. Substituted nodes are composed
    (:mod:`.substitution`; ``depth``: how many substitutions enclose this one)."""
    problems = problems if problems is not None else Problems()
    try:
        location = locate(path)
    except CsarError as exc:
        problems.add(CSAR_INVALID, str(exc), Span(path.name, 1, 1), path.name)
        return None, problems
    except OSError as exc:
        problems.add(CSAR_INVALID, f"cannot read {path.name}: {exc.strerror}",
                     Span(path.name, 1, 1), path.name)
        return None, problems
    if confined:
        location = dataclasses.replace(location, confined=True)
    documents = load(location, problems, fetcher, catalog)
    if not documents:
        return None, problems
    checker = Checker(location, documents, problems, fetcher)
    topology = checker.run(dict(inputs or {}))
    if topology is not None and not problems:
        def inner(entry: Path, values: dict[str, t.Any]) -> tuple[Topology | None, Problems]:
            return load_topology(entry, values, fetcher=fetcher, confined=confined,
                                 catalog=catalog, depth=depth + 1)
        compose(topology, documents, checker.registry, problems, inner, depth)
    return (None if problems else topology), problems


class Checker(SectionChecks):
    """One validation run."""

    def run(self, supplied: dict[str, t.Any]) -> Topology | None:
        self._translate_dsl()
        for document in self.documents:
            self._check_header(document)
            self.registry.add(document)
        self.registry.check_types()
        for kind in TYPE_KINDS:
            for definition in list(self.registry.types[kind].values()):
                if not definition.builtin:
                    self._check_type(definition)
        topology_data = self.main.data.get("topology_template")
        if topology_data is None:
            return None if self.problems else self._empty()
        if not isinstance(topology_data, dict):
            self.add(INVALID_TEMPLATE, "topology_template is a map", self.main.data,
                     "topology_template", "topology_template")
            return None
        self._keys(topology_data, "topology_template", "topology_template")
        return self._topology(topology_data, supplied)

    def _translate_dsl(self) -> None:
        """AMP's ``$brooklyn:`` expressions become the TOSCA functions they stand for
        (dsl.py), in every document, before anything reads them."""
        topology = self.main.data.get("topology_template")
        templates = topology.get("node_templates") if isinstance(topology, dict) else None
        nodes = [str(n) for n in templates] if isinstance(templates, dict) else []
        found: dsl.Found = []
        for document in self.documents:
            dsl.translate(document.data, nodes, found)
        for kind, message, span, entity in found:
            self.problems.add(kind, message, span or self.main.data.span, entity)

    def _empty(self) -> Topology:
        return Topology(self._name(), self.location.root, self.location.entry, {}, {}, {}, {},
                        {}, {}, None, csar=self.location.csar)

    def _name(self) -> str:
        metadata = self.main.data.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("template_name"), str):
            return str(metadata["template_name"])
        return self.location.name or self.location.entry.stem

    def _topology(self, data: t.Mapping[str, t.Any], supplied: dict[str, t.Any]
                  ) -> Topology | None:
        self._inputs(data.get("inputs"), data, supplied)
        templates = data.get("node_templates")
        if templates is None:
            templates = {}
        if not isinstance(templates, dict):
            self.add(INVALID_TEMPLATE, "node_templates is a map", data, "node_templates",
                     "node_templates")
            templates = {}
        self.templates, refused = apply_copies({str(k): v for k, v in templates.items()},
                                               "node", self.add)
        mappings = data.get("substitution_mappings")
        exported = mappings.get("requirements") if isinstance(mappings, dict) else None
        self._substituted = {(str(v[0]), str(v[1])) for v in (exported or {}).values()
                             if isinstance(v, list) and len(v) == 2} \
            if isinstance(exported, dict) else set()
        for name, body in self.templates.items():
            entity = f"node {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "a node template is a map", templates, name, entity)
                continue
            type_name = body.get("type")
            if type_name is None:
                if name not in refused:
                    self.add(MISSING_REQUIRED, "a node template needs a type", templates,
                             name, entity)
            elif self.registry.resolve("node_types", type_name) is None:
                self.add(UNKNOWN_TYPE, f"unknown node type {type_name!r}", body, "type",
                         entity)
            else:
                self.node_types[name] = self.registry.full_name("node_types", type_name)
        self._clusters()
        relationships = data.get("relationship_templates") or {}
        if isinstance(relationships, dict):
            self.relationship_templates, refused = apply_copies(
                {str(k): v for k, v in relationships.items()}, "relationship", self.add)
        nodes: dict[str, Node] = {}
        for name, body in self.templates.items():
            if name in self.node_types:
                node = self._node(name, body, templates)
                if node is not None:
                    nodes[name] = node
        for name, cluster in self.cluster_types.items():
            if name in nodes:
                nodes[name].cluster = cluster
        for name, body in self.relationship_templates.items():
            if name not in refused:
                self._relationship_template(name, body, relationships)
        self._hosting_cycles(nodes, templates)
        groups = self._groups(data.get("groups"), data)
        policies = self._policies(data.get("policies"), data, nodes)
        for kind, message, member, source in locations.assign(groups, nodes,
                                                               AMP_INITIALIZER):
            body = dict((n, b) for n, b, _ in self._named_items(
                data.get("groups"), data, "groups", "group")).get(source)
            self.add(kind, message, body if isinstance(body, dict) else data,
                     "members" if isinstance(body, dict) else "groups", f"node {member}")
        # a cluster's own size wins over a Scaling policy's count (the seed's example
        # gives both: cluster.initial.size 2, minPoolSize 1)
        for name, size in self.cluster_sizes.items():
            if name in nodes:
                nodes[name].instances = size
        for name, group in groups.items():
            for key, policy in initializer_policies(name, group).items():
                if key in policies:
                    self.add(INVALID_TEMPLATE, f"policy {key} of initializer group {name} has "
                             "the name of a policy of the topology", data, "policies",
                             f"group {name}")
                policies[key] = policy
        outputs = self._outputs(data.get("outputs"), data)
        self._substitution(data.get("substitution_mappings"), data)
        workflows = self._workflows(data.get("workflows"), data, nodes)
        if "description" in data and "description" in self.main.data:
            # the seed: "Having description in both places will be treated as a
            # duplication error."
            root = span_of(self.main.data, "description")
            self.add(INVALID_TEMPLATE, "description is given both here and at the root"
                     + (f" (line {root.line})" if root is not None else "")
                     + "; it belongs in one place only", data, "description",
                     "topology_template")
        description = data.get("description") or self.main.data.get("description")
        return Topology(self._name(), self.location.root, self.location.entry, self.inputs,
                        nodes, outputs, groups, policies, workflows,
                        data.get("substitution_mappings"),
                        description=str(description) if description else None,
                        csar=self.location.csar, metadata=self._metadata(),
                        external_workflows=self._external_workflows(workflows))

    def _clusters(self) -> None:
        """Each DynamicCluster with a member spec becomes the node template of its
        members (clusters.py), its size kept for the instance counts."""
        for name, type_name in list(self.node_types.items()):
            if not self.registry.derives("node_types", type_name, clusters.DYNAMIC_CLUSTER):
                continue
            entity = f"node {name}"
            body = self.templates[name]
            member, found = clusters.member_template(name, body)
            given = body.get("properties")
            properties = self._assign(given, self.registry.definitions(
                "node_types", type_name, "properties"), body, "properties", entity)
            size, more = clusters.initial_size(properties.get(clusters.INITIAL_SIZE), given)
            for kind, why, holder, key in [*found, *more]:
                self.add(kind, why, holder, key, entity)
            if size is not None:
                self.cluster_sizes[name] = size
            if member is None:
                continue
            self.templates[name] = member
            del self.node_types[name]
            if self.registry.resolve("node_types", member["type"]) is None:
                self.add(UNKNOWN_TYPE, f"unknown node type {member['type']!r} (the members "
                         f"of {clusters.MEMBER_SPEC})", member, "type", entity)
                continue
            self.node_types[name] = self.registry.full_name("node_types", member["type"])
            self.cluster_types[name] = type_name

    def _external_workflows(self, workflows: t.Mapping[str, t.Any]
                            ) -> dict[str, ExternalWorkflow]:
        """The workflows given by an ``implementation``: the script each runs (relative
        to the service template) and its artifact type."""
        found: dict[str, ExternalWorkflow] = {}
        for name, body in workflows.items():
            implementation = body.get("implementation") if isinstance(body, dict) else None
            if implementation is None:
                continue
            operation = self._operation("workflow", "workflow", str(name),
                                        {"implementation": implementation},
                                        self.main.path.parent, {}, {})
            primary = implementation.get("primary") if isinstance(implementation, dict) \
                else implementation
            given = primary.get("type") if isinstance(primary, dict) else None
            kind = operation.builtin or (
                self.registry.full_name("artifact_types", str(given)) if given
                else self._type_by_extension(operation.primary))
            # AMP's NoOp and BlockUntilRunning have no script: they are no workflow
            shell = operation.primary is not None and (
                kind is None or self.registry.derives("artifact_types", kind, SHELL_SCRIPT))
            found[str(name)] = ExternalWorkflow(operation, kind, shell)
        return found

    def _type_by_extension(self, file: Path | None) -> str | None:
        """The artifact type whose ``file_ext`` lists ``file``'s extension."""
        extension = file.suffix.lstrip(".") if file is not None else ""
        for name, definition in self.registry.types["artifact_types"].items():
            if extension and extension in (definition.data.get("file_ext") or []):
                return name
        return None

    def _metadata(self) -> dict[str, t.Any]:
        metadata = self.main.data.get("metadata")
        if not isinstance(metadata, dict):
            return {}
        for key, message in blocking.setting_problems(metadata):
            self.add(INVALID_TEMPLATE, message, metadata, key, "metadata")
        return dict(metadata)

    def _inputs(self, defs: object, data: t.Mapping[str, t.Any],
                supplied: dict[str, t.Any]) -> None:
        if defs is None:
            defs = {}
        if not isinstance(defs, dict):
            self.add(INVALID_TEMPLATE, "inputs is a map", data, "inputs", "inputs")
            return
        self.input_defs = dict(defs)
        for name, body in defs.items():
            entity = f"input {name}"
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, "an input definition is a map", defs, name, entity)
                continue
            self._check_definition(defs, name, body, "parameter", entity, None)
            if name in supplied:
                value = supplied[name]
                for kind, why in self.registry.check_value(value, body):
                    self.add(kind, f"the value given: {why}", defs, name, entity)
                self.inputs[str(name)] = self.registry.completed(value, body)
            elif "default" in body:
                self.inputs[str(name)] = self.registry.completed(
                    written(body, "default", body["default"]), body)
            elif "value" in body:
                self.inputs[str(name)] = body["value"]
            elif body.get("required", True) is not False:
                self.add(MISSING_REQUIRED, "a value is required (no default)", defs, name,
                         entity)
        for name in supplied:
            if name not in defs:
                declared = ", ".join(sorted(str(n) for n in defs)) or "none"
                self.add(INVALID_TEMPLATE, f"input {name!r} is given but not declared "
                         f"(its inputs: {declared}; --set also takes the settings "
                         f"{' and '.join(blocking.SETTING_KEYS)})", data,
                         "inputs" if "inputs" in data else None, f"input {name}")

    def _node(self, name: str, body: t.Mapping[str, t.Any], templates: object) -> Node | None:
        entity = f"node {name}"
        type_name = self.node_types[name]
        self._keys(body, "node_template", entity)
        reg = self.registry
        given, latches = self._latches(body.get("properties"), entity)
        properties = self._assign(given,
                                  reg.definitions("node_types", type_name, "properties"), body,
                                  "properties", entity)
        attributes = self._assign(body.get("attributes"),
                                  reg.definitions("node_types", type_name, "attributes"), body,
                                  "attributes", entity, strict=False)
        capabilities = self._capabilities(name, type_name, body, entity)
        if "node_filter" in body:
            self._own_filter(name, body, entity)
        artifact_defs = reg.definitions("node_types", type_name, "artifacts")
        artifacts: dict[str, Path] = {}
        for art_name, art in artifact_defs.items():
            owner: TypeDef = art["__owner__"]
            if isinstance(art.get("file"), str):
                # its problems are the type's, reported where the type is checked
                found = self._artifact_file(art, owner.folder)
                if isinstance(found, Path):
                    artifacts[art_name] = found
        given_artifacts = body.get("artifacts")
        self.artifact_definitions = {**artifact_defs, **(
            given_artifacts if isinstance(given_artifacts, dict) else {})}
        artifacts.update(self._check_artifacts(given_artifacts, body, entity,
                                                self.main.path.parent))
        interfaces = self._interfaces(name, type_name, body, entity, artifacts)
        requirements = self._requirements(name, type_name, body, entity)
        self.artifact_definitions = {}
        for section in ("properties", "attributes"):
            self._functions(body.get(section), name, body, section, entity)
        types = [d.name for d in reg.chain("node_types", type_name)]
        return Node(name, type_name, types, properties, attributes, requirements,
                    capabilities, interfaces, artifacts, deploy_paths={
                        str(key): str(art["deploy_path"]) for key, art in {
                            **artifact_defs, **(given_artifacts if isinstance(
                                given_artifacts, dict) else {})}.items()
                        if key in artifacts and isinstance(art, dict)
                        and isinstance(art.get("deploy_path"), str)}, latches=latches)

    def _latches(self, given: object, entity: str) -> tuple[object, dict[str, t.Any]]:
        """A node's property assignments without AMP's ``latch.<phase>`` entries, and
        those latches by phase (their functions are checked with the properties)."""
        if not isinstance(given, dict) or not any(
                str(key).startswith(blocking.LATCH_PREFIX) for key in given):
            return given, {}
        kept = YMap()
        kept.span = getattr(given, "span", None) or self.main.data.span
        kept.key_spans = dict(getattr(given, "key_spans", {}))
        kept.number_texts = dict(getattr(given, "number_texts", {}))
        latches: dict[str, t.Any] = {}
        for key, value in given.items():
            if not str(key).startswith(blocking.LATCH_PREFIX):
                kept[key] = value
                continue
            phase = str(key)[len(blocking.LATCH_PREFIX):]
            if phase not in blocking.LATCHES:
                self.add(INVALID_TEMPLATE, f"unknown latch {key!r} (laguna's latches: "
                         f"{', '.join(blocking.LATCH_PREFIX + p for p in blocking.LATCHES)})",
                         given, key, entity)
                continue
            latches[phase] = value
        return kept, latches

    def _capabilities(self, name: str, type_name: str, body: t.Mapping[str, t.Any],
                      entity: str) -> dict[str, dict[str, t.Any]]:
        defs = self.registry.definitions("node_types", type_name, "capabilities")
        assigned = body.get("capabilities") or {}
        if not isinstance(assigned, dict):
            self.add(INVALID_TEMPLATE, "capabilities is a map", body, "capabilities", entity)
            assigned = {}
        result: dict[str, dict[str, t.Any]] = {}
        for cap_name, definition in defs.items():
            cap_type = str(definition.get("type"))
            given = assigned.get(cap_name) or {}
            if not isinstance(given, dict):
                self.add(INVALID_TEMPLATE, f"capability {cap_name} is a map", assigned,
                         cap_name, entity)
                given = {}
            self.registry.check_keys(given, "capability_assignment",
                                     f"{entity}: capability {cap_name}", "")
            prop_defs = self._capability_property_defs(definition)
            props = self._assign(given.get("properties"), prop_defs, given, "properties",
                                 f"{entity}: capability {cap_name}")
            attrs = self._assign(given.get("attributes"), self.registry.definitions(
                "capability_types", cap_type, "attributes"), given, "attributes",
                f"{entity}: capability {cap_name}", strict=False)
            result[cap_name] = {"type": self.registry.full_name("capability_types", cap_type),
                                "types": [d.name for d in self.registry.chain(
                                    "capability_types", cap_type)],
                                "properties": props, "attributes": attrs}
        for cap_name in assigned:
            if cap_name not in defs:
                self.add(INVALID_TEMPLATE, f"unknown capability {cap_name!r}", assigned,
                         cap_name, entity)
        return result

    def _own_filter(self, name: str, body: t.Mapping[str, t.Any], entity: str) -> None:
        """A node template's own node_filter describes the node an orchestrator with
        an inventory would select; laguna has none (the template is deployed as
        written), so the filter is checked for its shape and for naming what the
        template's type declares."""
        node_filter = filters.parse(body["node_filter"], body, "node_filter", entity,
                                    self.add)
        if node_filter is None:
            return
        for missing in filters.undeclared(node_filter, TemplateView(self, name)):
            self.add(INVALID_TEMPLATE, f"node_filter names {missing}, which type "
                     f"{self.node_types[name]} does not declare", body, "node_filter", entity)

    def _capability_property_defs(self, definition: t.Mapping[str, t.Any]
                                  ) -> dict[str, dict[str, t.Any]]:
        """The property definitions of a capability: its type's, refined by the
        capability definition's own."""
        cap_type = str(definition.get("type"))
        prop_defs = self.registry.definitions("capability_types", cap_type, "properties")
        for key, prop in (definition.get("properties") or {}).items():
            if isinstance(prop, dict):
                prop_defs[str(key)] = {**prop_defs.get(str(key), {}), **prop}
        return prop_defs

    def _interfaces(self, name: str, type_name: str, body: t.Mapping[str, t.Any],
                    entity: str, artifacts: dict[str, Path]) -> dict[str, dict[str, Operation]]:
        defs = self.registry.definitions("node_types", type_name, "interfaces")
        assigned = body.get("interfaces") or {}
        if not isinstance(assigned, dict):
            self.add(INVALID_TEMPLATE, "interfaces is a map", body, "interfaces", entity)
            assigned = {}
        result: dict[str, dict[str, Operation]] = {}
        for iface_name in [*defs, *(k for k in assigned if k not in defs)]:
            definition = defs.get(iface_name)
            given = assigned.get(iface_name)
            if definition is None:
                implicit = IMPLICIT_INTERFACES.get(iface_name)
                if implicit is None:
                    self.add(INVALID_TEMPLATE, f"unknown interface {iface_name!r}", assigned,
                             iface_name, entity)
                    continue
                definition = {"type": implicit, "__owner__": None}
            if given is not None and not isinstance(given, dict):
                self.add(INVALID_TEMPLATE, f"interface {iface_name} is a map", assigned,
                         iface_name, entity)
                continue
            iface_type = self.registry.full_name("interface_types",
                                                 str(definition.get("type")))
            known = self._interface_operations(iface_type) | set(operations(definition))
            type_inputs = param_values(self._type_inputs(iface_type))
            type_inputs.update(param_values(definition.get("inputs")))
            ops: dict[str, Operation] = {}
            owner = definition.get("__owner__")
            type_folder = owner.folder if isinstance(owner, TypeDef) else self.main.path.parent
            for op_name, op in operations(definition).items():
                ops[op_name] = self._operation(iface_name, iface_type, op_name, op,
                                               type_folder, artifacts, type_inputs)
            if given:
                # the template's interface-level inputs come after the type's
                # operation-level ones: an assignment beats a definition's default
                given_inputs = param_values(given.get("inputs"))
                self._check_parameters(given.get("inputs"), given, entity)
                self._functions(given.get("inputs"), name, given, "inputs", entity)
                for op_name, op in operations(given).items():
                    if op_name not in known:
                        self.add(INVALID_TEMPLATE, f"interface {iface_name} has no operation "
                                 f"{op_name!r}", operations(given), op_name, entity)
                        continue
                    self._check_operation(op, given, op_name, f"{entity}: interface "
                                          f"{iface_name}", self.main.path.parent, artifacts)
                    if isinstance(op, dict):
                        self._functions(op.get("inputs"), name, op, "inputs", entity)
                    before = ops.get(op_name)
                    merged = self._operation(iface_name, iface_type, op_name, op,
                                             self.main.path.parent, artifacts, {
                                                 **(before.inputs if before else type_inputs),
                                                 **given_inputs})
                    if before is not None and merged.primary is None and \
                            merged.builtin is None:
                        merged.primary, merged.dependencies = before.primary, before.dependencies
                        merged.builtin = before.builtin
                    ops[op_name] = merged
                for op_name, op in list(ops.items()):
                    if op_name not in operations(given):
                        op.inputs = {**op.inputs, **given_inputs}
            # a fixed value (``value:``) of the type's definitions stays
            fixed = {**fixed_values(self._type_inputs(iface_type)),
                     **fixed_values(definition.get("inputs"))}
            self._fixed_inputs(fixed, given, entity)
            for op_name, op in ops.items():
                op_fixed = {**fixed, **fixed_values(inputs_of(operations(definition).get(
                    op_name)))}
                op.inputs.update(op_fixed)
                self._fixed_inputs(op_fixed, operations(given or {}).get(op_name), entity)
            for op_name, op in ops.items():
                self._check_builtin(name, op, [operations(given or {}).get(op_name), given,
                                               assigned if iface_name in assigned else body],
                                    entity, relationship=False)
            result[iface_name] = ops
        return result

    def _fixed_inputs(self, fixed: dict[str, t.Any], holder: object, entity: str) -> None:
        """The inputs of ``holder`` (a template's interface or operation) that its
        type fixed with ``value``: as for properties, they cannot be assigned."""
        for key in inputs_of(holder):
            if key in fixed and isinstance(holder, dict):
                self.add(INVALID_TEMPLATE, f"input {key} has the fixed value "
                         f"{values._show(fixed[key])}; it cannot be assigned",
                         holder["inputs"], key, entity)

    def _check_builtin(self, node: str, op: Operation, places: list[object], entity: str,
                       relationship: bool) -> None:
        """The static problems of a BlockUntilRunning operation, reported at its
        input when it has it, else at the innermost of ``places`` that is a map."""
        if op.builtin != blocking.BLOCK_UNTIL_RUNNING:
            return
        first = next((p for p in places if isinstance(p, dict)), self.main.data)
        inputs = first.get("inputs")
        def properties(ref: object) -> t.Mapping[str, t.Any]:
            body = self.templates.get(node if ref == "SELF" else str(ref))
            found = body.get("properties") if isinstance(body, dict) else None
            return found if isinstance(found, dict) else {}

        for key, kind, message in blocking.check_block_inputs(
                op.inputs, relationship, self.templates, self.inputs, properties):
            data, at = (inputs, key) if isinstance(inputs, dict) and key in inputs else \
                (first, op.name if op.name in first else None)
            self.add(kind, f"operation {op.interface}.{op.name}: {message}", data, at,
                     entity)

    def _type_inputs(self, iface_type: str) -> object:
        merged: dict[str, t.Any] = {}
        for definition in reversed(self.registry.chain("interface_types", iface_type)):
            own = definition.data.get("inputs")
            if isinstance(own, dict):
                merged.update(own)
        return merged

    def _operation(self, iface: str, iface_type: str, name: str, op: object, folder: Path,
                   artifacts: dict[str, Path], inherited: dict[str, t.Any]) -> Operation:
        primary: Path | None = None
        dependencies: list[Path] = []
        inputs = dict(inherited)
        outputs: dict[str, t.Any] = {}
        implementation: object = op
        if isinstance(op, dict):
            implementation = op.get("implementation")
            inputs.update(param_values(op.get("inputs")))
            raw_outputs = op.get("outputs")
            if isinstance(raw_outputs, dict):
                outputs = dict(raw_outputs)

        def file_of(ref: object) -> Path | None:
            if isinstance(ref, dict):
                ref = ref.get("file")
            if not isinstance(ref, str):
                return None
            if ref in artifacts:
                return artifacts[ref]
            return self._resolve(ref, folder)

        builtin = blocking.builtin_of(self.registry, implementation,
                                      self.artifact_definitions)
        if builtin is not None:
            pass    # AMP's NoOp or BlockUntilRunning: the runtime acts, no script
        elif isinstance(implementation, dict):
            primary = file_of(implementation.get("primary"))
            dependencies = [p for p in map(file_of, implementation.get("dependencies") or [])
                            if p is not None]
        else:
            primary = file_of(implementation)
        return Operation(iface, iface_type, name, primary, dependencies, inputs, outputs,
                         builtin)

    def _requirements(self, name: str, type_name: str, body: t.Mapping[str, t.Any],
                      entity: str) -> list[Requirement]:
        defs = self.registry.requirements(type_name)
        assigned = body.get("requirements") or []
        if not isinstance(assigned, list):
            self.add(INVALID_TEMPLATE, "requirements is a list of single-key maps", body,
                     "requirements", entity)
            assigned = []
        result: list[Requirement] = []
        counts: dict[str, int] = {}
        for item in assigned:
            if not isinstance(item, dict) or len(item) != 1:
                self.add(INVALID_TEMPLATE, "a requirement assignment is a map of one name",
                         item, None, entity)
                continue
            ((req_name, given),) = item.items()
            definition = defs.get(str(req_name))
            if definition is None:
                self.add(INVALID_TEMPLATE, f"unknown requirement {req_name!r} (the type has "
                         f"{', '.join(defs) or 'none'})", item, req_name, entity)
                continue
            counts[str(req_name)] = counts.get(str(req_name), 0) + 1
            if isinstance(given, str):
                given = {"node": given}
            if not isinstance(given, dict):
                self.add(INVALID_TEMPLATE, f"requirement {req_name} is a node name or a map",
                         item, req_name, entity)
                continue
            self.registry.check_keys(given, "requirement_assignment",
                                     f"{entity}: requirement {req_name}", "")
            fulfilled = self._fulfil(name, str(req_name), definition, given, item, entity)
            if fulfilled is not None:
                result.append(fulfilled)
        for req_name, definition in defs.items():
            low, high = _occurrences(definition)
            count = counts.get(req_name, 0)
            relationship = definition.get("relationship")
            rel_type = relationship.get("type") if isinstance(relationship, dict) \
                else relationship
            hosting = isinstance(rel_type, str) and self.registry.derives(
                "relationship_types", rel_type, HOSTED_ON)
            # AMP: a node without a host runs on the deployment's location (this machine)
            exported = (name, req_name) in self._substituted
            # substitution mappings export the requirement: the enclosing topology fills it
            if isinstance(low, int) and count < low and not hosting and not exported:
                self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name} needs at least "
                         f"{low} assignment(s), has {count}", body,
                         "requirements" if "requirements" in body else "type", entity)
            if isinstance(high, int) and count > high:
                self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name} allows at most "
                         f"{high} assignment(s), has {count}", body, "requirements", entity)
        return result

    def _fulfil(self, name: str, req_name: str, definition: dict[str, t.Any],
                given: t.Mapping[str, t.Any], item: object, entity: str) -> Requirement | None:
        reg = self.registry
        spanned = "node" in getattr(given, "key_spans", {})
        where = given if spanned else item
        key = "node" if spanned else req_name
        wanted_node = given.get("node") or definition.get("node")
        wanted_cap = given.get("capability") or definition.get("capability")
        node_filter = self._requirement_filter(given, definition, req_name, entity)
        described = "no node template" + (f" of type {wanted_node}" if wanted_node else "") \
            + f" offers {wanted_cap}"
        target: str | None = None
        if isinstance(wanted_node, str) and wanted_node in self.templates:
            # a template named outright must still be what every declaration of the
            # requirement asks (checked below by _unfit)
            target = wanted_node
        elif wanted_node is None or (isinstance(wanted_node, str)
                                     and reg.resolve("node_types", wanted_node)):
            candidates = [n for n, tp in self.node_types.items()
                          if n != name and (wanted_node is None
                                            or reg.derives("node_types", tp, wanted_node))
                          and self._capability_of(n, wanted_cap) is not None
                          and self._unfit(n, definition) is None]
            if not candidates:
                self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: {described}",
                         where, key, entity)
                return None
            target = self._filtered(candidates, node_filter, req_name, described, given,
                                    where, key, entity)
            if target is None:
                return None
        else:
            self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: unknown node "
                     f"{wanted_node!r}", where, key, entity)
            return None
        if target not in self.node_types:
            return None     # its own problem is reported already
        capability = self._capability_of(target, wanted_cap)
        if capability is None:
            self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: node {target} has no "
                     f"capability {wanted_cap}", where, key, entity)
            return None
        why = self._unfit(target, definition)
        if why is not None:
            self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: node {target} {why}",
                     where, key, entity)
            return None
        if node_filter is not None and wanted_node == target:
            why = filters.failure(node_filter, TemplateView(self, target))
            if why is not None:
                self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: node {target} "
                         f"does not satisfy the node_filter: {why}",
                         *self._filter_place(given, where, key), entity)
                return None
        relationship = given.get("relationship") or definition.get("relationship") or \
            "tosca.relationships.DependsOn"
        properties: dict[str, t.Any] = {}
        interfaces: object = None
        #: the assignment's own properties, with their positions for the problems
        assigned: object = None
        if isinstance(relationship, dict):
            self.registry.check_keys(relationship, "relationship_assignment",
                                     f"{entity}: requirement {req_name}", "")
            interfaces = relationship.get("interfaces")
            assigned = relationship.get("properties")
            properties = dict(assigned) if isinstance(assigned, dict) else {}
            relationship = relationship.get("type") or (
                definition.get("relationship") if isinstance(definition.get("relationship"),
                                                             str) else
                (definition.get("relationship") or {}).get("type")) or \
                "tosca.relationships.DependsOn"
        rel_type = str(relationship)
        template = self.relationship_templates.get(rel_type)
        if isinstance(template, dict):
            properties = {**dict(template.get("properties") or {}), **properties}
            interfaces = interfaces or template.get("interfaces")
            rel_type = str(template.get("type"))
        if reg.resolve("relationship_types", rel_type) is None:
            self.add(UNKNOWN_TYPE, f"requirement {req_name}: unknown relationship "
                     f"{rel_type!r}", given if isinstance(given, dict) else item,
                     "relationship" if isinstance(given, dict) and "relationship" in given
                     else key, entity)
            return None
        rel_types = [d.name for d in reg.chain("relationship_types", rel_type)]
        prop_defs = reg.definitions("relationship_types", rel_type, "properties")
        if not isinstance(template, dict):
            properties = self._assign(assigned if assigned is not None else properties,
                                      prop_defs, given, "properties",
                                      f"{entity}: requirement {req_name}")
        self._functions(properties, name, given, "relationship", entity,
                       relationship=True)
        ops: dict[str, Operation] = {}
        rel_ifaces = reg.definitions("relationship_types", rel_type, "interfaces")
        assigned_ifaces: dict[str, t.Mapping[str, t.Any]] = {}
        if isinstance(interfaces, dict):
            for iface_name, body in interfaces.items():
                if iface_name not in rel_ifaces:
                    self.add(INVALID_TEMPLATE, f"requirement {req_name}: relationship has no "
                             f"interface {iface_name!r}", interfaces, iface_name, entity)
                    continue
                if isinstance(body, dict):
                    assigned_ifaces[str(iface_name)] = body
                    self._check_operations_in(body, iface_name, entity)
                    self._functions(body, name, interfaces, iface_name, entity,
                                    relationship=True)
        for iface_name, body in rel_ifaces.items():
            iface_type = reg.full_name("interface_types", str(body.get("type") or CONFIGURE))
            given_iface = assigned_ifaces.get(iface_name, {})
            type_ops, given_ops = operations(body), operations(given_iface)
            # the same order as a node's: the type's interface-level and operation-level
            # inputs, then the assignment's interface-level and operation-level ones
            type_inputs = {**param_values(self._type_inputs(iface_type)),
                           **param_values(body.get("inputs"))}
            for op_name in [*type_ops, *(n for n in given_ops if n not in type_ops)]:
                own = given_ops.get(op_name)
                op = refined_operation(type_ops.get(op_name), own)
                if isinstance(op, dict):
                    op = {**op, "inputs": inputs_of(own)}
                ops[op_name] = self._operation(
                    iface_name, iface_type, op_name, op, self.main.path.parent, {},
                    {**type_inputs, **param_values(inputs_of(type_ops.get(op_name))),
                     **param_values(given_iface.get("inputs"))})
                ops[op_name].inputs.update({
                    **fixed_values(self._type_inputs(iface_type)),
                    **fixed_values(body.get("inputs")),
                    **fixed_values(inputs_of(type_ops.get(op_name)))})
                self._check_builtin(name, ops[op_name], [
                    own if own is not None else type_ops.get(op_name), given_iface or None,
                    given], entity, relationship=True)
        return Requirement(req_name, target, capability, rel_type, rel_types, properties, ops)

    def _requirement_filter(self, given: t.Mapping[str, t.Any],
                            definition: t.Mapping[str, t.Any], req_name: str, entity: str
                            ) -> filters.NodeFilter | None:
        """The requirement's node filter (the assignment's, else every declaration's
        at once: re-declared requirements intersect); None when there is none or its
        shape is wrong (reported)."""
        if given.get("node_filter") is not None:
            return filters.parse(given["node_filter"], given, "node_filter",
                                 f"{entity}: requirement {req_name}", self.add)
        found: list[filters.NodeFilter] = []
        for declared in definition.get("__chain__") or [definition]:
            if declared.get("node_filter") is not None:
                # the type's own problem: reported where the type is checked
                parsed = filters.parse(declared["node_filter"], declared, "node_filter",
                                       entity, lambda *_: None)
                if parsed is None:
                    return None
                found.append(parsed)
        if not found:
            return None
        return filters.NodeFilter(tuple(p for f in found for p in f.properties),
                                  tuple(c for f in found for c in f.capabilities))

    def _filtered(self, candidates: list[str], node_filter: filters.NodeFilter | None,
                  req_name: str, described: str, given: t.Mapping[str, t.Any],
                  where: object, key: object, entity: str) -> str | None:
        """The first candidate (in document order) that satisfies ``node_filter``."""
        if node_filter is None:
            return candidates[0]
        reasons: list[str] = []
        for candidate in candidates:
            why = filters.failure(node_filter, TemplateView(self, candidate))
            if why is None:
                return candidate
            reasons.append(f"{candidate}: {why}")
        self.add(UNRESOLVED_REQUIREMENT, f"requirement {req_name}: {described} and "
                 f"satisfies the node_filter ({'; '.join(reasons)})",
                 *self._filter_place(given, where, key), entity)
        return None

    @staticmethod
    def _filter_place(given: t.Mapping[str, t.Any], where: object, key: object
                      ) -> tuple[object, object]:
        if "node_filter" in getattr(given, "key_spans", {}):
            return given, "node_filter"
        return where, key

    def _check_operations_in(self, body: t.Mapping[str, t.Any], iface: str,
                             entity: str) -> None:
        for op_name, op in operations(body).items():
            self._check_operation(op, body, op_name, f"{entity}: interface {iface}",
                                  self.main.path.parent, None)

    def _unfit(self, target: str, definition: t.Mapping[str, t.Any]) -> str | None:
        """Why ``target`` cannot fulfil a requirement definition, None when it can.
        Every declaration of the requirement, the type's and its ancestors', applies
        (the seed: re-declared requirements intersect, "all must apply"), and with it
        its ``node`` type (TOSCA 1.3 3.6.3: the type "that contains the capability
        definition that can be used to fulfill the requirement")."""
        type_name = self.node_types[target]
        for declared in definition.get("__chain__") or [definition]:
            node_type = declared.get("node")
            if isinstance(node_type, str) and self.registry.resolve("node_types", node_type) \
                    and not self.registry.derives("node_types", type_name, node_type):
                return f"is a {type_name}, not a {node_type}"
            capability = declared.get("capability")
            if isinstance(capability, str) and self._capability_of(target, capability) is None:
                return f"has no capability {capability}"
        return None

    def _capability_of(self, node: str, wanted: object) -> str | None:
        """The name of ``node``'s capability called ``wanted`` or of type ``wanted``."""
        type_name = self.node_types.get(node)
        if type_name is None:
            return None
        defs = self.registry.definitions("node_types", type_name, "capabilities")
        if wanted is None:
            return "feature" if "feature" in defs else next(iter(defs), None)
        if isinstance(wanted, str) and wanted in defs:
            return wanted
        for cap_name, definition in defs.items():
            if self.registry.derives("capability_types", definition.get("type"), wanted):
                return cap_name
        return None

    def _relationship_template(self, name: str, body: object, section: object) -> None:
        entity = f"relationship {name}"
        if not isinstance(body, dict):
            self.add(INVALID_TEMPLATE, "a relationship template is a map", section, name,
                     entity)
            return
        self._keys(body, "relationship_template", entity)
        type_name = body.get("type")
        if type_name is None:
            self.add(MISSING_REQUIRED, "a relationship template needs a type", section, name,
                     entity)
            return
        if self.registry.resolve("relationship_types", type_name) is None:
            self.add(UNKNOWN_TYPE, f"unknown relationship type {type_name!r}", body, "type",
                     entity)
            return
        self._assign(body.get("properties"), self.registry.definitions(
            "relationship_types", type_name, "properties"), body, "properties", entity)
        self._functions(body.get("properties"), None, body, "properties", entity,
                       relationship=True)

    def _hosting_cycles(self, nodes: dict[str, Node], templates: object) -> None:
        reported: set[str] = set()
        for start in nodes:
            path: list[str] = []
            current: str | None = start
            while current is not None and current in nodes:
                if current in path:
                    loop = path[path.index(current):]
                    if not reported.intersection(loop):
                        reported.update(loop)
                        self.add(CYCLE, "hosted on itself: " + " -> ".join(
                            [*loop, current]), templates, loop[0], f"node {loop[0]}")
                    break
                path.append(current)
                hosts = nodes[current].hosts
                current = hosts[0] if hosts else None


def _occurrences(definition: t.Mapping[str, t.Any]) -> tuple[object, object]:
    """The bounds of a requirement's assignments: those of every declaration of it
    at once (the seed's intersection), ``UNBOUNDED`` as is."""
    low: object = 1
    high: object = 1
    for index, declared in enumerate(definition.get("__chain__") or [definition]):
        occurrences = declared.get("occurrences") or [1, 1]
        own_low, own_high = (list(occurrences) + [1, 1])[:2] \
            if isinstance(occurrences, list) else (1, 1)
        if index == 0:
            low, high = own_low, own_high
            continue
        if isinstance(own_low, int) and isinstance(low, int):
            low = max(low, own_low)
        if isinstance(own_high, int):
            high = min(high, own_high) if isinstance(high, int) else own_high
    return low, high


class TemplateView:
    """A node template as a node filter sees it before anything runs: each
    property's assigned value, else its default; ``get_input`` is the input's
    value, other functions stay unknown."""

    def __init__(self, checker: Checker, name: str) -> None:
        self.checker = checker
        self.name = name
        self.body: t.Mapping[str, t.Any] = checker.templates.get(name) or {}

    def property(self, name: str) -> tuple[t.Any, str] | None:
        defs = self.checker.registry.definitions("node_types", self.checker.node_types[
            self.name], "properties")
        return self._value(defs, self.body.get("properties"), name)

    def capability(self, name_or_type: str) -> filters.Lookup | None:
        found = self.checker._capability_of(self.name, name_or_type)
        if found is None:
            return None
        definition = self.checker.registry.definitions(
            "node_types", self.checker.node_types[self.name], "capabilities")[found]
        defs = self.checker._capability_property_defs(definition)
        assigned = (self.body.get("capabilities") or {}).get(found)
        given = assigned.get("properties") if isinstance(assigned, dict) else None
        return lambda name: self._value(defs, given, name)

    def _value(self, defs: t.Mapping[str, t.Mapping[str, t.Any]], assigned: object,
               name: str) -> tuple[t.Any, str] | None:
        definition = defs.get(name)
        if definition is None:
            return None
        if isinstance(assigned, dict) and name in assigned:
            value = assigned[name]
        else:
            value = definition.get("value", definition.get("default"))
        if isinstance(value, dict) and list(value) == ["get_input"]:
            value = self.checker.inputs.get(str(value["get_input"]))
        return value, str(definition.get("type") or "string")
