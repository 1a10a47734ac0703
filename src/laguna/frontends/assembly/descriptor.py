"""Assembly and resource descriptors: the grammar as data, loaded with spans.

Loading goes ``YAML -> checked sections -> Descriptor``; every structural
problem is collected with its file:line (:class:`~.errors.Problem`) and the
caller decides when to refuse. Semantic checks that need the catalog (types,
operations, capabilities) live in :mod:`.topology`.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t
from pathlib import Path

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.names import descriptor_name_problem, given_name_problem
from laguna.source import Problems, Span
from laguna.yamlio import YamlError, load_all, plain, span_of

SCALAR_TYPES = ("string", "boolean", "integer", "float", "timestamp", "key", "certificate")
BUILTIN_TYPES = SCALAR_TYPES + ("map", "list")
STATES = ("Installed", "Inactive", "Active", "Broken")
MODIFIERS = ("pre", "post")
MULTIPLE = ("every", "any", "first")
TRANSITIONS = ("Create", "Install", "Configure", "Start", "Integrity", "Stop", "Uninstall",
               "Delete", "Reconfigure", "Upgrade", "Heal")
_EXPR = re.compile(r"\$\{([^}]*)\}")


@dataclasses.dataclass
class PropertyDef:
    """One property: its declaration as written (``value`` may hold ``${}``)."""

    name: str
    span: Span
    type: str = "string"
    entry_schema: PropertyDef | None = None
    required: bool = False
    default: t.Any = None
    has_default: bool = False
    read_only: bool = False
    volatile: bool = False
    value: t.Any = None
    has_value: bool = False
    private: bool = False


@dataclasses.dataclass
class DataType:
    name: str
    span: Span
    derived_from: str | None
    properties: dict[str, PropertyDef]


@dataclasses.dataclass
class Cluster:
    initial_quantity: t.Any = None
    minimum_nodes: t.Any = 1
    maximum_nodes: t.Any = None
    scaling_increment: t.Any = 1


@dataclasses.dataclass
class Component:
    name: str
    span: Span
    type: str
    type_span: Span
    dynamic_type: str | None = None
    quantity: t.Any = None
    cluster: Cluster | None = None
    items: t.Any = None
    properties: dict[str, PropertyDef] = dataclasses.field(default_factory=dict)
    upgrade_dependencies: list[tuple[str, Span]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Reference:
    name: str
    span: Span
    type: str
    properties: dict[str, PropertyDef]


@dataclasses.dataclass
class Relationship:
    name: str
    span: Span
    sources: list[tuple[str, Span]]
    targets: list[tuple[str, Span]]
    source_state: str
    target_state: str
    source_modifier: str
    target_modifier: str
    properties: dict[str, PropertyDef]
    create: list[tuple[str, Span]]
    cease: list[tuple[str, Span]]


@dataclasses.dataclass
class Operation:
    """A resource operation, or an assembly's published one (``source`` set)."""

    name: str
    span: Span
    source: str | None = None
    multiple: str = "every"
    properties: dict[str, PropertyDef] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Descriptor:
    name: str
    kind: str
    path: Path
    span: Span
    description: str = ""
    properties: dict[str, PropertyDef] = dataclasses.field(default_factory=dict)
    private_properties: dict[str, PropertyDef] = dataclasses.field(default_factory=dict)
    data_types: dict[str, DataType] = dataclasses.field(default_factory=dict)
    composition: dict[str, Component] = dataclasses.field(default_factory=dict)
    references: dict[str, Reference] = dataclasses.field(default_factory=dict)
    relationships: dict[str, Relationship] = dataclasses.field(default_factory=dict)
    operations: dict[str, Operation] = dataclasses.field(default_factory=dict)
    capabilities: dict[str, str] = dataclasses.field(default_factory=dict)
    requirements: dict[str, str] = dataclasses.field(default_factory=dict)
    lifecycle: tuple[str, ...] = ()
    drivers: tuple[str, ...] = ()
    #: the resource package folder (lmctl layout) for resources
    package: Path | None = None
    #: structural problems found while loading, reported with the topology's own
    problems: list[e.Problem] = dataclasses.field(default_factory=list)

    @property
    def version(self) -> str:
        return self.name.rsplit("::", 1)[-1]

    def all_properties(self) -> dict[str, PropertyDef]:
        return {**self.properties, **self.private_properties}


def expressions(text: str) -> list[str]:
    """The ``${...}`` bodies in ``text``."""
    return [m.strip() for m in _EXPR.findall(text)]


