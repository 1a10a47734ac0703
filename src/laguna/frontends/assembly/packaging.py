"""Descriptor packages (lmctl layout) for ``laguna package import``.

A folder (or zip) with ``Definitions/lm/<kind>.yaml`` is a descriptor
package; it is checked (the descriptor loads without problems) and handed
to the catalog store as a :class:`DescriptorPackage`, beside MuranoPL packages.
"""

from __future__ import annotations

import dataclasses
import io
import tempfile
import typing as t
from pathlib import Path

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.descriptor import load_descriptor
from laguna.packages.archive import build_archive, extract_archive

DEFINITIONS = ("Definitions", "lm")


@dataclasses.dataclass(frozen=True)
class DescriptorPackage:
    """What the catalog store keeps of a descriptor package."""

    kind: str
    #: ``kind::name`` (the package's fully qualified name in the store)
    name: str
    version: str
    description: str
    archive: bytes
    #: a summary in place of a MuranoPL manifest
    manifest: t.Mapping[str, t.Any]


def _definition(root: Path) -> Path | None:
    folder = root.joinpath(*DEFINITIONS)
    if not folder.is_dir():
        return None
    found = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
    return found[0] if found else None


def is_descriptor_package(path: Path) -> bool:
    """Whether ``path`` (a folder or a zip) holds a descriptor package."""
    if path.is_dir():
        return _definition(path) is not None
    if path.suffix == ".zip":
        import zipfile
        try:
            with zipfile.ZipFile(path) as archive:
                return any(n.startswith("Definitions/lm/") and n.endswith((".yaml", ".yml"))
                           for n in archive.namelist())
        except zipfile.BadZipFile:
            return False
    return False


def read_package(path: Path) -> DescriptorPackage:
    """The checked package at ``path``; DescriptorError lists its problems."""
    if path.is_dir():
        return _read_folder(path, None)
    with tempfile.TemporaryDirectory(prefix="laguna-descriptor-") as scratch:
        extract_archive(path.read_bytes(), scratch)
        return _read_folder(Path(scratch), path.read_bytes())


def _read_folder(root: Path, archive: bytes | None) -> DescriptorPackage:
    definition = _definition(root)
    if definition is None:
        raise e.fail(e.INVALID_DESCRIPTOR, f"{root}: no Definitions/lm/*.yaml")
    descriptor, problems = load_descriptor(definition,
                                           source="/".join(DEFINITIONS + (definition.name,)))
    if descriptor is None or problems:
        raise e.DescriptorError(problems)
    if archive is None:
        buffer = io.BytesIO()
        build_archive(root, buffer)
        archive = buffer.getvalue()
    scripts = root / "Lifecycle" / "shell" / "scripts"
    kind, name, version = descriptor.name.split("::")
    manifest = {"Format": "Descriptor/1.0", "Descriptor": descriptor.name,
                "Lifecycle": list(descriptor.lifecycle),
                "Operations": sorted(descriptor.operations),
                "Scripts": sorted(p.stem for p in scripts.glob("*.sh")) if scripts.is_dir()
                else []}
    return DescriptorPackage(kind=kind, name=f"{kind}::{name}", version=version,
                             description=descriptor.description, archive=archive,
                             manifest=manifest)
