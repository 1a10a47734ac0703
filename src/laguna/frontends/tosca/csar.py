"""CSARs as catalog packages: reading one for ``laguna package import`` (and the
API's upload), and finding the catalog's CSARs again when a template imports
one (``catalog:NAME``) or ``laguna deploy NAME`` names one.

A CSAR in the catalog is a package of type ``Tosca``, format ``TOSCA/1.3``,
beside MuranoPL and descriptor packages (one store, docs/TOSCA.md "TOSCA in
the catalog"):

- its name is the entry template's ``metadata.template_name``, else
  TOSCA.meta's ``Name`` (or ``CSAR-Name``), else the archive's base name;
- its version is ``metadata.template_version``, else TOSCA.meta's
  ``Template-Version``, else ``0.0.0`` (Murano's default for a manifest
  without ``Version``), read as the catalog's SemVer (``1.2`` is ``1.2.0``);
- the archive is checked as MuranoPL archives are (:mod:`laguna.packages.archive`:
  entry count, sizes really produced, no ``..``, no absolute path, no symbolic
  link) before anything of it is read, and the template is validated with
  every problem reported; a missing input value is no problem here (it is
  given at deploy).

Archives unpacked for imports and deploys live in the working directory's
``.laguna/tosca-catalog/<name>/<version>/`` (a ``.package-id`` file says which
stored package it holds; a package deleted and imported again is unpacked
again). Without a store (an action reopening a deployed topology) the cache
alone answers.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import shutil
import tempfile
import typing as t
import weakref
import zipfile
from pathlib import Path

import yaml

from laguna.errors import LagunaError
from laguna.frontends.marks import TOSCA_META
from laguna.packages.archive import build_archive, extract_archive
from laguna.packages.errors import VersionError
from laguna.packages.versions import parse_requirement, parse_version

#: the catalog's package type and format of a CSAR
PACKAGE_TYPE = "Tosca"
PACKAGE_FORMAT = "TOSCA/1.3"
#: how an import names a catalog package: ``catalog:NAME`` or ``catalog:NAME>=1.0,<2.0``
IMPORT_SCHEME = "catalog:"
#: the cache's folder under the working directory's ``.laguna``
CACHE_FOLDER = "tosca-catalog"
_SPEC_START = re.compile(r"[=<>!]")


class CatalogCsarError(LagunaError):
    """A CSAR refused by the catalog, or a catalog package an import or deploy
    cannot find; ``problems`` are the template's (empty for a broken archive)."""

    code = "LAG-E1512"

    def __init__(self, message: str, problems: t.Sequence[t.Any] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems = list(problems)


@t.runtime_checkable
class ToscaStore(t.Protocol):
    """A catalog holding CSAR packages (``laguna.store.source.StoreSource``)."""

    def tosca_packages(self, name: str) -> list[tuple[str, str]]:
        """``(version, package id)`` of every CSAR package called ``name``."""
        ...

    def tosca_archive(self, package_id: str) -> bytes:
        """That package's archive."""
        ...


@dataclasses.dataclass(frozen=True)
class CsarPackage:
    """What the catalog keeps of a checked CSAR."""

    name: str
    version: str
    description: str
    archive: bytes
    #: a summary in place of a MuranoPL manifest
    manifest: t.Mapping[str, t.Any]


def is_csar_archive(path: Path) -> bool:
    """Whether ``path`` is a zip (or folder) holding a CSAR: TOSCA.meta, or a root
    yaml file marked with ``tosca_definitions_version``."""
    from laguna.frontends.marks import is_tosca
    if path.is_dir():
        return is_tosca(path)
    return zipfile.is_zipfile(path) and is_tosca(path)


def _meta_fields(root: Path) -> dict[str, str]:
    meta = root / TOSCA_META
    if not meta.is_file():
        return {}
    fields: dict[str, str] = {}
    for line in meta.read_text(encoding="utf-8", errors="replace").splitlines():
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip()] = value.strip()
    return fields


def read_csar(path: Path, validate: t.Callable[[Path], list[t.Any]],
              default_name: str | None = None) -> CsarPackage:
    """The checked CSAR at ``path`` (a zip or a folder). ``validate(root)`` gives the
    template's problems (empty: valid); CatalogCsarError says why it is refused."""
    data = None if path.is_dir() else path.read_bytes()
    return read_csar_bytes(data, validate, default_name or path.stem, folder=path
                           if path.is_dir() else None)