class _Loader:
    def __init__(self, path: Path, source: str) -> None:
        self.path = path
        self.source = source
        self.problems = Problems()

    def problem(self, kind: str, message: str, span: Span | None) -> None:
        self.problems.append(e.problem(kind, message, span))

    def mapping(self, value: t.Any, what: str, span: Span) -> dict[str, t.Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(e.INVALID_DESCRIPTOR, f"{what} must be a map", span_of(value) or span)
            return {}
        return value

    def sequence(self, value: t.Any, what: str, span: Span) -> list[tuple[str, Span]]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            self.problem(e.INVALID_DESCRIPTOR, f"{what} must be a list", span_of(value) or span)
            return []
        return [(str(v), span_of(v) or span) for v in value]

    def required(self, what: str, body: dict[str, t.Any], fields: t.Iterable[str],
                 span: Span) -> None:
        """Report each of ``fields`` (marked Required Y by the seed) ``body`` lacks."""
        for field in fields:
            if field not in body:
                self.problem(e.INVALID_DESCRIPTOR, f"{what}: {field} is required", span)

    def named(self, what: str, section: dict[str, t.Any], span: Span) -> dict[str, t.Any]:
        """``section`` (a map of names to bodies), each name checked against the seed's
        rule for the names a descriptor gives."""
        for key in section:
            why = given_name_problem(what, str(key))
            if why is not None:
                self.problem(e.INVALID_DESCRIPTOR, why, self.key_span(section, key))
        return section

    def key_span(self, parent: t.Any, key: str) -> Span:
        spans = getattr(parent, "key_spans", {})
        return t.cast(Span, spans.get(key) or span_of(parent) or Span(self.source, 1, 1))

    def load(self, text: str) -> Descriptor | None:
        try:
            documents = load_all(text, self.source)
        except YamlError as error:
            self.problem(e.INVALID_DESCRIPTOR, error.message if hasattr(error, "message")
                         else str(error), getattr(error, "span", None))
            return None
        if len(documents) != 1 or not isinstance(documents[0], dict):
            self.problem(e.INVALID_DESCRIPTOR, "a descriptor is one YAML map",
                         Span(self.source, 1, 1))
            return None
        doc = documents[0]
        top = span_of(doc) or Span(self.source, 1, 1)
        name = doc.get("name")
        if name is None:
            # the seed: in a package, "if no descriptor name is specified, a default
            # name is created automatically"
            name = package_default_name(self.path)
        if not isinstance(name, str):
            self.problem(e.INVALID_DESCRIPTOR_NAME, "the descriptor has no name (only one "
                         "in a package, Definitions/lm/, may leave it out)", top)
            return None
        why = descriptor_name_problem(str(name))
        if why is not None:
            self.problem(e.INVALID_DESCRIPTOR_NAME, why, span_of(name) or top)
            return None
        descriptor = Descriptor(name=str(name), kind=str(name).split("::")[0], path=self.path,
                                span=span_of(name) or top,
                                description=str(doc.get("description") or ""))
        if descriptor.kind == "assembly":
            # the seed's table of sections marks these Y (name is checked above)
            for required in ("properties", "composition"):
                if required not in doc:
                    self.problem(e.INVALID_DESCRIPTOR, f"assembly descriptor: the {required} "
                                 f"section is required (it may be empty: {required}: {{}})",
                                 top)
        descriptor.data_types = self.data_types(doc.get("data-types"), top)
        descriptor.properties = self.properties(doc.get("properties"), "properties", top)
        descriptor.private_properties = self.properties(
            doc.get("private-properties"), "private-properties", top, private=True)
        for cap_key, what, target in (
                ("capabilities", "capability", descriptor.capabilities),
                ("requirements", "requirement", descriptor.requirements)):
            section = self.named(what, self.mapping(doc.get(cap_key), cap_key, top), top)
            for key, body in section.items():
                body = self.mapping(body, f"{cap_key}.{key}", self.key_span(doc, cap_key))
                self.required(f"{what} {key!r}", body, ("type",), self.key_span(section, key))
                target[str(key)] = str(body.get("type", ""))
        descriptor.lifecycle = self.lifecycle(doc.get("lifecycle"), top)
        drivers = self.mapping(doc.get("default-driver"), "default-driver", top)
        descriptor.drivers = tuple(str(k) for k in drivers)
        descriptor.composition = self.composition(doc.get("composition"), top)
        descriptor.references = self.references(doc.get("references"), top)
        descriptor.relationships = self.relationships(doc.get("relationships"), top)
        descriptor.operations = self.operations(doc.get("operations"), top,
                                                descriptor.kind == "assembly")
        self.check_data_types(descriptor)
        self.check_dependencies(descriptor)
        return descriptor

    # -- sections ------------------------------------------------------------------
    def property_def(self, name: str, body: t.Any, span: Span, private: bool) -> PropertyDef:
        prop = PropertyDef(name=name, span=span, private=private)
        if body is None:
            return prop
        if not isinstance(body, dict):
            self.problem(e.INVALID_DESCRIPTOR, f"property {name!r} must be a map",
                         span_of(body) or span)
            return prop
        prop.type = str(body.get("type", "string"))
        schema = body.get("entry-schema", body.get("entry_schema"))
        if isinstance(schema, str):
            prop.entry_schema = PropertyDef(name=f"{name}[]", span=span, type=schema)
        elif isinstance(schema, dict):
            prop.entry_schema = self.property_def(f"{name}[]", schema, span, private)
        prop.required = bool(body.get("required", False))
        if "default" in body:
            prop.default, prop.has_default = body["default"], True
        prop.read_only = bool(body.get("read-only", body.get("readOnly", False)))
        prop.volatile = bool(body.get("volatile", False))
        if "value" in body:
            prop.value, prop.has_value = body["value"], True
        # a static value never changes, so volatile has no effect on it (the seed's own
        # test_timestamp example has both); a read-only one is never given a value
        if prop.volatile and prop.read_only:
            self.problem(e.INVALID_DESCRIPTOR, f"volatile property {name!r} cannot be "
                         "read-only", span)
        if not prop.has_default and prop.entry_schema is not None:
            whole = _whole_default(prop.type, prop.entry_schema)
            if whole is not None:
                prop.default, prop.has_default = whole, True
        return prop

    def properties(self, value: t.Any, what: str, span: Span,
                   private: bool = False) -> dict[str, PropertyDef]:
        section = self.named("property", self.mapping(value, what, span), span)
        return {str(k): self.property_def(str(k), v, self.key_span(section, k), private)
                for k, v in section.items()}

    def data_types(self, value: t.Any, span: Span) -> dict[str, DataType]:
        section = self.named("data type", self.mapping(value, "data-types", span), span)
        types = {}
        for key, body in section.items():
            where = self.key_span(section, key)
            body = self.mapping(body, f"data type {key!r}", where)
            self.required(f"data type {key!r}", body, ("properties",), where)
            derived = body.get("derived-from")
            types[str(key)] = DataType(str(key), where, str(derived) if derived else None,
                                       self.properties(body.get("properties"),
                                                       f"data type {key!r} properties", where))
        return types

    def lifecycle(self, value: t.Any, span: Span) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, dict):
            names = [str(k) for k in value]
        elif isinstance(value, list):
            names = [str(next(iter(v))) if isinstance(v, dict) else str(v) for v in value]
        else:
            self.problem(e.INVALID_DESCRIPTOR, "lifecycle must be a map or a list",
                         span_of(value) or span)
            return ()
        return tuple(names)

    def composition(self, value: t.Any, span: Span) -> dict[str, Component]:
        section = self.named("component", self.mapping(value, "composition", span), span)
        components = {}
        for key, body in section.items():
            where = self.key_span(section, key)
            body = self.mapping(body, f"component {key!r}", where)
            type_text = body.get("type")
            if not isinstance(type_text, str):
                self.problem(e.INVALID_DESCRIPTOR, f"component {key!r} has no type", where)
                type_text = ""
            elif not body.get("dynamicType"):
                why = descriptor_name_problem(type_text)
                if why is not None:
                    self.problem(e.INVALID_DESCRIPTOR_NAME, why, span_of(type_text) or where)
            comp = Component(name=str(key), span=where, type=str(type_text),
                             type_span=span_of(type_text) or where)
            dynamic = body.get("dynamicType")
            comp.dynamic_type = str(dynamic) if dynamic is not None else None
            comp.quantity = body.get("quantity")
            comp.items = body.get("items")
            if "cluster" in body:
                cluster = self.mapping(body["cluster"], f"component {key!r} cluster", where)
                comp.cluster = Cluster(cluster.get("initial-quantity"),
                                       cluster.get("minimum-nodes", 1),
                                       cluster.get("maximum-nodes"),
                                       cluster.get("scaling-increment", 1))
            comp.properties = self.properties(body.get("properties"),
                                              f"component {key!r} properties", where)
            comp.upgrade_dependencies = self.sequence(body.get("upgrade-dependencies"),
                                                      "upgrade-dependencies", where)
            components[str(key)] = comp
        return components

    def references(self, value: t.Any, span: Span) -> dict[str, Reference]:
        section = self.named("reference", self.mapping(value, "references", span), span)
        refs = {}
        for key, body in section.items():
            where = self.key_span(section, key)
            body = self.mapping(body, f"reference {key!r}", where)
            self.required(f"reference {key!r}", body, ("type", "properties"), where)
            refs[str(key)] = Reference(str(key), where, str(body.get("type", "")),
                                       self.properties(body.get("properties"),
                                                       f"reference {key!r} properties", where))
        return refs

    def relationships(self, value: t.Any, span: Span) -> dict[str, Relationship]:
        section = self.named("relationship", self.mapping(value, "relationships", span), span)
        result = {}
        for key, body in section.items():
            where = self.key_span(section, key)
            body = self.mapping(body, f"relationship {key!r}", where)
            # every attribute the seed marks Y (its examples all have them)
            self.required(f"relationship {key!r}", body, (
                "source-capabilities", "target-requirements", "source-state", "target-state",
                "properties", "lifecycle"), where)
            if isinstance(body.get("lifecycle"), dict):
                self.required(f"relationship {key!r}", {f"lifecycle {k}": v for k, v in
                                                       body["lifecycle"].items()},
                              ("lifecycle Create", "lifecycle Cease"),
                              self.key_span(body, "lifecycle"))
            states = []
            for field, default in (("source-state", "Active"), ("target-state", "Active"),
                                   ("source-state-modifier", "post"),
                                   ("target-state-modifier", "pre")):
                text = str(body.get(field, default))
                allowed = STATES if field.endswith("state") else MODIFIERS
                if text not in allowed:
                    self.problem(e.INVALID_RELATIONSHIP,
                                 f"relationship {key!r}: {field} {text!r} is not one of "
                                 f"{', '.join(allowed)}", self.key_span(body, field))
                states.append(text)
            life = self.mapping(body.get("lifecycle"), f"relationship {key!r} lifecycle", where)
            result[str(key)] = Relationship(
                str(key), where,
                self.sequence(body.get("source-capabilities"), "source-capabilities", where),
                self.sequence(body.get("target-requirements"), "target-requirements", where),
                states[0], states[1], states[2], states[3],
                self.properties(body.get("properties"), f"relationship {key!r} properties",
                                where),
                self.sequence(life.get("Create"), "Create", where),
                self.sequence(life.get("Cease"), "Cease", where))
        return result

    def operations(self, value: t.Any, span: Span, assembly: bool) -> dict[str, Operation]:
        section = self.mapping(value, "operations", span)
        ops = {}
        for key, body in section.items():
            where = self.key_span(section, key)
            body = self.mapping(body, f"operation {key!r}", where)
            op = Operation(str(key), where)
            if assembly:
                source = body.get("source-operation")
                if not isinstance(source, str) or "." not in source:
                    self.problem(e.INVALID_DESCRIPTOR, f"operation {key!r} needs "
                                 "source-operation: component.operation", where)
                else:
                    op.source = source
                op.multiple = str(body.get("multiple-instances", "every"))
                if op.multiple not in MULTIPLE:
                    self.problem(e.INVALID_DESCRIPTOR, f"operation {key!r}: multiple-instances "
                                 f"{op.multiple!r} is not every, any or first", where)
            else:
                op.properties = self.properties(body.get("properties"),
                                                f"operation {key!r} properties", where)
            ops[str(key)] = op
        return ops

    # -- whole-descriptor checks -----------------------------------------------------
    def check_type(self, prop: PropertyDef, types: dict[str, DataType]) -> None:
        if prop.type not in BUILTIN_TYPES and prop.type not in types:
            self.problem(e.INVALID_DATA_TYPE, f"property {prop.name!r} has unknown type "
                         f"{prop.type!r}", prop.span)
        if prop.entry_schema is not None:
            self.check_type(prop.entry_schema, types)

    def check_data_types(self, d: Descriptor) -> None:
        for dt in d.data_types.values():
            if dt.derived_from is not None and dt.derived_from not in d.data_types:
                self.problem(e.INVALID_DATA_TYPE, f"data type {dt.name!r} derives from unknown "
                             f"type {dt.derived_from!r}", dt.span)
            for prop in dt.properties.values():
                self.check_type(prop, d.data_types)
        groups = [d.properties, d.private_properties]
        groups += [c.properties for c in d.composition.values()]
        groups += [r.properties for r in d.relationships.values()]
        for group in groups:
            for prop in group.values():
                self.check_type(prop, d.data_types)

    def check_dependencies(self, d: Descriptor) -> None:
        graph: dict[str, set[str]] = {}
        for comp in d.composition.values():
            graph[comp.name] = set()
            for dep, span in comp.upgrade_dependencies:
                if dep not in d.composition:
                    self.problem(e.INVALID_DESCRIPTOR, f"component {comp.name!r} has an "
                                 f"upgrade-dependency on unknown component {dep!r}", span)
                else:
                    graph[comp.name].add(dep)
        for comp in d.composition.values():
            # a property passed from a component to one it is an upgrade dependency of
            for prop in comp.properties.values():
                for head in heads(prop.value):
                    if head in graph and comp.name in _reach(graph, head) | graph[head]:
                        self.problem(e.CIRCULAR_DEPENDENCY, f"component {comp.name!r} takes "
                                     f"property {prop.name!r} from {head!r}, which depends on "
                                     f"it for upgrades", prop.span)
        for name in graph:
            if name in _reach(graph, name):
                self.problem(e.CIRCULAR_DEPENDENCY, f"upgrade-dependencies of {name!r} form a "
                             "cycle", d.composition[name].span)


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return seen


