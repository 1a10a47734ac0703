"""The types a blueprint can use: the normative 1.3 types, AMP's, and those its
documents declare; derivation, refinement of inherited definitions, and value
checks against property, attribute and data type definitions.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing as t
from pathlib import Path

from laguna.frontends.tosca import values
from laguna.frontends.tosca.documents import Document
from laguna.frontends.tosca.grammar import KEYNAMES, TYPE_KINDS
from laguna.frontends.tosca.problems import (
    CONSTRAINT_VIOLATION,
    INVALID_TEMPLATE,
    MISSING_REQUIRED,
    TYPE_MISMATCH,
    UNKNOWN_TYPE,
    Problems,
)
from laguna.source import Span
from laguna.yamlio import YMap, load_all

Finding = tuple[str, str]

#: the function names a value may hold (section 4)
FUNCTIONS = frozenset({"get_input", "get_property", "get_attribute", "get_operation_output",
                       "concat", "join", "token", "get_artifact", "get_node_of_type"})

_BUILTIN_DIR = Path(__file__).parent / "types"
_SHORT_PREFIX = {"artifact_types": "tosca.artifacts.", "data_types": "tosca.datatypes.",
                 "capability_types": "tosca.capabilities.",
                 "interface_types": "tosca.interfaces.",
                 "relationship_types": "tosca.relationships.", "node_types": "tosca.nodes.",
                 "group_types": "tosca.groups.", "policy_types": "tosca.policies."}


def is_function(value: object) -> bool:
    """Whether ``value`` is a function call (a map of one function name)."""
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in FUNCTIONS


_GENERIC = re.compile(r"^\s*(map|list)\s*<(.*)>\s*$", re.S)


def generic(type_name: object) -> tuple[str, list[str]] | None:
    """AMP's generic collection type (seed 003: "giving generic arguments where
    appropriate, e.g. map<string,boolean>") as its base and type arguments
    (``("map", ["string", "boolean"])``); None when ``type_name`` is no generic,
    ``("", [])`` when it is one written wrongly."""
    if not isinstance(type_name, str) or "<" not in type_name:
        return None
    match = _GENERIC.match(type_name)
    if not match:
        return "", []
    args: list[str] = []
    depth, current = 0, ""
    for char in match.group(2):
        if char == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth < 0:
            return "", []
        current += char
    args.append(current.strip())
    if depth != 0 or not all(args):
        return "", []
    return match.group(1), args


def generic_problem(type_name: str, known: t.Callable[[str], bool]) -> str | None:
    """What is wrong with a generic type (None: nothing, or it is no generic)."""
    found = generic(type_name)
    if found is None:
        return None
    base, args = found
    if not base:
        return f"{type_name!r} is not a generic type (expected list<T> or map<K,V>)"
    if base == "list" and len(args) != 1:
        return f"{type_name!r}: list takes one type argument (list<T>)"
    if base == "map" and len(args) not in (1, 2):
        return f"{type_name!r}: map takes one or two type arguments (map<V>, map<K,V>)"
    for arg in args:
        why = generic_problem(arg, known)
        if why is not None:
            return why
        if generic(arg) is None and not known(arg):
            return f"{type_name!r} names unknown data type {arg!r}"
    return None


def expanded(schema: t.Mapping[str, t.Any]) -> t.Mapping[str, t.Any]:
    """A definition of generic type as TOSCA writes it: ``map<string,boolean>`` is
    ``type: map`` with ``key_schema: string`` and ``entry_schema: boolean``."""
    found = generic(schema.get("type"))
    if not found or not found[0]:
        return schema
    base, args = found
    result = dict(schema)
    result["type"] = base
    result["entry_schema"] = {"type": args[-1]}
    if base == "map" and len(args) == 2:
        result["key_schema"] = {"type": args[0]}
    return result


def span_of(data: object, key: object = None) -> Span | None:
    """The span of ``data[key]``'s key (or of ``data``)."""
    if key is not None:
        spans = getattr(data, "key_spans", None)
        if spans and key in spans:
            return spans[key]  # type: ignore[no-any-return]
    return getattr(data, "span", None)


