"""Blueprints of the catalog added to an environment as an application: a CSAR
package's topology (docs/TOSCA.md, "TOSCA in the catalog") or an assembly
descriptor package (docs/DESCRIPTORS.md), named by the application's ``?.type``,
the application's other keys its inputs (docs/API.md, "The engine").

Here: which blueprint an application names, what its inputs are (as fields a
form draws: ``GET /v1/catalog/packages/{id}/inputs``), and whether values fit
them, in the front ends' own words (checked when the application is added to
a session, so that a form shows the refusal before anything is deployed)."""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path

from laguna.store.source import ProjectSource

TOSCA = "tosca"
ASSEMBLY = "assembly"
#: the prefix of an assembly descriptor's name (``assembly::NAME::VERSION``)
ASSEMBLY_PREFIX = "assembly::"


@dataclasses.dataclass(frozen=True)
class Named:
    """The blueprint an application names: its kind, the reference its front end
    reads (a CSAR package's name, a descriptor's full name) and the inputs."""

    kind: str
    reference: str
    inputs: dict[str, t.Any]


@dataclasses.dataclass(frozen=True)
class InputField:
    """One input of a blueprint as a form draws it: TOSCA's parameter definition
    (``constraints`` as written: ``[{in_range: [1, 9]}]``), or an assembly
    property (no constraints)."""

    name: str
    type: str
    required: bool
    description: str = ""
    default: t.Any = None
    has_default: bool = False
    constraints: tuple[t.Mapping[str, t.Any], ...] = ()
    entry_type: str | None = None

    def to_json(self) -> dict[str, t.Any]:
        shown: dict[str, t.Any] = {"name": self.name, "type": self.type,
                                   "required": self.required, "description": self.description,
                                   "constraints": [dict(c) for c in self.constraints]}
        if self.has_default:
            shown["default"] = self.default
        if self.entry_type is not None:
            shown["entry_schema"] = {"type": self.entry_type}
        return shown


def descriptor_named(kind: str, store: ProjectSource) -> str | None:
    """The descriptor an application type names: ``assembly::NAME::VERSION``
    exactly, or ``assembly::NAME`` for its highest version; None when the
    project's catalog has no such assembly descriptor."""
    if not kind.startswith(ASSEMBLY_PREFIX):
        return None
    names = [name for name, _ in store.descriptors() if name.startswith(ASSEMBLY_PREFIX)]
    if kind in names:
        return kind
    versions = [name for name in names if name.rsplit("::", 1)[0] == kind]
    if not versions:
        return None
    return max(versions, key=lambda name: _numbers(name.rsplit("::", 1)[-1]))


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


def named(application: t.Mapping[str, t.Any], store: ProjectSource) -> Named | None:
    """The catalog blueprint ``application`` names, or None (a MuranoPL class)."""
    header = application.get("?")
    kind = header.get("type") if isinstance(header, dict) else None
    if not isinstance(kind, str):
        return None
    inputs = {key: value for key, value in application.items() if key != "?"}
    name = kind.partition("/")[0]
    if store.tosca_packages(name):
        return Named(TOSCA, name, inputs)
    descriptor = descriptor_named(name, store)
    if descriptor is not None:
        return Named(ASSEMBLY, descriptor, inputs)
    return None


def only_application(model: t.Mapping[str, t.Any]) -> t.Mapping[str, t.Any] | None:
    """The model's application when it has exactly one."""
    objects = model.get("Objects")
    applications = objects.get("applications") if isinstance(objects, dict) else None
    if not isinstance(applications, list) or len(applications) != 1 \
            or not isinstance(applications[0], dict):
        return None
    return t.cast(t.Mapping[str, t.Any], applications[0])