_PACKAGE_FOLDER = re.compile(r"(.+)-(\d+(?:\.\d+)*)")
PROJECT_FILES = ("lmproject.yml", "lmproject.yaml")


def package_default_name(path: Path) -> str | None:
    """The name lmctl gives a descriptor without one in its package
    (``<pkg>/Definitions/lm/<kind>.yaml``): ``kind::name::version``, the kind from the
    file's name (else the project's ``type``), name and version from the package's
    lmproject.yml, else from the package folder's ``<name>-<version>`` (how lmctl
    names what it builds). None outside a package, or when neither gives them."""
    if path.parent.name != "lm" or path.parent.parent.name != "Definitions":
        return None
    root = path.parent.parent.parent
    kind: str | None = path.stem if path.stem in ("assembly", "resource") else None
    for project_file in PROJECT_FILES:
        try:
            project = plain(load_all((root / project_file).read_text(encoding="utf-8"),
                                     project_file)[0])
        except (OSError, UnicodeDecodeError, YamlError, IndexError):
            continue
        if not isinstance(project, dict):
            continue
        kind = kind or str(project.get("type", "assembly")).lower()
        if project.get("name") is not None and project.get("version") is not None:
            return f"{kind}::{project['name']}::{project['version']}"
    folder = _PACKAGE_FOLDER.fullmatch(root.name)
    if kind is None or folder is None:
        return None
    return f"{kind}::{folder.group(1)}::{folder.group(2)}"