def read_csar_bytes(data: bytes | None, validate: t.Callable[[Path], list[t.Any]],
                    default_name: str, folder: Path | None = None) -> CsarPackage:
    """:func:`read_csar` of an archive's bytes (the API's upload), or of ``folder``."""
    with tempfile.TemporaryDirectory(prefix="laguna-csar-") as scratch:
        root = Path(scratch)
        if data is not None:
            try:
                extract_archive(data, root)
            except LagunaError as error:
                raise CatalogCsarError(f"CSAR refused: {_plain(error)}") from None
        else:
            assert folder is not None
            buffer = io.BytesIO()
            try:
                build_archive(folder, buffer)
            except LagunaError as error:
                raise CatalogCsarError(f"CSAR refused: {_plain(error)}") from None
            data = buffer.getvalue()
            extract_archive(data, root)
        from laguna.frontends.tosca.documents import CsarError, entry_of
        try:
            entry = entry_of(root)
        except CsarError as error:
            raise CatalogCsarError(f"CSAR refused: {_plain(error)}") from None
        problems = validate(root)
        if problems:
            raise CatalogCsarError("CSAR refused: " + "; ".join(str(p) for p in problems),
                                   problems)
        template = yaml.safe_load(entry.read_text(encoding="utf-8")) or {}
        meta = _meta_fields(root)
        given = template.get("metadata")
        metadata: dict[str, t.Any] = given if isinstance(given, dict) else {}
        name = str(metadata.get("template_name") or meta.get("Name")
                   or meta.get("CSAR-Name") or default_name)
        written = metadata.get("template_version") or meta.get("Template-Version")
        try:
            version = parse_version(None if written is None else str(written))
        except VersionError as error:
            raise CatalogCsarError(f"CSAR refused: template_version {written!r}: "
                                   f"{_plain(error)}") from None
        topology = template.get("topology_template")
        mappings = topology.get("substitution_mappings") if isinstance(topology, dict) \
            else None
        description = template.get("description") or (
            topology.get("description") if isinstance(topology, dict) else None) or ""
        manifest = {
            "Format": PACKAGE_FORMAT, "Entry-Definitions": entry.relative_to(root).as_posix(),
            "Template": name,
            "Types": sorted(str(k) for k in (template.get("node_types") or {})),
            "Substitutes": str(mappings.get("node_type")) if isinstance(mappings, dict)
            and mappings.get("node_type") is not None else None,
            "Deployable": isinstance(topology, dict) and bool(topology.get("node_templates")),
        }
        return CsarPackage(name=name, version=str(version), description=str(description),
                           archive=data, manifest=manifest)


