"""Reading a package directory for the engine: manifest Classes and Classes/."""

from __future__ import annotations

import pathlib
import typing as t

from laguna.corelib import CORE_PACKAGE_DIR, bind_natives
from laguna.errors import SourceError
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.types import RuntimePackage
from laguna.source import Span
from laguna.yamlio import load_all


class PackageError(SourceError):
    code = "LAG-E0600"


def _format(value: t.Any, span: Span) -> tuple[int, int]:
    text = str(value if value is not None else "1.0")
    if "/" in text:
        text = text.split("/", 1)[1]
    try:
        major, minor = (int(p) for p in text.split(".")[:2])
    except ValueError:
        raise PackageError(f"invalid Format {text!r}", span) from None
    return major, minor


def read_package_dir(path: pathlib.Path) -> PackageClasses:
    manifest_path = path / "manifest.yaml"
    if not manifest_path.is_file():
        raise PackageError(f"{path} is not a package: manifest.yaml is missing",
                           Span(str(manifest_path), 1, 1))
    docs = load_all(manifest_path.read_text(encoding="utf-8"), str(manifest_path))
    manifest = docs[0] if docs else {}
    if not isinstance(manifest, dict):
        raise PackageError("manifest.yaml must be a mapping", Span(str(manifest_path), 1, 1))
    span = getattr(manifest, "span", Span(str(manifest_path), 1, 1))
    name = manifest.get("FullName")
    if not name:
        raise PackageError("manifest.yaml has no FullName", span)
    package = RuntimePackage(str(name), str(manifest.get("Version") or "0.0.0"),
                             _format(manifest.get("Format"), span),
                             dict(manifest.get("Require") or {}), manifest.get("Meta"))
    classes_dir = path / "Classes"
    declared = {str(k): f"Classes/{v}" for k, v in (manifest.get("Classes") or {}).items()}
    files: dict[str, t.Callable[[], str]] = {}
    if classes_dir.is_dir():
        for file in sorted(classes_dir.rglob("*.yaml")):
            rel = file.relative_to(path).as_posix()
            files[rel] = (lambda f=file: f.read_text(encoding="utf-8"))
    return PackageClasses(package, sorted(files.items()), declared)


def core_registry() -> ClassRegistry:
    """A registry holding the core library, with its native methods bound."""
    registry = ClassRegistry()
    bind_natives(registry)
    registry.add(read_package_dir(CORE_PACKAGE_DIR))
    return registry