@dataclasses.dataclass
class TypeDef:
    """A declared type."""

    name: str
    kind: str
    data: YMap
    source: str
    span: Span | None
    #: where relative paths (artifacts) of this type resolve
    folder: Path
    builtin: bool = False
    #: the namespace prefix of the document that declares it
    prefix: str = ""

    @property
    def parent(self) -> str | None:
        derived = self.data.get("derived_from") if isinstance(self.data, dict) else None
        return str(derived) if isinstance(derived, str) else None


@functools.cache
def _builtin_documents() -> tuple[tuple[str, YMap], ...]:
    loaded = []
    for name in ("normative.yaml", "amp.yaml", "amp-policies.yaml"):
        path = _BUILTIN_DIR / name
        (data,) = load_all(path.read_text(encoding="utf-8"), f"<tosca>/{name}")
        loaded.append((name, t.cast(YMap, data)))
    return tuple(loaded)


class Registry:
    """Every type of one blueprint, by kind and name (also short names for normative types)."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.types: dict[str, dict[str, TypeDef]] = {kind: {} for kind in TYPE_KINDS}
        self.aliases: dict[str, dict[str, str]] = {kind: {} for kind in TYPE_KINDS}
        # merged definitions by (kind, type, section): types do not change once loaded,
        # and a topology asks for the same few types' definitions once per template
        self._merged: dict[tuple[str, str, str], dict[str, dict[str, t.Any]]] = {}
        self._chains: dict[tuple[str, str], list[TypeDef]] = {}
        for name, data in _builtin_documents():
            self._add_document(data, f"<tosca>/{name}", _BUILTIN_DIR, "", builtin=True)

    # -- building -----------------------------------------------------------------------
    def add(self, document: Document) -> None:
        self._add_document(document.data, document.source, document.path.parent,
                           document.prefix)

    def _add_document(self, data: YMap, source: str, folder: Path, prefix: str,
                      builtin: bool = False) -> None:
        for kind in TYPE_KINDS:
            section = data.get(kind)
            if section is None:
                continue
            if not isinstance(section, dict):
                self.problems.add(INVALID_TEMPLATE, f"{kind} is a map of type names to "
                                  "definitions", span_of(data, kind), source)
                continue
            for name, body in section.items():
                name = str(name)
                span = span_of(section, name)
                if body is None:
                    body = YMap()
                    body.span = span or data.span
                    body.key_spans, body.number_texts = {}, {}
                if not isinstance(body, dict):
                    self.problems.add(INVALID_TEMPLATE, "a type definition is a map", span,
                                      name)
                    continue
                if kind == "interface_types":
                    # the older grammar: operations directly under the interface type
                    body = t.cast(YMap, body)
                    self._old_operations(body, name)
                else:
                    self.check_keys(body, kind, f"{kind[:-6].replace('_', ' ')} type {name}",
                                    source)
                full = prefix + name
                known = self.types[kind].get(full)
                if known is not None and not known.builtin:
                    self.problems.add(INVALID_TEMPLATE, f"{kind[:-6]} type {name} is declared "
                                      f"twice (first at {known.span})", span, full)
                    continue
                self.types[kind][full] = TypeDef(full, kind, t.cast(YMap, body), source, span,
                                                 folder, builtin, prefix)
                if builtin and name.startswith(_SHORT_PREFIX[kind]):
                    short = name[len(_SHORT_PREFIX[kind]):]
                    self.aliases[kind][short] = name
                    self.aliases[kind][f"tosca:{short}"] = name
                    # the last segment too (PortDef, BlockStorage), unless two share it
                    last = short.rsplit(".", 1)[-1]
                    if last != short:
                        taken = self.aliases[kind].get(last)
                        self.aliases[kind][last] = name if taken in (None, name) else ""

    def _old_operations(self, body: YMap, name: str) -> None:
        """Keys of an interface type that are not keynames are operations; each is a
        map, an implementation file or empty."""
        for key, value in body.items():
            if key not in KEYNAMES["interface_types"] and not (
                    value is None or isinstance(value, (dict, str))):
                self.problems.add(INVALID_TEMPLATE, f"operation {key} is a map, a file or "
                                  "empty", span_of(body, key), f"interface type {name}")

    def check_keys(self, body: t.Mapping[str, t.Any], entity: str, name: str,
                   source: str) -> None:
        """Report every keyname of ``body`` that ``entity``'s grammar does not have."""
        allowed = KEYNAMES[entity]
        for key in body:
            if key not in allowed:
                self.problems.add(INVALID_TEMPLATE, f"unknown keyname {key!r} (expected one "
                                  f"of {', '.join(sorted(allowed))})", span_of(body, key),
                                  name)

    # -- lookups -------------------------------------------------------------------------
    def resolve(self, kind: str, name: object, prefix: str = "") -> TypeDef | None:
        if not isinstance(name, str):
            return None
        found = self.types[kind].get(prefix + name) if prefix else None
        found = found or self.types[kind].get(name)
        if found is None:
            alias = self.aliases[kind].get(name)
            if alias:
                found = self.types[kind].get(alias)
        return found

    def full_name(self, kind: str, name: str) -> str:
        found = self.resolve(kind, name)
        return found.name if found else name

    def chain(self, kind: str, name: str) -> list[TypeDef]:
        """The type and its ancestors, the type first; stops at a loop or an unknown parent."""
        known = self._chains.get((kind, name))
        if known is None:
            known = self._chains[(kind, name)] = self._chain(kind, name)
        return known

    def _chain(self, kind: str, name: str) -> list[TypeDef]:
        result: list[TypeDef] = []
        current = self.resolve(kind, name)
        while current is not None and current not in result:
            result.append(current)
            parent = current.parent
            if parent is None or (kind == "data_types" and parent in values.PRIMITIVES):
                break
            current = self.resolve(kind, parent, current.prefix)
        return result

    def derives(self, kind: str, name: object, ancestor: object) -> bool:
        """Whether type ``name`` is ``ancestor`` or derives from it."""
        if not isinstance(name, str) or not isinstance(ancestor, str):
            return False
        target = self.resolve(kind, ancestor)
        if target is None:
            return name == ancestor
        return any(d is target for d in self.chain(kind, name))

    def check_types(self) -> None:
        """derived_from of every declared type: known, same kind, no loop."""
        for kind, types in self.types.items():
            for definition in types.values():
                if definition.builtin:
                    continue
                parent = definition.parent
                if parent is None:
                    continue
                if kind == "data_types" and parent in values.PRIMITIVES:
                    continue
                if self.resolve(kind, parent, definition.prefix) is None:
                    self.problems.add(UNKNOWN_TYPE, f"derived_from names an unknown "
                                      f"{kind[:-6].replace('_', ' ')} type {parent!r}",
                                      span_of(definition.data, "derived_from"),
                                      f"{kind[:-6].replace('_', ' ')} type {definition.name}")
                    continue
                seen: list[str] = []
                current: TypeDef | None = definition
                while current is not None and current.parent:
                    if current.name in seen:
                        self.problems.add(INVALID_TEMPLATE, "derived_from loops: "
                                          + " -> ".join([*seen, current.name]),
                                          span_of(definition.data, "derived_from"),
                                          f"{kind[:-6].replace('_', ' ')} type "
                                          f"{definition.name}")
                        break
                    seen.append(current.name)
                    current = self.resolve(kind, current.parent, current.prefix)

    # -- merged definitions --------------------------------------------------------------
    def definitions(self, kind: str, name: str, section: str) -> dict[str, dict[str, t.Any]]:
        """``section`` (properties, attributes, capabilities, interfaces, artifacts) of a
        type with its ancestors', refinements merged in (root first)."""
        known = self._merged.get((kind, name, section))
        if known is None:
            known = self._merged[(kind, name, section)] = self._definitions(kind, name,
                                                                             section)
        return dict(known)

    def _definitions(self, kind: str, name: str, section: str) -> dict[str, dict[str, t.Any]]:
        merged: dict[str, dict[str, t.Any]] = {}
        for definition in reversed(self.chain(kind, name)):
            own = definition.data.get(section)
            if not isinstance(own, dict):
                continue
            for key, body in own.items():
                if isinstance(body, str):
                    body = {"type": body}
                if not isinstance(body, dict):
                    continue
                before = merged.get(key)
                entry = dict(before) if before else {}
                entry.update(body)
                if before and "constraints" in before and "constraints" in body:
                    entry["constraints"] = [*before["constraints"], *body["constraints"]]
                if before and section == "interfaces":
                    entry = refined_interface(before, body)
                entry["__owner__"] = definition
                entry["__span__"] = span_of(own, key)
                entry["__parent__"] = before
                merged[str(key)] = entry
        return merged

    def requirements(self, name: str) -> dict[str, dict[str, t.Any]]:
        """The requirement definitions of node type ``name`` (ancestors' first)."""
        known = self._merged.get(("node_types", name, "requirements"))
        if known is None:
            known = self._merged[("node_types", name, "requirements")] = \
                self._requirements(name)
        return dict(known)

    def _requirements(self, name: str) -> dict[str, dict[str, t.Any]]:
        merged: dict[str, dict[str, t.Any]] = {}
        for definition in reversed(self.chain("node_types", name)):
            own = definition.data.get("requirements")
            if not isinstance(own, list):
                continue
            for item in own:
                if not isinstance(item, dict) or len(item) != 1:
                    continue
                ((key, body),) = item.items()
                if isinstance(body, str):
                    body = {"capability": body}
                if not isinstance(body, dict):
                    continue
                before = merged.get(key, {})
                entry = dict(before)
                entry.update(body)
                # the seed: a requirement re-declared in a subtype intersects with its
                # parent's ("all must apply"); each declaration is kept, root first
                entry["__chain__"] = [*before.get("__chain__", []), body]
                entry["__owner__"] = definition
                entry["__span__"] = span_of(item, key)
                merged[str(key)] = entry
        return merged

    # -- values ----------------------------------------------------------------------------
    def check_value(self, value: object, schema: t.Mapping[str, t.Any], depth: int = 0
                    ) -> list[Finding]:
        """What is wrong with ``value`` as a value of ``schema`` (a property, attribute,
        parameter or entry schema definition)."""
        if is_function(value) or depth > 50:
            return []
        schema = expanded(schema)
        type_name = schema.get("type")
        if not isinstance(type_name, str):
            return []
        findings: list[Finding] = []
        base, constraints = self._base(type_name)
        if base is None:
            return []       # an unknown type is reported where it is declared
        if base in values.PRIMITIVES:
            why = values.check_primitive(base, value)
            if why is not None:
                return [(TYPE_MISMATCH, why if base == type_name else f"{why} ({type_name})")]
            if base == "list":
                entry = _schema(schema.get("entry_schema"))
                for item in t.cast(list[object], value):
                    findings += self.check_value(item, entry, depth + 1) if entry else []
            elif base == "map":
                entry = _schema(schema.get("entry_schema"))
                keys = _schema(schema.get("key_schema")) or {"type": "string"}
                for key, item in t.cast(dict[object, object], value).items():
                    findings += self.check_value(key, keys, depth + 1)
                    findings += self.check_value(item, entry, depth + 1) if entry else []
        else:
            findings += self._check_complex(value, base, depth)
        for clause in [*constraints, *(schema.get("constraints") or [])]:
            if isinstance(clause, dict) and len(clause) == 1 \
                    and values.check_constraint_clause(clause, base) is None:
                why = values.check_constraint(clause, base, value)
                if why is not None:
                    findings.append((CONSTRAINT_VIOLATION, why))
        return findings

    def completed(self, value: t.Any, schema: t.Mapping[str, t.Any], depth: int = 0) -> t.Any:
        """``value`` with the defaults (and fixed values) of its complex data types'
        properties filled in where it leaves them out, through lists and maps: TOSCA
        1.3 3.6.10 applies a property's default whenever no value is given, and an
        entry of a data type is no exception wherever the value came from."""
        schema = expanded(schema)
        type_name = schema.get("type")
        if is_function(value) or depth > 50 or not isinstance(type_name, str):
            return value
        base, _ = self._base(type_name)
        if base is None:
            return value
        entry = _schema(schema.get("entry_schema"))
        if base == "list" and isinstance(value, list) and entry:
            return [self.completed(item, entry, depth + 1) for item in value]
        if base == "map" and isinstance(value, dict) and entry:
            return {key: self.completed(item, entry, depth + 1) for key, item in value.items()}
        if base in values.PRIMITIVES or not isinstance(value, dict):
            return value
        result = dict(value)
        for key, field in self.definitions("data_types", base, "properties").items():
            if key in result:
                result[key] = self.completed(result[key], field, depth + 1)
            elif "value" in field:
                result[key] = field["value"]
            elif "default" in field:
                result[key] = self.completed(field["default"], field, depth + 1)
        return result

    def _base(self, type_name: str) -> tuple[str | None, list[t.Any]]:
        """The primitive a type derives from (or the data type itself when complex),
        and the constraints its data types add."""
        if type_name in values.PRIMITIVES:
            return type_name, []
        chain = self.chain("data_types", type_name)
        if not chain:
            return None, []
        constraints: list[t.Any] = []
        for definition in chain:
            constraints += list(definition.data.get("constraints") or [])
        root_parent = chain[-1].parent
        if root_parent in values.PRIMITIVES:
            return root_parent, constraints
        return chain[0].name, constraints

    def _check_complex(self, value: object, type_name: str, depth: int) -> list[Finding]:
        if not isinstance(value, dict):
            return [(TYPE_MISMATCH, f"{values._show(value)} is not {values.article(type_name)} "
                                    "(a map)")]
        fields = self.definitions("data_types", type_name, "properties")
        findings: list[Finding] = []
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                findings.append((TYPE_MISMATCH, f"{type_name} has no property {key!r}"))
                continue
            for kind, why in self.check_value(item, field, depth + 1):
                findings.append((kind, f"{key}: {why}"))
        for key, field in fields.items():
            if key not in value and field.get("required", True) is not False \
                    and "default" not in field:
                findings.append((MISSING_REQUIRED, f"{type_name} needs property {key!r}"))
        return findings