def _entry_data(folder: Path) -> dict[str, t.Any]:
    from laguna.frontends.tosca.documents import CsarError, entry_of
    try:
        data = yaml.safe_load(entry_of(folder).read_text(encoding="utf-8"))
    except (CsarError, OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def deployable(folder: Path) -> bool:
    """Whether the CSAR folder's entry has node templates to deploy (a CSAR of types
    only has none)."""
    topology = _entry_data(folder).get("topology_template")
    return isinstance(topology, dict) and bool(topology.get("node_templates"))


def template_name(folder: Path) -> str | None:
    """The ``metadata.template_name`` of the CSAR folder's entry template, if it
    gives one (None too when the folder has no readable entry)."""
    metadata = _entry_data(folder).get("metadata")
    name = metadata.get("template_name") if isinstance(metadata, dict) else None
    return str(name) if name is not None else None


def _plain(error: LagunaError) -> str:
    """An error's message without its ``error[CODE]:`` head."""
    return error.as_problems()[0].message


def split_reference(text: str) -> tuple[str, str | None]:
    """``NAME`` and its Murano-style requirement (None: the highest version) of
    ``NAME``, ``NAME==1.2``, ``NAME>=1.0,<2.0``."""
    match = _SPEC_START.search(text)
    if match is None:
        return text.strip(), None
    return text[:match.start()].strip(), text[match.start():].strip()


def choose(versions: t.Iterable[str], spec: str | None) -> str | None:
    """The highest of ``versions`` that ``spec`` accepts (Murano's ``Require``
    rules, :mod:`laguna.packages.versions`; None: any)."""
    parsed = {parse_version(v): v for v in versions}
    if spec is None:
        return parsed[max(parsed)] if parsed else None
    found = parse_requirement(spec).select(parsed)
    return None if found is None else parsed[found]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "_"


class CatalogImports:
    """The catalog's CSARs as folders: ``store`` (None: the cache alone) unpacked
    into ``cache`` (None: a temporary folder per process)."""

    def __init__(self, store: ToscaStore | None, cache: Path | None) -> None:
        self.store = store
        if cache is None:
            cache = Path(tempfile.mkdtemp(prefix="laguna-tosca-catalog-"))
            # the files live as long as this catalog (a prepared blueprint keeps it)
            weakref.finalize(self, shutil.rmtree, cache, True)
        self.cache = cache

    @classmethod
    def of_workdir(cls, state_dir: Path | None, store: object = None) -> CatalogImports:
        """The catalog of the working directory whose ``.laguna`` is ``state_dir``."""
        return cls(store if isinstance(store, ToscaStore) else None,
                   None if state_dir is None else state_dir / CACHE_FOLDER)

    def folder(self, reference: str) -> tuple[str, str, Path]:
        """``(name, version, unpacked folder)`` of the package ``reference`` (``NAME``
        or ``NAME`` with a requirement) names; CatalogCsarError when none fits."""
        name, spec = split_reference(reference)
        if not name:
            raise CatalogCsarError(f"no package name in {reference!r}")
        try:
            if self.store is not None:
                listed = dict(self.store.tosca_packages(name))
                version = choose(listed, spec)
                if version is not None:
                    return name, version, self._unpacked(name, version, listed[version])
            cached = self.cache / _safe(name)
            versions = [p.name for p in cached.iterdir()
                        if p.is_dir() and not p.name.startswith(".")] \
                if cached.is_dir() else []
            version = choose(versions, spec)
        except VersionError as error:
            raise CatalogCsarError(f"catalog package {reference}: {_plain(error)}") from None
        if version is None:
            wanted = f"{name} {spec}" if spec else name
            raise CatalogCsarError(f"no TOSCA package {wanted} in the catalog")
        return name, version, cached / version

    def _unpacked(self, name: str, version: str, package_id: str) -> Path:
        assert self.store is not None
        target = self.cache / _safe(name) / version
        marker = target / ".package-id"
        if marker.is_file() and marker.read_text(encoding="utf-8") == package_id:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        # unpacked aside, then renamed: a reader never sees half a package
        scratch = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
        try:
            try:
                extract_archive(self.store.tosca_archive(package_id), scratch)
            except LagunaError as error:
                raise CatalogCsarError(f"catalog package {name} {version}: "
                                       f"{_plain(error)}") from None
            (scratch / ".package-id").write_text(package_id, encoding="utf-8")
            shutil.rmtree(target, ignore_errors=True)
            os.rename(scratch, target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return target

    def entry(self, reference: str) -> tuple[str, Path]:
        """``(NAME==VERSION, entry file)`` of the package ``reference`` names."""
        from laguna.frontends.tosca.documents import CsarError, entry_of
        name, version, folder = self.folder(reference)
        try:
            return f"{name}=={version}", entry_of(folder)
        except CsarError as error:
            raise CatalogCsarError(f"catalog package {name} {version}: "
                                   f"{_plain(error)}") from None


def check_csar(root: Path, catalog: CatalogImports | None) -> list[t.Any]:
    """Every problem of the CSAR unpacked at ``root`` (its imports from ``catalog``),
    less the inputs left without a value: those are given when it is deployed."""
    from laguna.frontends.tosca.problems import MISSING_REQUIRED
    from laguna.frontends.tosca.remote import Fetcher
    from laguna.frontends.tosca.topology import load_topology
    _topology, problems = load_topology(root, fetcher=Fetcher(None, temporary=True),
                                        catalog=catalog)
    return [p for p in problems.sorted()
            if not (p.kind == MISSING_REQUIRED and (p.entity or "").startswith("input "))]
