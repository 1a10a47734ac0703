"""A package: its manifest and its files, read from a folder or a zip archive.

Layout (paths relative to the package root)::

    manifest.yaml
    Classes/      MuranoPL class files (named in the manifest, or discovered)
    Resources/    files the classes read at run time
    UI/           dashboard forms (YAML)
    logo.png      or the file the manifest names in Logo

The package never interprets MuranoPL; it only finds which file defines
which class, so the engine can ask for a class's source by name.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import typing as t
import zipfile
from pathlib import Path

from laguna.packages import errors as codes
from laguna.packages.archive import (
    _EPOCH,
    DEFAULT_LIMITS,
    ArchiveInput,
    ArchiveLimits,
    normalise_relative,
    package_files,
    read_archive,
)
from laguna.errors import SourceError, decode_text
from laguna.packages.errors import PackageFormatError, PackageLoadError
from laguna.packages.manifest import (
    DEFAULT_LOGO_FILE,
    DEFAULT_UI_FILE,
    MANIFEST_FILE,
    FormatVersion,
    Manifest,
    PackageType,
    load_manifest,
)
from laguna.packages.versions import Requirement, Version
from laguna.source import Diagnostic, Span
from laguna.yamlio import YamlError, YMap, YStr, load_all

CLASSES_DIR = "Classes"
RESOURCES_DIR = "Resources"
UI_DIR = "UI"
YAML_SUFFIXES = (".yaml", ".yml")
#: the supplier's logo when the manifest's ``Supplier`` names none, as Murano looked for it
SUPPLIER_LOGO_FILE = "supplier_logo.png"


class FileTree(t.Protocol):
    """Read-only files of one package, by relative POSIX path."""

    def files(self) -> list[str]: ...

    def read(self, path: str) -> bytes: ...


class DirectoryTree:
    """The files of a package folder; reads never leave the folder."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self._files: list[str] | None = None

    def __repr__(self) -> str:
        return f"DirectoryTree({str(self.root)!r})"

    def files(self) -> list[str]:
        if self._files is None:
            self._files = package_files(self.root)
        return self._files

    def read(self, path: str) -> bytes:
        full = (self.root / path).resolve()
        if self.root not in full.parents:
            raise PackageLoadError(f"{path!r} is outside the package", codes.UNSAFE_PATH)
        try:
            return full.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise KeyError(path) from None


class MemoryTree:
    """Files held in memory, e.g. read from an archive."""

    def __init__(self, files: t.Mapping[str, bytes]) -> None:
        self._files = dict(files)

    def __repr__(self) -> str:
        return f"MemoryTree({len(self._files)} files)"

    def files(self) -> list[str]:
        return sorted(self._files)

    def read(self, path: str) -> bytes:
        return self._files[path]


def qualify_class_name(name: str, namespaces: t.Mapping[str, str]) -> str | None:
    """Expand a class file's ``Name`` with its ``Namespaces``; None if a prefix is unknown.

    ``ns:Name`` uses the namespace of prefix ``ns``; a name with a dot is
    already full; any other name is put in the ``=`` namespace, if there is one.
    """
    if ":" in name:
        prefix, local = name.split(":", 1)
        namespace = namespaces.get(prefix)
        return f"{namespace}.{local}" if namespace else None
    if "." in name:
        return name
    default = namespaces.get("=")
    return f"{default}.{name}" if default else name


def expression_as_text(text: str, span: Span, forced: bool) -> t.Any:
    """A yamlio expression hook that keeps ``!yaql`` scalars as plain strings."""
    if not forced:
        return None
    value = YStr(text)
    value.span = span
    return value


def declared_classes(text: str, source: str) -> list[tuple[str | None, str, Span]]:
    """``(full name or None, written name, span)`` of every class document in a file.

    Raises :class:`~laguna.yamlio.YamlError` if the file is not valid YAML.
    """
    found: list[tuple[str | None, str, Span]] = []
    for document in load_all(text, source, expression_as_text):
        if not isinstance(document, YMap) or not isinstance(document.get("Name"), str):
            continue
        raw_namespaces = document.get("Namespaces")
        namespaces = ({str(k): str(v) for k, v in raw_namespaces.items()}
                      if isinstance(raw_namespaces, dict) else {})
        written = str(document["Name"])
        span = getattr(document["Name"], "span", document.key_spans["Name"])
        found.append((qualify_class_name(written, namespaces), written, span))
    return found