def _whole_default(kind: str, schema: PropertyDef) -> t.Any:
    """The default of a whole list or map written under its entry-schema, as the
    seed's examples write it (``streamers: {type: list, entry_schema: {type: string,
    default: [...]}}``); None when the entry-schema's default is an entry's.

    A map's default may be a list of one-key maps (the seed's map group:
    ``- {first: {...}}``): it is the map those entries make."""
    if not schema.has_default:
        return None
    value = schema.default
    if kind == "list" and isinstance(value, list):
        return value
    if kind == "map" and isinstance(value, dict):
        return value
    if kind == "map" and isinstance(value, list) and value and \
            all(isinstance(v, dict) and len(v) == 1 for v in value):
        merged: dict[t.Any, t.Any] = {}
        for entry in value:
            merged.update(entry)
        if len(merged) == len(value):  # a key given twice is not a map's default
            return merged
    return None


def heads(value: t.Any) -> list[str]:
    """The first names of every ``${}`` inside ``value`` (walks lists and maps)."""
    found: list[str] = []
    if isinstance(value, str):
        for body in expressions(value):
            found.append(re.split(r"[.\[]", body, maxsplit=1)[0].strip())
    elif isinstance(value, dict):
        for item in value.values():
            found.extend(heads(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(heads(item))
    return found


def load_descriptor(path: Path, text: str | None = None,
                    source: str | None = None) -> tuple[Descriptor | None, list[e.Problem]]:
    """The descriptor at ``path`` and every structural problem found in it."""
    loader = _Loader(path, source or str(path))
    if text is None:
        text = path.read_text(encoding="utf-8")
    descriptor = loader.load(text)
    return descriptor, loader.problems.items


def plain_value(value: t.Any) -> t.Any:
    """A loaded value without its spans."""
    return plain(value)