def _schema(raw: object) -> dict[str, t.Any] | None:
    if isinstance(raw, str):
        return {"type": raw}
    if isinstance(raw, dict):
        return dict(raw)
    return None


def _operations(interface: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The operations of an interface definition in either grammar."""
    ops = interface.get("operations")
    found: dict[str, t.Any] = dict(ops) if isinstance(ops, dict) else {}
    for key, body in interface.items():
        if key in KEYNAMES["interface_definition"] or str(key).startswith("__"):
            continue
        found[key] = body
    return found


operations = _operations


def inputs_of(holder: object) -> dict[str, t.Any]:
    """The ``inputs`` map of an operation or interface (empty when it has none)."""
    inputs = holder.get("inputs") if isinstance(holder, dict) else None
    return dict(inputs) if isinstance(inputs, dict) else {}


def refined_operation(before: object, op: object) -> object:
    """An operation definition refined by ``op`` (a subtype's or a template's): TOSCA
    1.3 3.6.17.3 refines what is given (an implementation given replaces the
    parent's) and keeps the rest, inputs merged name by name."""
    if before is None:
        return op
    old = before if isinstance(before, dict) else {"implementation": before}
    new = op if isinstance(op, dict) else {} if op is None else {"implementation": op}
    merged = {**old, **new}
    if "inputs" in old or "inputs" in new:
        merged["inputs"] = {**inputs_of(old), **inputs_of(new)}
    return merged


def refined_interface(before: t.Mapping[str, t.Any], body: t.Mapping[str, t.Any]
                      ) -> dict[str, t.Any]:
    """An interface definition refined by a subtype's: its inputs and each of its
    operations refined name by name (TOSCA 1.3 3.6.20.3)."""
    ops: dict[str, t.Any] = _operations(before)
    for name, op in _operations(body).items():
        ops[name] = refined_operation(ops.get(name), op)
    entry = {key: value for key, value in {**before, **body}.items()
             if key in KEYNAMES["interface_definition"] or str(key).startswith("__")}
    entry["operations"] = ops
    if "inputs" in before or "inputs" in body:
        entry["inputs"] = {**inputs_of(before), **inputs_of(body)}
    return entry
