"""Checks of the type definitions a blueprint declares (and the shared state of
a validation run): properties and their refinements, interfaces, operations,
artifacts, capability and requirement definitions.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import typing as t
import urllib.parse
from pathlib import Path

from laguna.frontends.tosca import blocking, filters, functions, values
from laguna.frontends.tosca.documents import Document, Location
from laguna.frontends.tosca.grammar import KEYNAMES, VERSIONS
from laguna.frontends.tosca.problems import (
    CHECKSUM_MISMATCH,
    INVALID_TEMPLATE,
    MISSING_ARTIFACT,
    MISSING_REQUIRED,
    TYPE_MISMATCH,
    UNKNOWN_TYPE,
    Problems,
)
from laguna.frontends.tosca.remote import FetchError, Fetcher, in_repository, is_url, repository
from laguna.frontends.tosca.types import (
    Registry,
    TypeDef,
    generic,
    generic_problem,
    is_function,
    operations,
    span_of,
)


#: interfaces a node may use without declaring them (AMP's)
CHECK_RUNNING = "brooklyn.tosca.interfaces.node.lifecycle.CheckRunning"
IMPLICIT_INTERFACES = {"CheckRunning": CHECK_RUNNING}


class CheckerBase:
    """The state of one validation run, and the checks of declared types."""

    def __init__(self, location: Location, documents: list[Document],
                 problems: Problems, fetcher: Fetcher | None = None) -> None:
        self.location = location
        self.fetcher = fetcher or Fetcher(None)
        #: URL -> its local copy, or why it could not be fetched
        self._fetched: dict[str, Path | str] = {}
        #: the folder of fetched documents -> a URL of one (they share its directory)
        self._remote_folders = {d.path.parent: d.url for d in documents if d.url}
        self.documents = documents
        self.main = documents[0]
        self.problems = problems
        self.registry = Registry(problems)
        self.inputs: dict[str, t.Any] = {}
        self.input_defs: dict[str, t.Any] = {}
        self.templates: dict[str, t.Any] = {}
        self.node_types: dict[str, str] = {}
        #: DynamicCluster templates: their members' count, and the cluster type of
        #: those whose member spec gave the template (clusters.py)
        self.cluster_sizes: dict[str, int] = {}
        self.cluster_types: dict[str, str] = {}
        self.relationship_templates: dict[str, t.Any] = {}
        self._files: dict[tuple[str, Path], Path | None] = {}
        #: (node, requirement) pairs substitution mappings export
        self._substituted: set[tuple[str, str]] = set()
        #: the artifact definitions of the node template being checked (an operation's
        #: implementation may name one of AMP's built-in type)
        self.artifact_definitions: dict[str, object] = {}

    def _resolve(self, file: str, folder: Path) -> Path | None:
        """:func:`resolve_file` (a URL: its fetched copy), once per file and folder in a
        run."""
        remote = self._remote_folders.get(folder)
        if remote is not None and not is_url(file) and not file.startswith(
                ("/", "classpath://")):
            # declared in a fetched file: relative to that file's URL
            file = urllib.parse.urljoin(remote, file)
        if is_url(file):
            found = self._fetch(file, None)
            return found if isinstance(found, Path) else None
        key = (file, folder)
        if key not in self._files:
            local = resolve_file(file, folder, self.location.root)
            self._files[key] = local if local is not None and self.location.holds(local) \
                else None
        return self._files[key]

    def _fetch(self, url: str, credential: object) -> Path | str:
        """The local copy of ``url``, or why there is none; fetched once a run."""
        if url not in self._fetched:
            try:
                self._fetched[url] = self.fetcher.fetch(
                    url, credential if isinstance(credential, dict) else None)
            except FetchError as exc:
                self._fetched[url] = f"cannot fetch {url}: {exc}"
        return self._fetched[url]

    def _artifact_file(self, body: t.Mapping[str, t.Any], folder: Path) -> Path | str:
        """An artifact's file: in its repository, at its URL or in the blueprint; the
        local path, or why there is none."""
        file = str(body.get("file"))
        name = body.get("repository")
        if name is not None:
            found = repository(name, *(d.data.get("repositories") for d in self.documents))
            if found is None:
                return f"repository {name!r} is not declared in repositories"
            return self._fetch(in_repository(found[0], file), found[1])
        if is_url(file):
            return self._fetch(file, None)
        return self._resolve(file, folder) or f"file {file} does not exist"

    def add(self, kind: str, message: str, data: object, key: object, entity: str) -> None:
        self.problems.add(kind, message, span_of(data, key) or self.main.data.span, entity)

    def _keys(self, body: t.Mapping[str, t.Any], entity: str, name: str) -> None:
        allowed = KEYNAMES[entity]
        for key in body:
            if key not in allowed:
                self.add(INVALID_TEMPLATE, f"unknown keyname {key!r} (expected one of "
                         f"{', '.join(sorted(allowed))})", body, key, name)

    def _check_header(self, document: Document) -> None:
        data = document.data
        version = data.get("tosca_definitions_version")
        if version is None and document is not self.main:
            pass    # an imported file of types only may leave it out (tosca-parser's do)
        elif version is None:
            self.problems.add(MISSING_REQUIRED, "tosca_definitions_version is missing",
                              data.span, document.source)
        elif version not in VERSIONS:
            self.add(INVALID_TEMPLATE, f"unsupported tosca_definitions_version {version!r} "
                     f"(expected one of {', '.join(VERSIONS)})", data,
                     "tosca_definitions_version", document.source)
        self._keys(data, "service_template", document.source)
        repositories = data.get("repositories")
        if isinstance(repositories, dict):
            for name, body in repositories.items():
                if isinstance(body, dict):
                    self._keys(body, "repository", f"repository {name}")
                    if "url" not in body:
                        self.add(MISSING_REQUIRED, "a repository needs a url", repositories,
                                 name, f"repository {name}")
                elif not isinstance(body, str):
                    self.add(INVALID_TEMPLATE, "a repository is a URL or a map", repositories,
                             name, f"repository {name}")

    # -- types ---------------------------------------------------------------------------
    def _check_type(self, definition: TypeDef) -> None:
        data, kind, name = definition.data, definition.kind, definition.name
        entity = f"{kind[:-6].replace('_', ' ')} type {name}"
        parent = definition.parent
        if kind == "data_types" and parent in values.PRIMITIVES:
            pass
        for section, grammar in (("properties", "property"), ("attributes", "attribute")):
            own = data.get(section)
            if own is None:
                continue
            if not isinstance(own, dict):
                self.add(INVALID_TEMPLATE, f"{section} is a map", data, section, entity)
                continue
            merged = self.registry.definitions(kind, name, section)
            for key, body in own.items():
                self._check_definition(own, key, body, grammar, f"{entity}",
                                       merged.get(str(key), {}).get("__parent__"))
        if kind == "data_types":
            for clause in data.get("constraints") or []:
                self._check_clause(clause, data, "constraints", entity,
                                   str(parent) if parent else "string")
        if kind == "interface_types":
            self._check_parameters(data.get("inputs"), data, entity)
            for op_name, op in operations(data).items():
                if op_name in ("inputs",):
                    continue
                self._check_operation(op, data, op_name, entity, definition.folder, None,
                                      declared_only=True)
        if kind in ("node_types", "relationship_types", "group_types"):
            self._check_interface_defs(definition, entity)
        if kind == "node_types":
            self._check_capability_defs(definition, entity)
            self._check_requirement_defs(definition, entity)
            self._check_artifacts(data.get("artifacts"), data, entity, definition.folder)
        if kind == "relationship_types":
            for target in data.get("valid_target_types") or []:
                if self.registry.resolve("capability_types", target) is None:
                    self.add(UNKNOWN_TYPE, f"unknown capability type {target!r}", data,
                             "valid_target_types", entity)
        if kind in ("group_types", "policy_types"):
            for member in data.get("members" if kind == "group_types" else "targets") or []:
                if self.registry.resolve("node_types", member) is None and \
                        self.registry.resolve("group_types", member) is None:
                    self.add(UNKNOWN_TYPE, f"unknown node or group type {member!r}", data,
                             "members" if kind == "group_types" else "targets", entity)

    def _check_definition(self, section: t.Mapping[str, t.Any], key: object, body: object,
                          grammar: str, entity: str,
                          parent: t.Mapping[str, t.Any] | None) -> None:
        where = f"{entity}: {'property' if grammar != 'attribute' else 'attribute'} {key}"
        if isinstance(body, str) and grammar != "parameter":
            body = {"type": body}
        if not isinstance(body, dict):
            self.add(INVALID_TEMPLATE, "a definition is a map", section, key, entity)
            return
        self.registry.check_keys(body, grammar, where, "")
        type_name = body.get("type")
        if type_name is None and parent is None and grammar != "parameter":
            self.add(MISSING_REQUIRED, f"{key}: a definition needs a type", section, key,
                     entity)
            return
        if type_name is not None and not self._known_data_type(type_name):
            self.add(UNKNOWN_TYPE, f"{key}: {self._type_problem(type_name)}", body, "type",
                     entity)
            return
        if parent is not None:
            if "value" in parent:
                self.add(INVALID_TEMPLATE, f"{key}: refines a property whose value is fixed "
                         f"({values._show(parent['value'])}) by its parent type", section, key,
                         entity)
            if grammar == "property" and body.get("required") is False \
                    and parent.get("required", True) is not False:
                # the seed's refinements: "Turning an optional property into a required
                # property. No other refinements are allowed."
                self.add(INVALID_TEMPLATE, f"{key}: refines a required property as optional; "
                         "a refinement may only turn an optional property into a required one",
                         body, "required", entity)
            parent_type = parent.get("type")
            if type_name is not None and parent_type is not None and type_name != parent_type \
                    and not self.registry.derives("data_types", type_name, parent_type):
                self.add(TYPE_MISMATCH, f"{key}: refines type {parent_type} with {type_name}, "
                         "which does not derive from it", body, "type", entity)
        schema = dict(parent or {})
        schema.update(body)
        if parent and "constraints" in parent and "constraints" in body:
            schema["constraints"] = [*parent["constraints"], *body["constraints"]]
        for sub in ("entry_schema", "key_schema"):
            raw = body.get(sub)
            sub_type = raw if isinstance(raw, str) else raw.get("type") if isinstance(raw, dict) \
                else None
            if raw is not None and not self._known_data_type(sub_type):
                self.add(UNKNOWN_TYPE, f"{key}: {sub} names unknown data type {sub_type!r}",
                         body, sub, entity)
                return
            if isinstance(raw, dict):
                self.registry.check_keys(raw, "schema", where, "")
        for clause in body.get("constraints") or []:
            self._check_clause(clause, body, "constraints", where,
                               str(schema.get("type") or "string"))
        for value_key in ("default", "value"):
            if value_key in body and body[value_key] is not None:
                for kind, why in self.registry.check_value(body[value_key], schema):
                    self.add(kind, f"{key}: {value_key} {why}", body, value_key, entity)

    def _assign(self, assigned: object, defs: dict[str, dict[str, t.Any]], data: object,
                section: str, entity: str, strict: bool = True, required: bool = True
                ) -> dict[str, t.Any]:
        """Property (or attribute) assignments checked against definitions; the values
        with defaults filled in."""
        result: dict[str, t.Any] = {}
        if assigned is None:
            assigned = {}
        if not isinstance(assigned, dict):
            self.add(INVALID_TEMPLATE, f"{section} is a map", data, section, entity)
            assigned = {}
        word = "property" if section == "properties" else "attribute"
        for key, value in assigned.items():
            definition = defs.get(str(key))
            if definition is None:
                if strict:
                    self.add(INVALID_TEMPLATE, f"unknown {word} {key!r}", assigned, key, entity)
                result[str(key)] = value
                continue
            if "value" in definition:
                self.add(INVALID_TEMPLATE, f"{word} {key} has the fixed value "
                         f"{values._show(definition['value'])}; it cannot be assigned",
                         assigned, key, entity)
                continue
            for kind, why in self.registry.check_value(value, definition):
                self.add(kind, f"{word} {key}: {why}", assigned, key, entity)
            value = written(assigned, key, value)
            result[str(key)] = self.registry.completed(self._with_inputs(value), definition)
        for key, definition in defs.items():
            if key in result:
                continue
            if "value" in definition:
                result[key] = definition["value"]
            elif "default" in definition:
                result[key] = self.registry.completed(definition["default"], definition)
            elif required and section == "properties" \
                    and definition.get("required", True) is not False:
                self.add(MISSING_REQUIRED, f"property {key} is required", data,
                         section if isinstance(data, dict) and section in data else None,
                         entity)
        return result

    def _with_inputs(self, value: t.Any) -> t.Any:
        """``value`` with each get_input of a known input replaced by the input's
        value: inputs are fixed for the whole deploy, and only a value can get the
        defaults of the data type the property declares."""
        if is_function(value):
            ((name, args),) = value.items()
            ref = args[0] if isinstance(args, list) and args else args
            if name != "get_input" or not isinstance(ref, str) or ref not in self.inputs:
                return value
            result = self.inputs[ref]
            for step in args[1:] if isinstance(args, list) else []:
                try:
                    result = result[step]
                except (LookupError, TypeError):
                    return value    # reported by the function checks
            return copy.deepcopy(result)
        if isinstance(value, dict):
            items = {k: self._with_inputs(v) for k, v in value.items()}
            # unchanged values keep their positions (YAML maps)
            return value if all(items[k] is v for k, v in value.items()) else items
        if isinstance(value, list):
            entries = [self._with_inputs(v) for v in value]
            return value if all(a is b for a, b in zip(entries, value)) else entries
        return value

    def _known_data_type(self, name: object) -> bool:
        if generic(name) is not None:
            return generic_problem(t.cast(str, name), self._known_data_type) is None
        return isinstance(name, str) and (name in values.PRIMITIVES or
                                          self.registry.resolve("data_types", name) is not None)

    def _type_problem(self, name: object) -> str:
        """Why ``name`` is no data type (for a generic, which part)."""
        if isinstance(name, str):
            why = generic_problem(name, self._known_data_type)
            if why is not None:
                return why
        return f"unknown data type {name!r}"

    def _check_clause(self, clause: object, data: object, key: str, entity: str,
                      type_name: str) -> None:
        why = values.check_constraint_clause(clause, type_name)
        if why:
            self.add(why[0], why[1], data, key, entity)

    def _check_parameters(self, params: object, data: object, entity: str) -> None:
        if params is None:
            return
        if not isinstance(params, dict):
            self.add(INVALID_TEMPLATE, "inputs is a map", data, "inputs", entity)
            return
        for key, body in params.items():
            if isinstance(body, dict) and "type" in body and not is_function(body):
                self._check_definition(params, key, body, "parameter", entity, None)

    def _check_interface_defs(self, definition: TypeDef, entity: str) -> None:
        own = definition.data.get("interfaces")
        if own is None:
            return
        if not isinstance(own, dict):
            self.add(INVALID_TEMPLATE, "interfaces is a map", definition.data, "interfaces",
                     entity)
            return
        merged = self.registry.definitions(definition.kind, definition.name, "interfaces")
        # an operation may name one of the type's artifacts of AMP's built-in types
        self.artifact_definitions = dict(self.registry.definitions(
            definition.kind, definition.name, "artifacts")) \
            if definition.kind == "node_types" else {}
        for name, body in own.items():
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, f"interface {name} is a map", own, name, entity)
                continue
            type_name = merged.get(str(name), {}).get("type")
            if type_name is None:
                self.add(MISSING_REQUIRED, f"interface {name} needs a type", own, name, entity)
                continue
            interface_type = self.registry.resolve("interface_types", type_name)
            if interface_type is None:
                self.add(UNKNOWN_TYPE, f"interface {name}: unknown interface type "
                         f"{type_name!r}", body, "type", entity)
                continue
            known = self._interface_operations(interface_type.name)
            self._check_parameters(body.get("inputs"), body, entity)
            for op_name, op in operations(body).items():
                if op_name not in known and "operations" not in body:
                    # the older grammar: undeclared operations are allowed only in the
                    # 1.3 operations: keyname
                    pass
                self._check_operation(op, body, op_name, f"{entity}: interface {name}",
                                      definition.folder, None)
        self.artifact_definitions = {}

    def _interface_operations(self, type_name: str) -> set[str]:
        found: set[str] = set()
        for definition in self.registry.chain("interface_types", type_name):
            found.update(k for k in operations(definition.data)
                         if k not in ("inputs", "derived_from"))
        return found

    def _check_operation(self, op: object, parent: object, name: object, entity: str,
                         folder: Path, artifacts: t.Mapping[str, Path] | None,
                         declared_only: bool = False) -> None:
        if op is None or isinstance(op, str):
            implementation: object = op
            body: t.Mapping[str, t.Any] = {}
        elif isinstance(op, dict):
            self.registry.check_keys(op, "operation_definition", f"{entity}: operation {name}",
                                     "")
            body = op
            implementation = op.get("implementation")
            self._check_parameters(op.get("inputs"), op, entity)
        else:
            self.add(INVALID_TEMPLATE, f"operation {name} is a script name or a map", parent,
                     name, entity)
            return
        if implementation is None:
            return
        files: list[tuple[object, object, object]] = []
        if isinstance(implementation, str):
            files.append((implementation, body or parent, "implementation" if body else name))
        elif isinstance(implementation, dict):
            self.registry.check_keys(implementation, "implementation",
                                     f"{entity}: operation {name}", "")
            files.append((implementation.get("primary"), implementation, "primary"))
            for dependency in implementation.get("dependencies") or []:
                files.append((dependency, implementation, "dependencies"))
        else:
            self.add(INVALID_TEMPLATE, f"operation {name}: implementation is a file or a map",
                     body, "implementation", entity)
            return
        if declared_only or blocking.builtin_of(self.registry, implementation,
                                                self.artifact_definitions) is not None:
            return
        for file, data, key in files:
            if isinstance(file, dict):
                self._check_artifact(file, data, key, entity, folder)
                continue
            if not isinstance(file, str):
                continue
            if artifacts is not None and file in artifacts:
                continue
            if self._resolve(file, folder) is None:
                found = self._fetched.get(file) if is_url(file) else None
                why = found if isinstance(found, str) else f"artifact file {file} does not " \
                    "exist"
                self.add(MISSING_ARTIFACT, f"operation {name}: {why}", data, key, entity)

    def _check_artifact(self, body: t.Mapping[str, t.Any], data: object, key: object,
                        entity: str, folder: Path) -> Path | None:
        self.registry.check_keys(body, "artifact", f"{entity}: artifact {key}", "")
        type_name = body.get("type")
        if type_name is not None and self.registry.resolve("artifact_types", type_name) is None:
            self.add(UNKNOWN_TYPE, f"artifact {key}: unknown artifact type {type_name!r}",
                     body, "type", entity)
        if blocking.builtin_type(self.registry, type_name) is not None:
            return None     # AMP's NoOp and BlockUntilRunning: no file to run
        file = body.get("file")
        if not isinstance(file, str):
            self.add(MISSING_REQUIRED, f"artifact {key} needs a file", data, key, entity)
            return None
        found = self._artifact_file(body, folder)
        if isinstance(found, str):
            spanned = "file" in getattr(body, "key_spans", {})
            self.add(MISSING_ARTIFACT, f"artifact {key}: {found}",
                     body if spanned else data, "file" if spanned else key, entity)
            return None
        self._check_checksum(body, found, key, entity)
        return found

    def _check_checksum(self, body: t.Mapping[str, t.Any], file: Path, key: object,
                        entity: str) -> None:
        """An artifact's ``checksum`` against its file (the fetched copy of a URL), so
        that a wrong file is refused before anything runs."""
        checksum = body.get("checksum")
        if checksum is None:
            return
        # a checksum of digits only reads as a number: its text as written counts
        checksum = getattr(body, "number_texts", {}).get("checksum", checksum)
        algorithm = body.get("checksum_algorithm")
        if algorithm is None:
            # TOSCA 1.3 3.6.7: "Shall be specified if checksum is specified"
            self.add(MISSING_REQUIRED, f"artifact {key}: checksum_algorithm is required "
                     "with checksum", body, "checksum", entity)
            return
        name = CHECKSUM_ALGORITHMS.get(str(algorithm).upper().replace("-", "").replace(
            "_", ""))
        if name is None:
            self.add(INVALID_TEMPLATE, f"artifact {key}: unknown checksum_algorithm "
                     f"{algorithm!r} (laguna knows {', '.join(CHECKSUM_NAMES)})", body,
                     "checksum_algorithm", entity)
            return
        digest = hashlib.new(name, file.read_bytes()).hexdigest()
        if str(checksum).strip().lower() != digest:
            self.add(CHECKSUM_MISMATCH, f"artifact {key}: {file.name} has {algorithm} "
                     f"checksum {digest}, not {checksum}", body, "checksum", entity)

    def _check_artifacts(self, artifacts: object, data: object, entity: str,
                         folder: Path) -> dict[str, Path]:
        found: dict[str, Path] = {}
        if artifacts is None:
            return found
        if not isinstance(artifacts, dict):
            self.add(INVALID_TEMPLATE, "artifacts is a map", data, "artifacts", entity)
            return found
        for name, body in artifacts.items():
            if isinstance(body, str):
                body = {"file": body}
                where: object = artifacts
            else:
                where = body
            if not isinstance(body, dict):
                self.add(INVALID_TEMPLATE, f"artifact {name} is a file or a map", artifacts,
                         name, entity)
                continue
            path = self._check_artifact(body, where, name, entity, folder)
            if path is not None:
                found[str(name)] = path
        return found

    def _check_capability_defs(self, definition: TypeDef, entity: str) -> None:
        own = definition.data.get("capabilities")
        if not isinstance(own, dict):
            return
        for name, body in own.items():
            if isinstance(body, str):
                body = {"type": body}
            if not isinstance(body, dict):
                continue
            self.registry.check_keys(body, "capability_definition",
                                     f"{entity}: capability {name}", "")
            type_name = body.get("type")
            if type_name is not None and \
                    self.registry.resolve("capability_types", type_name) is None:
                self.add(UNKNOWN_TYPE, f"capability {name}: unknown capability type "
                         f"{type_name!r}", own, name, entity)
            if body.get("node_filter") is not None:
                filters.parse(body["node_filter"], body, "node_filter",
                              f"{entity}: requirement {name}", self.add)
            occurrences = body.get("occurrences")
            if occurrences is not None and not values.is_range(occurrences):
                self.add(INVALID_TEMPLATE, f"capability {name}: occurrences is a range",
                         body, "occurrences", entity)

    def _check_requirement_defs(self, definition: TypeDef, entity: str) -> None:
        own = definition.data.get("requirements")
        if own is None:
            return
        if not isinstance(own, list):
            self.add(INVALID_TEMPLATE, "requirements is a list of single-key maps",
                     definition.data, "requirements", entity)
            return
        for item in own:
            if not isinstance(item, dict) or len(item) != 1:
                self.add(INVALID_TEMPLATE, "a requirement definition is a map of one name",
                         item, None, entity)
                continue
            ((name, body),) = item.items()
            if isinstance(body, str):
                body = {"capability": body}
            if not isinstance(body, dict):
                continue
            self.registry.check_keys(body, "requirement_definition",
                                     f"{entity}: requirement {name}", "")
            capability = body.get("capability")
            if capability is None:
                self.add(MISSING_REQUIRED, f"requirement {name} needs a capability", item,
                         name, entity)
            elif self.registry.resolve("capability_types", capability) is None:
                self.add(UNKNOWN_TYPE, f"requirement {name}: unknown capability type "
                         f"{capability!r}", body, "capability", entity)
            node = body.get("node")
            if node is not None and self.registry.resolve("node_types", node) is None:
                self.add(UNKNOWN_TYPE, f"requirement {name}: unknown node type {node!r}",
                         body, "node", entity)
            relationship = body.get("relationship")
            rel_type = relationship.get("type") if isinstance(relationship, dict) \
                else relationship
            if rel_type is not None and \
                    self.registry.resolve("relationship_types", rel_type) is None:
                self.add(UNKNOWN_TYPE, f"requirement {name}: unknown relationship type "
                         f"{rel_type!r}", body, "relationship", entity)
            if body.get("node_filter") is not None:
                filters.parse(body["node_filter"], body, "node_filter",
                              f"{entity}: requirement {name}", self.add)
            occurrences = body.get("occurrences")
            if occurrences is not None and not values.is_range(occurrences):
                self.add(INVALID_TEMPLATE, f"requirement {name}: occurrences is a range "
                         "[min, max]", body, "occurrences", entity)

    # -- the topology --------------------------------------------------------------------
    def _functions(self, value: object, self_node: str | None, data: object, key: object,
                   entity: str, relationship: bool = False) -> None:
        """Report every problem of the functions in ``value`` (at the function when it
        has a place, else at ``data[key]``)."""
        if value is None:
            return
        for kind, why, span in functions.check(value, Scope(self), self_node, relationship):
            if span is not None:
                self.problems.add(kind, why, span, entity)
            else:
                self.add(kind, why, data, key, entity)



class Scope:
    """What the function checks see of a :class:`Checker`."""

    def __init__(self, checker: CheckerBase) -> None:
        self.checker = checker
        self.inputs: t.Collection[str] = checker.input_defs

    def node_names(self) -> t.Collection[str]:
        return self.checker.templates

    def relationship_names(self) -> t.Collection[str]:
        return self.checker.relationship_templates

    def has_type(self, type_name: str) -> bool:
        return self.checker.registry.resolve("node_types", type_name) is not None

    def _type(self, node: str) -> str | None:
        return self.checker.node_types.get(node)

    def properties_of(self, node: str) -> t.Collection[str]:
        type_name = self._type(node)
        return self.checker.registry.definitions("node_types", type_name, "properties") \
            if type_name else ()

    def capabilities_of(self, node: str) -> t.Mapping[str, t.Collection[str]]:
        type_name = self._type(node)
        if not type_name:
            return {}
        reg = self.checker.registry
        return {name: reg.definitions("capability_types", str(d.get("type")), "properties")
                for name, d in reg.definitions("node_types", type_name,
                                               "capabilities").items()}

    def requirements_of(self, node: str) -> t.Collection[str]:
        type_name = self._type(node)
        return self.checker.registry.requirements(type_name) if type_name else ()

    def artifacts_of(self, node: str) -> t.Collection[str]:
        type_name = self._type(node)
        names = set(self.checker.registry.definitions("node_types", type_name, "artifacts")) \
            if type_name else set()
        body = self.checker.templates.get(node)
        if isinstance(body, dict) and isinstance(body.get("artifacts"), dict):
            names.update(body["artifacts"])
        return names

    def interfaces_of(self, node: str) -> t.Mapping[str, t.Collection[str]]:
        type_name = self._type(node)
        if not type_name:
            return {}
        reg = self.checker.registry
        result: dict[str, set[str]] = {}
        for name, d in reg.definitions("node_types", type_name, "interfaces").items():
            result[name] = set(operations(d)) | self.checker._interface_operations(
                reg.full_name("interface_types", str(d.get("type"))))
        body = self.checker.templates.get(node)
        if isinstance(body, dict) and isinstance(body.get("interfaces"), dict):
            for name, iface in body["interfaces"].items():
                if isinstance(iface, dict):
                    result.setdefault(str(name), set()).update(operations(iface))
        return result


def param_values(params: object) -> dict[str, t.Any]:
    """Operation or interface inputs as values: assignments as they are, definitions
    by their value or default."""
    result: dict[str, t.Any] = {}
    if not isinstance(params, dict):
        return result
    for key, value in params.items():
        if isinstance(value, dict) and not is_function(value) and (
                "type" in value or "default" in value or "value" in value):
            if "value" in value:
                result[str(key)] = value["value"]
            elif "default" in value:
                result[str(key)] = value["default"]
            continue
        result[str(key)] = value
    return result


#: the names checksum_algorithm may give (in any case, with or without ``-``), as
#: hashlib knows them
CHECKSUM_ALGORITHMS = {"MD5": "md5", "SHA1": "sha1", "SHA224": "sha224",
                       "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512"}
CHECKSUM_NAMES = ("MD5", "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512")


def fixed_values(params: object) -> dict[str, t.Any]:
    """The inputs that parameter definitions fix with ``value``."""
    if not isinstance(params, dict):
        return {}
    return {str(key): body["value"] for key, body in params.items()
            if isinstance(body, dict) and not is_function(body) and "value" in body}


def written(holder: object, key: object, value: t.Any) -> t.Any:
    """A timestamp as it was written (``holder[key]``); other values as they are."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        texts = getattr(holder, "number_texts", {})
        return texts.get(key, value.isoformat())
    return value


def resolve_file(file: str, folder: Path, root: Path) -> Path | None:
    """An artifact file: relative to the declaring file's folder; ``classpath://`` and
    absolute-in-CSAR paths relative to the blueprint's root."""
    if file.startswith("classpath://"):
        candidates = [root / file[len("classpath://"):].lstrip("/")]
    elif file.startswith("/"):
        candidates = [Path(file), root / file.lstrip("/")]
    else:
        candidates = [folder / file, root / file]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    return None
