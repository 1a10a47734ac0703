"""What a package's archive says that the API's view of a package does not:
a MuranoPL package's requirements (its manifest's ``Require``), a TOSCA
template's inputs, node templates and outputs, a descriptor's properties,
composition and relationships.

The archive comes from the API (``GET /v1/catalog/packages/{id}/download``)
and was checked when it was imported; it is still read as untrusted: only the
few files named here, each bounded before it is read, as YAML data under the
bounds of :func:`laguna.yamlio.loader.load_data`. Nothing of it runs.
"""

from __future__ import annotations

import dataclasses
import io
import json
import typing as t
import zipfile

from laguna.errors import LagunaError
from laguna.yamlio.loader import YamlError, load_data

#: the largest file of an archive read for a package's page
MAX_FILE = 1024 * 1024
#: where a descriptor package keeps its descriptor (lmctl's layout, docs/DESCRIPTORS.md)
DESCRIPTORS = "Definitions/lm/"
TOSCA_META = "TOSCA-Metadata/TOSCA.meta"
#: a package's version when it gives none (a Murano manifest's default)
DEFAULT_VERSION = "0.0.0"


class Unreadable(LagunaError):
    """The archive, or a file of it, cannot be shown on the package's page: what
    is wrong (the page says so in place of the sections)."""

    code = "LAG-E1720"