@dataclasses.dataclass
class _ClassIndex:
    paths: dict[str, str]
    problems: list[Diagnostic]


class Package:
    """A package's manifest and files; build it with :func:`load_package` & co."""

    def __init__(self, manifest: Manifest, tree: FileTree, origin: str) -> None:
        self.manifest = manifest
        self.tree = tree
        #: where the package was read from (a folder, an archive, a store row)
        self.origin = origin

    def __repr__(self) -> str:
        return f"<Package {self.name} {self.version} from {self.origin}>"

    @property
    def name(self) -> str:
        """The fully qualified name (``FullName``)."""
        return self.manifest.full_name

    @property
    def version(self) -> Version:
        return self.manifest.version

    @property
    def format(self) -> FormatVersion:
        return self.manifest.format

    @property
    def type(self) -> PackageType:
        return self.manifest.type

    @property
    def requirements(self) -> dict[str, Requirement]:
        """Required packages by name, with the implicit core library."""
        return self.manifest.requirements

    def files(self) -> list[str]:
        """Every file of the package, as sorted relative paths."""
        return self.tree.files()

    def read(self, path: str) -> bytes:
        """The bytes of a file by package-relative path."""
        clean = normalise_relative(path)
        if clean is None:
            raise PackageLoadError(f"path {path!r} leaves the package", codes.UNSAFE_PATH)
        try:
            return self.tree.read(clean)
        except KeyError:
            raise PackageLoadError(f"{self.name}: no file {clean!r}", codes.RESOURCE_MISSING) from None

    def _text(self, path: str, code: str) -> str:
        try:
            return decode_text(self.tree.read(path), path, codes.CLASS_FILE_INVALID)
        except KeyError:
            raise PackageLoadError(f"{self.name}: file {path!r} not found", code) from None
        except SourceError as exc:
            raise PackageLoadError(f"{self.name}: {exc.span}: {exc.message}",
                                   exc.code) from None

    # -- classes ------------------------------------------------------------

    @functools.cached_property
    def _classes(self) -> _ClassIndex:
        paths: dict[str, str] = {}
        problems: list[Diagnostic] = []
        for name, file in self.manifest.classes.items():
            clean = normalise_relative(f"{CLASSES_DIR}/{file}")
            assert clean is not None  # the manifest refuses escaping paths
            paths[name] = clean
        named = set(paths.values())
        found_in: dict[str, str] = {}
        for path in self.tree.files():
            if (not path.startswith(f"{CLASSES_DIR}/") or not path.endswith(YAML_SUFFIXES)
                    or path in named):
                continue
            try:
                declared = declared_classes(self._text(path, codes.CLASS_FILE_MISSING), path)
            except (YamlError, PackageLoadError):
                continue  # reported by the class-file check
            for full, written, span in declared:
                if full is None:
                    problems.append(Diagnostic(span, codes.CLASS_FILE_INVALID,
                                               f"class name {written!r} uses an unknown namespace prefix"))
                elif full in paths:
                    first = found_in.get(full, paths[full])
                    problems.append(Diagnostic(span, codes.DUPLICATE_CLASS,
                                               f"class {full!r} is already defined in {first!r}"))
                else:
                    paths[full] = path
                    found_in[full] = path
        return _ClassIndex(paths, problems)

    def class_names(self) -> list[str]:
        """Names of the classes the package defines, sorted."""
        return sorted(self._classes.paths)

    def class_path(self, class_name: str) -> str:
        """The package-relative file defining ``class_name`` (``Classes/Foo.yaml``)."""
        try:
            return self._classes.paths[class_name]
        except KeyError:
            raise PackageLoadError(f"class {class_name!r} is not defined in package {self.name}",
                                   codes.CLASS_NOT_DEFINED) from None

    def class_source(self, class_name: str) -> tuple[str, str]:
        """The text of the file defining ``class_name`` and its package-relative path."""
        path = self.class_path(class_name)
        return self._text(path, codes.CLASS_FILE_MISSING), path

    def class_problems(self) -> list[Diagnostic]:
        """Problems found while discovering classes (duplicates, unknown prefixes)."""
        return list(self._classes.problems)

    # -- resources, UI, logo ------------------------------------------------

    def resource(self, path: str) -> bytes:
        """A file under ``Resources/`` by its path relative to that folder."""
        clean = normalise_relative(path)
        if clean is None:
            raise PackageLoadError(f"resource path {path!r} leaves the Resources folder",
                                   codes.UNSAFE_PATH)
        try:
            return self.tree.read(f"{RESOURCES_DIR}/{clean}")
        except KeyError:
            raise PackageLoadError(f"{self.name}: no resource {clean!r}",
                                   codes.RESOURCE_MISSING) from None

    def resource_names(self) -> list[str]:
        """Paths of every resource, relative to ``Resources/``."""
        prefix = f"{RESOURCES_DIR}/"
        return [p[len(prefix):] for p in self.tree.files() if p.startswith(prefix)]

    def ui_files(self) -> dict[str, str]:
        """Every YAML file under ``UI/`` as text, by package-relative path."""
        return {path: self._text(path, codes.UI_INVALID) for path in self.tree.files()
                if path.startswith(f"{UI_DIR}/") and path.endswith(YAML_SUFFIXES)}

    @property
    def ui_path(self) -> str:
        """The dashboard form file: ``UI/`` + the manifest's ``UI`` (default ``ui.yaml``)."""
        return f"{UI_DIR}/{self.manifest.ui or DEFAULT_UI_FILE}"

    def ui_definition(self) -> str | None:
        """The text of the dashboard form, or None when the package has none."""
        try:
            return self._text(self.ui_path, codes.UI_INVALID)
        except PackageLoadError:
            if self.manifest.ui is None:
                return None
            raise

    def logo(self) -> bytes | None:
        """The logo's bytes (the manifest's ``Logo``, else ``logo.png`` if present)."""
        path = self.manifest.logo or DEFAULT_LOGO_FILE
        clean = normalise_relative(path)
        try:
            return self.tree.read(clean) if clean else None
        except KeyError:
            if self.manifest.logo is None:
                return None
            raise PackageLoadError(f"{self.name}: logo file {path!r} not found",
                                   codes.LOGO_MISSING) from None

    def supplier_logo(self) -> bytes | None:
        """The supplier's logo (the manifest's ``Supplier: {Logo: ...}``, else
        ``supplier_logo.png`` if present); None when the package has none."""
        named = self.manifest.supplier.get("Logo")
        clean = normalise_relative(named if isinstance(named, str) else SUPPLIER_LOGO_FILE)
        try:
            return self.tree.read(clean) if clean else None
        except KeyError:
            return None

    def to_archive(self) -> bytes:
        """The package as a reproducible zip archive."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name in self.tree.files():
                info = zipfile.ZipInfo(name, date_time=_EPOCH)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o100644 << 16
                archive.writestr(info, self.tree.read(name))
        return buffer.getvalue()


def _manifest_of(tree: FileTree, origin: str) -> Manifest:
    try:
        data = tree.read(MANIFEST_FILE)
    except KeyError:
        raise PackageLoadError(f"{origin}: no {MANIFEST_FILE}; not a package",
                               codes.MANIFEST_MISSING) from None
    try:
        text = decode_text(data, MANIFEST_FILE, codes.MANIFEST_YAML)
    except SourceError as exc:
        assert exc.span is not None
        raise PackageFormatError([Diagnostic(exc.span, exc.code, exc.message)],
                                 MANIFEST_FILE) from None
    return load_manifest(text, MANIFEST_FILE)


def package_from_tree(tree: FileTree, origin: str) -> Package:
    """A package over any file tree; the manifest is validated here."""
    return Package(_manifest_of(tree, origin), tree, origin)


def load_directory(path: str | os.PathLike[str]) -> Package:
    """Read a package folder; files other than the manifest are read on demand."""
    root = Path(path)
    if not root.is_dir():
        raise PackageLoadError(f"{str(root)!r} is not a folder", codes.NOT_A_PACKAGE)
    return package_from_tree(DirectoryTree(root), str(root))


def load_archive(source: ArchiveInput, limits: ArchiveLimits = DEFAULT_LIMITS,
                 origin: str | None = None) -> Package:
    """Read a package zip (a path, bytes or a binary stream) fully into memory."""
    if origin is None:
        origin = "archive" if isinstance(source, (bytes, io.IOBase)) else os.fspath(
            t.cast(str, source))
    return package_from_tree(MemoryTree(read_archive(source, limits)), origin)


def load_package(path: str | os.PathLike[str], limits: ArchiveLimits = DEFAULT_LIMITS) -> Package:
    """Read a package from a folder or a zip archive."""
    if Path(path).is_dir():
        return load_directory(path)
    if not Path(path).exists():
        raise PackageLoadError(f"{os.fspath(path)!r} does not exist", codes.NOT_A_PACKAGE)
    return load_archive(path, limits)
