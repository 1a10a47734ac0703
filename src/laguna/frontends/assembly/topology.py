"""From a descriptor, intent inputs and what exists to the wanted topology.

:func:`build` expands an assembly descriptor into a tree of instances (one
per resource or nested assembly, named as section 4.1 of the spec page),
checks everything it can before anything runs, and collects every problem.
Property values that map other components (``${web.publicIp}``) are resolved
later, when the engine reaches the instance (:meth:`Topology.resolve_node`).
"""

from __future__ import annotations

import dataclasses
import graphlib
import typing as t
import uuid

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.catalog import Catalog, render_dynamic_type, version_matches
from laguna.frontends.assembly.descriptor import (
    TRANSITIONS,
    Component,
    Descriptor,
    PropertyDef,
    Relationship,
    expressions,
    heads,
)
from laguna.frontends.assembly.names import split
from laguna.frontends.assembly.values import (
    MISSING,
    BadValue,
    Unresolved,
    bad_value,
    convert,
    is_mapped,
    resolve,
    walk,
)
from laguna.source import Problems, Span

SPECIAL = ("instance", "item")


@dataclasses.dataclass(eq=False)
class Node:
    """One instance of the wanted topology: a resource, or a nested assembly (``children``)."""

    name: str
    component: str
    type: str
    descriptor: Descriptor
    index: int | str
    item: t.Any = None
    parent: Node | None = None
    #: the composition entry this node comes from (None for the top-level assembly)
    entry: Component | None = None
    #: assembly nodes: resolved assembly-level properties, children by component
    properties: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    children: dict[str, list[Node]] = dataclasses.field(default_factory=dict)
    levels: list[list[str]] = dataclasses.field(default_factory=list)
    references: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)
    pairs: list[Pair] = dataclasses.field(default_factory=list)

    @property
    def is_assembly(self) -> bool:
        return self.descriptor.kind == "assembly"

    def walk(self) -> t.Iterator[Node]:
        """Every node below this one, parents before children."""
        for group in self.children.values():
            for child in group:
                yield child
                yield from child.walk()


@dataclasses.dataclass(eq=False)
class Endpoint:
    """One end of a relationship pair: an instance, or a referenced assembly."""

    node: Node | None
    reference: dict[str, t.Any] | None = None

    @property
    def name(self) -> str:
        if self.node is not None:
            return self.node.name
        assert self.reference is not None
        return str(self.reference["name"])


@dataclasses.dataclass(eq=False)
class Pair:
    relationship: Relationship
    assembly: Node
    source: Endpoint
    target: Endpoint
    #: what the store keeps of a created pair
    key: str = ""

    def __post_init__(self) -> None:
        self.key = (f"{self.assembly.name}:{self.relationship.name}:"
                    f"{self.source.name}->{self.target.name}")


class Existing(t.Protocol):
    """What the engine knows of instances that exist (for peers and references)."""

    def properties_of(self, name: str) -> dict[str, t.Any] | None: ...

    def cluster_size(self, name: str) -> int | None: ...

    def assemblies(self) -> list[dict[str, t.Any]]: ...