@dataclasses.dataclass(frozen=True)
class Row:
    """One named entry of a table on a package's page; ``facts`` in its columns' order."""

    name: str
    facts: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Section:
    """A table of a package's page: its title (its accessible name) and columns."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclasses.dataclass(frozen=True)
class Contents:
    """What a package's page shows of its archive: the file read, the version
    the package gives itself (the API's view of a package has none, as
    Murano's had none), its sections."""

    source: str
    version: str
    sections: tuple[Section, ...]


def contents(package_type: str, archive: bytes) -> Contents:
    """The sections of the page of a package of ``package_type`` (the API's ``type``)."""
    try:
        files = zipfile.ZipFile(io.BytesIO(archive))
    except zipfile.BadZipFile as error:
        raise Unreadable(f"the package's archive is not a zip file: {error}") from None
    with files:
        if package_type == "Tosca":
            return _tosca(files)
        if package_type in ("Assembly", "Resource"):
            return _descriptor(files)
        return _muranopl(files)


def _read(files: zipfile.ZipFile, name: str) -> t.Any:
    try:
        info = files.getinfo(name)
    except KeyError:
        raise Unreadable(f"the archive has no {name}") from None
    if info.file_size > MAX_FILE:
        raise Unreadable(f"{name} is larger than {MAX_FILE} bytes")
    with files.open(info) as opened:
        data = opened.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise Unreadable(f"{name} is larger than {MAX_FILE} bytes")
    try:
        return load_data(data.decode("utf-8"), name, dates=False)
    except UnicodeDecodeError:
        raise Unreadable(f"{name} is not UTF-8 text") from None
    except YamlError as error:
        raise Unreadable(str(error)) from None


def _mapping(value: t.Any) -> dict[str, t.Any]:
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


def _text(value: t.Any) -> str:
    """A value as one line: strings as they are, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, sort_keys=True)


# -- MuranoPL ----------------------------------------------------------------------------


def _muranopl(files: zipfile.ZipFile) -> Contents:
    manifest = _mapping(_read(files, "manifest.yaml"))
    required = _mapping(manifest.get("Require"))
    rows = tuple(Row(name, (_text(spec) or "any version",))
                 for name, spec in sorted(required.items()))
    return Contents("manifest.yaml", _text(manifest.get("Version")) or DEFAULT_VERSION,
                    (Section("Requirements", ("Package", "Version"), rows),))


# -- TOSCA -------------------------------------------------------------------------------


def _meta(files: zipfile.ZipFile) -> dict[str, str]:
    """The fields of a CSAR's TOSCA.meta (empty without one)."""
    if TOSCA_META not in files.namelist():
        return {}
    info = files.getinfo(TOSCA_META)
    if info.file_size > MAX_FILE:
        raise Unreadable(f"{TOSCA_META} is larger than {MAX_FILE} bytes")
    fields: dict[str, str] = {}
    for line in files.read(info).decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(":")
        if value.strip():
            fields.setdefault(key.strip(), value.strip())
    return fields


def _entry(files: zipfile.ZipFile, meta: dict[str, str]) -> str:
    """A CSAR's entry template: TOSCA.meta's ``Entry-Definitions``, else the one
    YAML file at the root (docs/TOSCA.md, "TOSCA in the catalog")."""
    if meta:
        if "Entry-Definitions" not in meta:
            raise Unreadable(f"{TOSCA_META} has no Entry-Definitions")
        return meta["Entry-Definitions"]
    roots = [name for name in files.namelist()
             if "/" not in name and name.endswith((".yaml", ".yml"))]
    if len(roots) != 1:
        raise Unreadable("the CSAR has no TOSCA.meta and not exactly one YAML file at its root")
    return roots[0]


def _constraints(definition: dict[str, t.Any]) -> str:
    listed = definition.get("constraints")
    if not isinstance(listed, list):
        return ""
    return "; ".join(", ".join(f"{key}: {_text(value)}" for key, value in _mapping(c).items())
                     for c in listed)


def _tosca(files: zipfile.ZipFile) -> Contents:
    meta = _meta(files)
    entry = _entry(files, meta)
    template = _mapping(_read(files, entry))
    version = _text(_mapping(template.get("metadata")).get("template_version")) \
        or meta.get("Template-Version") or DEFAULT_VERSION
    topology = _mapping(template.get("topology_template"))
    inputs = tuple(
        Row(name, (_text(d.get("type")), _text(d.get("default")), _constraints(d),
                   "yes" if d.get("required", True) and "default" not in d else "no",
                   _text(d.get("description"))))
        for name, d in ((name, _mapping(d)) for name, d in _mapping(topology.get("inputs")).items()))
    nodes = tuple(
        Row(name, (_text(d.get("type")), ", ".join(
            f"{key}: {_text(target)}" for requirement in d.get("requirements") or []
            for key, target in _mapping(requirement).items())))
        for name, d in ((name, _mapping(d))
                        for name, d in _mapping(topology.get("node_templates")).items()))
    outputs = tuple(
        Row(name, (_text(d.get("value")), _text(d.get("description"))))
        for name, d in ((name, _mapping(d)) for name, d in _mapping(topology.get("outputs")).items()))
    return Contents(entry, version, (
        Section("Inputs", ("Input", "Type", "Default", "Constraints", "Required", "Description"),
                inputs),
        Section("Node templates", ("Node", "Type", "Requirements"), nodes),
        Section("Outputs", ("Output", "Value", "Description"), outputs)))


# -- descriptors -------------------------------------------------------------------------


def _descriptor(files: zipfile.ZipFile) -> Contents:
    found = sorted(name for name in files.namelist()
                   if name.startswith(DESCRIPTORS) and name.endswith((".yaml", ".yml"))
                   and "/" not in name[len(DESCRIPTORS):])
    if not found:
        raise Unreadable(f"the archive has no {DESCRIPTORS}*.yaml")
    descriptor = _mapping(_read(files, found[0]))
    properties = tuple(
        Row(name, (_text(d.get("type")), _text(d.get("default")), _text(d.get("value")),
                   "yes" if d.get("read-only") else "no", _text(d.get("description"))))
        for name, d in ((name, _mapping(d))
                        for name, d in _mapping(descriptor.get("properties")).items()))
    sections = [Section("Properties", ("Property", "Type", "Default", "Value", "Read-only",
                                       "Description"), properties)]
    if "composition" in descriptor or "relationships" in descriptor:
        components = tuple(
            Row(name, (_text(d.get("type")), _text(d.get("cluster"))))
            for name, d in ((name, _mapping(d))
                            for name, d in _mapping(descriptor.get("composition")).items()))
        relationships = tuple(
            Row(name, (_text(d.get("source-capabilities")), _text(d.get("target-requirements"))))
            for name, d in ((name, _mapping(d))
                            for name, d in _mapping(descriptor.get("relationships")).items()))
        sections.append(Section("Components", ("Component", "Type", "Cluster"), components))
        sections.append(Section("Relationships", ("Relationship", "Source capabilities",
                                                 "Target requirements"),
                                relationships))
    lifecycle = _mapping(descriptor.get("lifecycle"))
    if lifecycle:
        sections.append(Section("Lifecycle", ("Operation", "Drivers"), tuple(
            Row(name, (_text(d) if d else "",)) for name, d in lifecycle.items())))
    # the descriptor's name ends with its version (assembly::NAME::1.0)
    version = _text(descriptor.get("name")).rpartition("::")[2] or DEFAULT_VERSION
    return Contents(found[0], version, tuple(sections))