# -- the inputs as fields ---------------------------------------------------------------
def tosca_fields(state_dir: Path, store: ProjectSource, reference: str) -> list[InputField]:
    """The inputs of the CSAR package ``reference`` names, as its entry template
    declares them (CatalogCsarError when the catalog has none)."""
    from laguna.frontends.tosca.csar import CatalogImports
    from laguna.frontends.tosca.documents import entry_of
    from laguna.yamlio import load_data
    _name, _version, folder = CatalogImports.of_workdir(state_dir, store).folder(reference)
    entry = entry_of(folder)
    data = load_data(entry.read_text(encoding="utf-8"), entry.name)
    topology = data.get("topology_template") if isinstance(data, dict) else None
    inputs = topology.get("inputs") if isinstance(topology, dict) else None
    fields = []
    for name, body in (inputs or {}).items():
        if not isinstance(body, dict) or "value" in body:
            continue            # a fixed value is no input a form asks for
        constraints = body.get("constraints") or []
        schema = body.get("entry_schema")
        fields.append(InputField(
            name=str(name), type=str(body.get("type", "string")),
            required=body.get("required", True) is not False,
            description=str(body.get("description") or ""),
            default=body.get("default"), has_default="default" in body,
            constraints=tuple(c for c in constraints if isinstance(c, dict)),
            entry_type=str(schema.get("type")) if isinstance(schema, dict) else None))
    return fields


def assembly_fields(state_dir: Path, store: ProjectSource, descriptor: str) -> list[InputField]:
    """The properties of assembly descriptor ``descriptor`` a deploy may give (not
    the read-only ones or those with a fixed value); DescriptorError when the
    catalog has none."""
    from laguna.frontends.assembly.sources import PackageCache, layered_catalog
    catalog = layered_catalog(PackageCache.of_workdir(state_dir), store=store)
    loaded = catalog.get(descriptor)
    return [InputField(name=prop.name, type=prop.type, required=prop.required,
                       default=prop.default, has_default=prop.has_default,
                       entry_type=prop.entry_schema.type if prop.entry_schema else None)
            for prop in loaded.properties.values()
            if not prop.read_only and not prop.has_value]


# -- the values checked -------------------------------------------------------------------
def refusals(state_dir: Path, store: ProjectSource, blueprint: Named) -> list[str]:
    """What is wrong with the blueprint's inputs, one line each in the front
    end's words (``input port: the value given: 80 is not in range [1024,
    65535]``; ``property 'count' (integer): "x" is not an integer``); none
    when they fit. Problems of the blueprint itself are the deploy's to say."""
    if blueprint.kind == TOSCA:
        return _tosca_refusals(state_dir, store, blueprint)
    return _assembly_refusals(state_dir, store, blueprint)


def _tosca_refusals(state_dir: Path, store: ProjectSource, blueprint: Named) -> list[str]:
    from laguna.frontends.tosca.csar import CatalogCsarError, CatalogImports
    from laguna.frontends.tosca.topology import load_topology
    catalog = CatalogImports.of_workdir(state_dir, store)
    try:
        _name, _version, folder = catalog.folder(blueprint.reference)
    except CatalogCsarError as error:
        return [error.message]
    _topology, problems = load_topology(folder, blueprint.inputs, catalog=catalog)
    return [f"{problem.entity}: {problem.message}" for problem in problems
            if problem.entity is not None and problem.entity.startswith("input ")]


def _assembly_refusals(state_dir: Path, store: ProjectSource, blueprint: Named) -> list[str]:
    from laguna.frontends.assembly.sources import PackageCache, layered_catalog
    from laguna.frontends.assembly.values import BadValue, convert
    catalog = layered_catalog(PackageCache.of_workdir(state_dir), store=store)
    descriptor = catalog.get(blueprint.reference)
    properties = descriptor.properties
    found = []
    for name, value in blueprint.inputs.items():
        prop = properties.get(name)
        if prop is None or prop.read_only or prop.has_value:
            given = ", ".join(n for n, p in properties.items()
                              if not p.read_only and not p.has_value) or "none"
            found.append(f"property {name!r} is not an input of {descriptor.name} "
                         f"(its inputs: {given})")
            continue
        try:
            convert(value, prop, descriptor.data_types)
        except BadValue as error:
            found.append(f"property {name!r} ({prop.type}): {error}")
    for name, prop in properties.items():
        if prop.required and not prop.has_default and not prop.has_value \
                and name not in blueprint.inputs:
            found.append(f"property {name!r} ({prop.type}): a value is required")
    return found