class Topology:
    """The wanted tree of one assembly instance, and its checks."""

    def __init__(self, catalog: Catalog, existing: Existing) -> None:
        self.catalog = catalog
        self.existing = existing
        self.problems = Problems()

    def problem(self, kind: str, message: str, span: Span | None) -> None:
        self.problems.append(e.problem(kind, message, span))

    # -- the top ---------------------------------------------------------------------
    def build(self, descriptor: Descriptor, name: str, inputs: t.Mapping[str, t.Any]) -> Node:
        root = Node(name=name, component="", type=descriptor.name, descriptor=descriptor,
                    index=1)
        self.problems.extend(descriptor.problems)
        if descriptor.kind != "assembly":
            raise e.fail(e.INVALID_DESCRIPTOR_NAME, f"{descriptor.name!r} is not an assembly "
                         "descriptor", descriptor.span)
        try:
            self.assembly(root, inputs, top=True)
        except e.DescriptorError as error:
            self.problems.extend(error.problems)
        # a mapping checked for the type it renders and again for its values
        # reports its problem once
        self.problems.raise_errors(e.DescriptorError)
        return root

    def assembly_properties(self, node: Node, given: t.Mapping[str, t.Any],
                            top: bool) -> None:
        d = node.descriptor
        values: dict[str, t.Any] = {}
        deferred: list[PropertyDef] = []
        for prop in d.properties.values():
            if prop.has_value:
                if is_mapped(prop.value):
                    deferred.append(prop)
                    continue
                raw = prop.value
            elif prop.name in given and not prop.read_only:
                raw = given[prop.name]
            else:
                raw = prop.default
            try:
                values[prop.name] = convert(raw, prop, d.data_types, check_required=top)
            except BadValue as bad:
                self.problems.append(bad_value(prop, bad).problems[0])
                values[prop.name] = None
            except e.DescriptorError as error:
                self.problems.extend(error.problems)
        for prop in deferred:
            # a mapping over assembly properties resolves now; one over components
            # (read-only outputs) after the transitions
            if all(h in d.properties for h in heads(prop.value)):
                values[prop.name] = self.value_of(prop, lambda k: values.get(k, MISSING), d)
            else:
                self.check_heads(prop, d, allowed=set(d.composition) | set(d.references))
                values[prop.name] = None
        if top:
            for prop in d.properties.values():
                if prop.required and values.get(prop.name) is None:
                    self.problem(e.MISSING_REQUIRED_PROPERTY, f"required property "
                                 f"{prop.name!r} of {d.name} has no value", prop.span)
        node.properties = values

    def value_of(self, prop: PropertyDef, lookup: t.Callable[[str], t.Any],
                 d: Descriptor) -> t.Any:
        try:
            raw = resolve(prop.value, lookup)
        except Unresolved as missing:
            self.problem(e.UNRESOLVED_REFERENCE, f"${{{missing.path}}} in property "
                         f"{prop.name!r} names nothing defined", prop.span)
            return None
        try:
            return convert(raw, prop, d.data_types)
        except BadValue as bad:
            self.problems.append(bad_value(prop, bad).problems[0])
            return None

    def check_heads(self, prop: PropertyDef, d: Descriptor, allowed: set[str]) -> None:
        for head in heads(prop.value):
            if head not in allowed and head not in d.properties:
                self.problem(e.UNRESOLVED_REFERENCE, f"${{{head}}} in property {prop.name!r} "
                             "names no property, component or reference", prop.span)

    # -- an assembly: references, components, relationships -----------------------------
    def assembly(self, node: Node, given: t.Mapping[str, t.Any], top: bool) -> None:
        d = node.descriptor
        self.assembly_properties(node, given, top)
        for ref in d.references.values():
            self.reference(node, ref.name)
        graph: dict[str, set[str]] = {}
        for comp in d.composition.values():
            deps = set()
            for prop in comp.properties.values():
                for head in heads(prop.value):
                    if head in d.composition and head != comp.name:
                        deps.add(head)
                    elif head not in d.properties and head not in d.references \
                            and head not in SPECIAL and head != comp.name:
                        self.problem(e.UNRESOLVED_REFERENCE, f"${{{head}}} in property "
                                     f"{prop.name!r} of component {comp.name!r} names no "
                                     "property, component or reference", prop.span)
                    elif head == "item" and comp.items is None:
                        self.problem(e.UNRESOLVED_REFERENCE, f"${{item}} in component "
                                     f"{comp.name!r}, which has no items", prop.span)
            graph[comp.name] = deps
        try:
            order = list(graphlib.TopologicalSorter(graph).static_order())
        except graphlib.CycleError as cycle:
            names = cycle.args[1]
            self.problem(e.CIRCULAR_DEPENDENCY, "components map each other's properties: "
                         + " -> ".join(names), d.composition[names[0]].span)
            order = list(d.composition)
        node.levels = _levels(graph, order)
        for comp in d.composition.values():
            node.children[comp.name] = self.instances(node, comp)
        for group in node.children.values():
            for child in group:
                if not child.is_assembly:
                    self.check_mapping(child)
        for comp in d.composition.values():
            for dep, span in comp.upgrade_dependencies:
                for member in node.children.get(dep, [])[:1]:
                    if not {"Reconfigure", "Upgrade"} & set(member.descriptor.lifecycle):
                        self.problem(e.INVALID_DESCRIPTOR, f"upgrade-dependency {dep!r} of "
                                     f"{comp.name!r}: {member.type} declares neither "
                                     "Reconfigure nor Upgrade", span)
        self.check_outputs(node)
        self.check_first(node)
        for rel in d.relationships.values():
            self.relationship(node, rel)

    def reference(self, node: Node, key: str) -> None:
        d = node.descriptor
        ref = d.references[key]
        if not ref.type:
            return  # reported by the loader: nothing to look for
        wanted: dict[str, t.Any] = {}
        for prop in ref.properties.values():
            if prop.has_value:
                wanted[prop.name] = self.value_of(
                    prop, lambda k: node.properties.get(k, MISSING), d)
        candidates = []
        for assembly in self.existing.assemblies():
            descriptor = str(assembly.get("descriptor", ""))
            kind, name, version = split(ref.type)
            if split(descriptor)[:2] != (kind, name) or \
                    not version_matches(version, split(descriptor)[2]):
                continue
            props = dict(assembly.get("properties") or {})
            if all((props.get(k) if k in props or k != "name" else assembly.get("name")) == v
                   for k, v in wanted.items()):
                candidates.append(assembly)
        if not candidates:
            self.problem(e.REFERENCE_NOT_FOUND, f"reference {key!r} ({ref.type}) matches no "
                         "existing assembly instance", ref.span)
            return
        if len(candidates) > 1:
            self.problem(e.AMBIGUOUS_REFERENCE, f"reference {key!r} ({ref.type}) matches "
                         f"{len(candidates)} instances: "
                         + ", ".join(sorted(str(c['name']) for c in candidates)), ref.span)
            return
        found = candidates[0]
        node.references[key] = {"name": found["name"], "descriptor": found["descriptor"],
                                "properties": dict(found.get("properties") or {})}

    def count(self, node: Node, comp: Component) -> list[tuple[int | str, t.Any]]:
        """The (index, item) of each instance ``comp`` has."""
        lookup = self.lookup(node, None, None)
        if comp.items is not None:
            try:
                items = resolve(comp.items, lookup)
            except Unresolved as missing:
                self.problem(e.UNRESOLVED_REFERENCE, f"items ${{{missing.path}}} of component "
                             f"{comp.name!r} names nothing defined", comp.span)
                return []
            if isinstance(items, list):
                return [(i, item) for i, item in enumerate(items, 1)]
            if isinstance(items, dict):
                return [(str(k), v) for k, v in items.items()]
            self.problem(e.INVALID_DESCRIPTOR, f"items of component {comp.name!r} is not a "
                         "list or a map", comp.span)
            return []
        if comp.cluster is not None:
            c = comp.cluster
            try:
                low = _int(resolve(c.minimum_nodes, lookup))
                high = _int(resolve(c.maximum_nodes, lookup)) if c.maximum_nodes is not None \
                    else None
                initial = _int(resolve(c.initial_quantity, lookup)) \
                    if c.initial_quantity is not None else low
                _int(resolve(c.scaling_increment, lookup))
            except (Unresolved, BadValue):
                self.problem(e.INVALID_CLUSTER, f"cluster of component {comp.name!r} has a "
                             "value that is not an integer", comp.span)
                return []
            if high is not None and low > high:
                self.problem(e.INVALID_CLUSTER, f"cluster of component {comp.name!r}: "
                             f"minimum-nodes {low} > maximum-nodes {high}", comp.span)
                return []
            if initial < low or (high is not None and initial > high):
                self.problem(e.INVALID_CLUSTER, f"cluster of component {comp.name!r}: "
                             f"initial-quantity {initial} is outside [{low}, {high}]",
                             comp.span)
                return []
            size = self.existing.cluster_size(f"{node.name}__{comp.name}")
            return [(i, None) for i in range(1, (initial if size is None else size) + 1)]
        if comp.quantity is not None:
            try:
                quantity = _int(resolve(comp.quantity, lookup))
            except (Unresolved, BadValue):
                self.problem(e.INVALID_PROPERTY_VALUE, f"quantity of component {comp.name!r} "
                             "is not an integer", comp.span)
                return []
            return [(i, None) for i in range(1, quantity + 1)]
        return [(1, None)]

    def instances(self, node: Node, comp: Component) -> list[Node]:
        grouped = comp.items is not None or comp.cluster is not None or \
            comp.quantity is not None
        result = []
        for index, item in self.count(node, comp):
            name = f"{node.name}__{comp.name}" + (f"__{index}" if grouped else "")
            type_name = comp.type
            if comp.dynamic_type is not None:
                variables = self.mapped(node, comp, name, index, item, for_template=True)
                try:
                    type_name = render_dynamic_type(comp.dynamic_type, variables, self.catalog,
                                                    comp.span)
                except e.DescriptorError as error:
                    self.problems.extend(error.problems)
                    continue
            try:
                descriptor = self.catalog.get(type_name, comp.type_span)
            except e.DescriptorError as error:
                self.problems.extend(error.problems)
                continue
            child = Node(name=name, component=comp.name, type=type_name, descriptor=descriptor,
                         index=index, item=item, parent=node, entry=comp)
            if descriptor.kind == "assembly":
                given = self.mapped(node, comp, name, index, item, for_template=False)
                self.assembly(child, given, top=False)
            result.append(child)
        return result

    def check_mapping(self, child: Node) -> None:
        """Static checks of a resource instance's mapping, so that nothing fails to
        resolve once scripts run: every value that does not read a peer resolves now
        (items' keys, nested keys, ``instance.*``), and peers have the property read."""
        assert child.parent is not None and child.entry is not None
        self.mapped(child.parent, child.entry, child.name, child.index, child.item)
        for prop in child.entry.properties.values():
            for body in _all_bodies(prop.value):
                why = self.peer_problem(child.parent, body)
                if why is not None:
                    self.problem(e.UNRESOLVED_REFERENCE, f"${{{body}}} in property "
                                 f"{prop.name!r} of component {child.component!r}: {why}",
                                 prop.span)

    def peer_problem(self, assembly: Node, body: str) -> str | None:
        """Why ``${body}`` cannot read a peer component's property (None when it can,
        or when it reads no peer): the peer's descriptor does not declare it. What a
        peer's property holds is known only once it runs, so the check stops there."""
        d = assembly.descriptor
        head, _, rest = body.partition(".")
        if head not in d.composition or head in d.properties or not rest:
            return None
        key = rest.split(".")[0].split("[")[0].strip()
        for peer in assembly.children.get(head) or []:
            if key not in peer.descriptor.properties:
                return f"{peer.type} has no property {key!r}"
            break
        return None

    def check_outputs(self, node: Node) -> None:
        """An assembly property mapped from its components (read after the
        transitions) must name a property the component declares."""
        for prop in node.descriptor.properties.values():
            if not prop.has_value or not is_mapped(prop.value):
                continue
            for body in _all_bodies(prop.value):
                why = self.peer_problem(node, body)
                if why is not None:
                    self.problem(e.UNRESOLVED_REFERENCE, f"${{{body}}} in property "
                                 f"{prop.name!r}: {why}", prop.span)

    def check_first(self, node: Node) -> None:
        """``multiple-instances: first`` on a group made from a map: a map has no
        first. Checked on the items themselves, so an empty map, or an operation no
        relationship calls, is refused too."""
        d = node.descriptor
        for op in d.operations.values():
            if op.multiple != "first" or op.source is None:
                continue
            entry = d.composition.get(op.source.partition(".")[0])
            if entry is None or entry.items is None:
                continue
            try:
                items = resolve(entry.items, self.lookup(node, None, None))
            except Unresolved:
                continue  # reported where the group is counted
            if isinstance(items, dict):
                self.problem(e.INVALID_DESCRIPTOR, f"operation {op.name!r} of {node.type}: "
                             "multiple-instances first on a map group", op.span)

    def check_relationship_values(self, node: Node, rel: Relationship,
                                  sample: Pair | None) -> None:
        """A relationship's properties resolve when its operations run; everything they
        can name is known now but the ends' values: ``source.``/``target.`` must name a
        property the end declares, ``instance.`` one of name, index and id (the
        instance the operation runs on), anything else must resolve now."""
        base = self.lookup(node, None, None)
        for prop in rel.properties.values():
            raw = prop.value if prop.has_value else prop.default
            for body in _all_bodies(raw):
                head, _, rest = body.partition(".")
                key = rest.split(".")[0].split("[")[0].strip()
                why: str | None = None
                if head in ("source", "target"):
                    end = None if sample is None else \
                        sample.source if head == "source" else sample.target
                    if end is not None and rest:
                        if end.node is not None and key not in end.node.descriptor.properties:
                            why = f"{end.node.type} has no property {key!r}"
                        elif end.reference is not None and \
                                key not in end.reference["properties"]:
                            why = f"reference {end.name} has no property {key!r}"
                    elif end is not None:
                        why = "names an end, not one of its properties"
                elif head == "instance":
                    if key not in ("name", "index", "id") or rest != key:
                        why = "names nothing defined"
                elif head in node.descriptor.composition and head not in node.properties:
                    why = self.peer_problem(node, body)
                else:
                    try:
                        walk(body, base)
                    except Unresolved:
                        why = "names nothing defined"
                if why is not None:
                    sep = ": " if not why.startswith("names") else " "
                    self.problem(e.UNRESOLVED_REFERENCE, f"${{{body}}} in property "
                                 f"{prop.name!r} of relationship {rel.name!r}{sep}{why}",
                                 prop.span)

    def lookup(self, assembly: Node, node: Node | None, item: t.Any,
               index: int | str | None = None, name: str | None = None
               ) -> t.Callable[[str], t.Any]:
        """Names visible inside ``assembly`` (from instance ``node`` when given)."""

        def find(key: str) -> t.Any:
            if key == "instance" and name is not None:
                return {"name": name, "index": index, "id": instance_id(name)}
            if key == "item" and name is not None:
                return item if item is not None else MISSING
            if key in assembly.properties:
                return assembly.properties[key]
            if key in assembly.references:
                return assembly.references[key]["properties"]
            if key in assembly.children or key in assembly.descriptor.composition:
                group = assembly.children.get(key) or []
                if group:
                    props = self.existing.properties_of(group[0].name)
                    return props if props is not None else MISSING
                return MISSING
            return MISSING

        return find

    def mapped(self, assembly: Node, comp: Component, name: str, index: int | str,
               item: t.Any, for_template: bool = False) -> dict[str, t.Any]:
        """The component's mapped properties for one instance (unresolvable ones left out)."""
        lookup = self.lookup(assembly, None, item, index, name)
        values: dict[str, t.Any] = {}
        for prop in comp.properties.values():
            if not prop.has_value:
                continue
            try:
                values[prop.name] = resolve(prop.value, lookup)
            except Unresolved as missing:
                head = missing.path.split(".")[0].split("[")[0].strip()
                # peers resolve when they have run; an unknown head, a reference not
                # found, ${item} without items are reported once, where they are checked
                if head in assembly.properties or head in assembly.references \
                        or head == "instance" or (head == "item" and comp.items is not None):
                    self.problem(e.UNRESOLVED_REFERENCE, f"${{{missing.path}}} in property "
                                 f"{prop.name!r} of component {comp.name!r} names nothing "
                                 "defined", prop.span)
        return values

    # -- relationships ------------------------------------------------------------------
    def relationship(self, node: Node, rel: Relationship) -> None:
        d = node.descriptor
        sources: list[tuple[list[Endpoint], str | None]] = []
        targets: list[tuple[list[Endpoint], str]] = []
        for text, span in rel.sources:
            comp, _, cap = text.partition(".")
            if not cap and comp in d.references:
                ref = node.references.get(comp)
                sources.append(([Endpoint(None, ref)] if ref else [], None))
                continue
            if comp not in d.composition:
                self.problem(e.INVALID_RELATIONSHIP, f"relationship {rel.name!r}: source "
                             f"{text!r} names no component or reference", span)
                continue
            group = node.children.get(comp, [])
            for member in group[:1]:
                if cap not in member.descriptor.capabilities:
                    self.problem(e.INVALID_RELATIONSHIP, f"relationship {rel.name!r}: "
                                 f"{member.type} has no capability {cap!r}", span)
            sources.append(([Endpoint(n) for n in group],
                            group[0].descriptor.capabilities.get(cap) if group else None))
        for text, span in rel.targets:
            comp, _, req = text.partition(".")
            if comp not in d.composition:
                self.problem(e.INVALID_RELATIONSHIP, f"relationship {rel.name!r}: target "
                             f"{text!r} names no component", span)
                continue
            group = node.children.get(comp, [])
            for member in group[:1]:
                if req not in member.descriptor.requirements:
                    self.problem(e.INVALID_RELATIONSHIP, f"relationship {rel.name!r}: "
                                 f"{member.type} has no requirement {req!r}", span)
                    continue
                wanted = member.descriptor.requirements[req]
                for _, cap_type in sources:
                    if cap_type is not None and cap_type != wanted:
                        self.problem(e.INVALID_RELATIONSHIP, f"relationship {rel.name!r}: "
                                     f"requirement {req!r} is of type {wanted!r}, the "
                                     f"capability of type {cap_type!r}", span)
            targets.append(([Endpoint(n) for n in group], req))
        for ends, _ in sources:
            for source in ends:
                for tends, _ in targets:
                    for target in tends:
                        node.pairs.append(Pair(rel, node, source, target))
        sample = node.pairs[-1] if node.pairs and node.pairs[-1].relationship is rel else None
        self.check_relationship_values(node, rel, sample)
        for text, span in rel.create + rel.cease:
            side, _, op = text.partition(".")
            if sample is None:
                break
            if side == "source" or side == sample.source.name.rsplit("__", 1)[-1] or \
                    any(side == s.split(".")[0] for s, _ in rel.sources):
                endpoint = sample.source
            elif side == "target" or any(side == s.split(".")[0] for s, _ in rel.targets):
                endpoint = sample.target
            else:
                self.problem(e.UNKNOWN_OPERATION, f"relationship {rel.name!r}: {text!r} names "
                             "neither source nor target", span)
                continue
            if not self.defines(endpoint, op):
                what = endpoint.node.type if endpoint.node is not None \
                    else f"reference {endpoint.name}"
                self.problem(e.UNKNOWN_OPERATION, f"relationship {rel.name!r}: "
                             f"{what} does not define or publish operation {op!r}", span)
            if endpoint.node is not None and endpoint.node.is_assembly:
                self.check_published(endpoint.node, op, span)

    def defines(self, endpoint: Endpoint, op: str) -> bool:
        if endpoint.node is not None:
            return op in endpoint.node.descriptor.operations
        assert endpoint.reference is not None
        try:
            return op in self.catalog.get(str(endpoint.reference["descriptor"])).operations
        except e.DescriptorError:
            return False

    def check_published(self, node: Node, op: str, span: Span) -> None:
        published = node.descriptor.operations.get(op)
        if published is None or published.source is None:
            return
        comp, _, inner = published.source.partition(".")
        group = node.children.get(comp)
        if group is None:
            self.problem(e.UNKNOWN_OPERATION, f"{node.type} publishes {op!r} from unknown "
                         f"component {comp!r}", published.span)
            return
        for member in group[:1]:
            if inner not in member.descriptor.operations:
                self.problem(e.UNKNOWN_OPERATION, f"{member.type} does not define or publish "
                             f"operation {inner!r}", published.span)

    # -- runtime resolution ---------------------------------------------------------------
    def resolve_node(self, node: Node, stored: t.Mapping[str, t.Any] | None
                     ) -> dict[str, t.Any]:
        """A resource instance's properties now: static value > parent mapping > default;
        read-only ones keep what scripts reported."""
        assert node.parent is not None and node.entry is not None
        d = node.descriptor
        mapping = self.mapped(node.parent, node.entry, node.name, node.index, node.item,
                              for_template=False)
        self.problems.raise_errors(e.DescriptorError)
        values: dict[str, t.Any] = {}
        for prop in d.all_properties().values():
            if prop.has_value:
                raw = prop.value
            elif prop.read_only:
                raw = (stored or {}).get(prop.name, prop.default)
            elif prop.name in mapping:
                raw = mapping[prop.name]
            else:
                raw = prop.default
            try:
                values[prop.name] = convert(raw, prop, d.data_types)
            except BadValue as bad:
                raise bad_value(prop, bad, node.entry.properties[prop.name].span
                                if prop.name in node.entry.properties else None) from None
        return values


def instance_id(name: str) -> str:
    """An instance's id: stable for its name, so re-runs and tests see the same."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"laguna-assembly:{name}"))


def _all_bodies(value: t.Any) -> list[str]:
    """The ``${...}`` bodies anywhere inside ``value`` (walks lists and maps)."""
    if isinstance(value, str):
        return expressions(value)
    if isinstance(value, dict):
        return [b for v in value.values() for b in _all_bodies(v)]
    if isinstance(value, list):
        return [b for v in value for b in _all_bodies(v)]
    return []


def _int(value: t.Any) -> int:
    if isinstance(value, bool):
        raise BadValue("not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise BadValue("not an integer")


def _levels(graph: dict[str, set[str]], order: list[str]) -> list[list[str]]:
    """Components grouped so that each group depends only on earlier ones."""
    depth: dict[str, int] = {}
    for name in order:
        depth[name] = 1 + max((depth.get(dep, 0) for dep in graph.get(name, ())), default=-1)
    levels: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for name in graph:  # declaration order inside a level
        levels[depth[name]].append(name)
    return levels


def declares(descriptor: Descriptor, transition: str) -> bool:
    return transition in descriptor.lifecycle


__all__ = ["Node", "Pair", "Endpoint", "Topology", "declares", "TRANSITIONS"]
