"""Package checks: a list of checkers, each turning a package into diagnostics.

A checker is any callable ``(package) -> Iterable[Diagnostic]``. The built-in
ones look at what needs no language engine (manifest warnings, that class
and UI files exist and are YAML, the logo); the MuranoPL engine adds its own
with :func:`register_checker`. :func:`check_path` runs them all and never
stops at the first problem.
"""

from __future__ import annotations

import dataclasses
import os
import typing as t

from laguna.errors import SourceError, decode_text
from laguna.packages import errors as codes
from laguna.packages.archive import DEFAULT_LIMITS, ArchiveLimits
from laguna.packages.errors import ArchiveError, PackageError, PackageFormatError
from laguna.packages.manifest import MANIFEST_FILE
from laguna.packages.package import (
    CLASSES_DIR,
    UI_DIR,
    YAML_SUFFIXES,
    Package,
    expression_as_text,
    load_package,
)
from laguna.source import Diagnostic, Span
from laguna.yamlio import YamlError, load_all

Checker = t.Callable[[Package], t.Iterable[Diagnostic]]


def check_manifest_warnings(package: Package) -> t.Iterator[Diagnostic]:
    """Warnings the manifest validation found (unknown fields)."""
    yield from package.manifest.warnings


def _parse(package: Package, path: str, code: str) -> Diagnostic | None:
    try:
        text = decode_text(package.read(path), path, code)
    except SourceError as exc:
        assert exc.span is not None
        return Diagnostic(exc.span, exc.code, exc.message)
    try:
        load_all(text, path, expression_as_text)
    except YamlError as exc:
        return Diagnostic(exc.span or Span(path, 1, 1), code, exc.message)
    return None


def check_class_files(package: Package) -> t.Iterator[Diagnostic]:
    """Each class named in the manifest has its file; every class file is YAML."""
    for name in package.manifest.classes:
        path = package.class_path(name)
        if path not in package.files():
            yield Diagnostic(package.manifest.span("Classes", name), codes.CLASS_FILE_MISSING,
                             f"file {path!r} of class {name!r} does not exist")
    for path in package.files():
        if path.startswith(f"{CLASSES_DIR}/") and path.endswith(YAML_SUFFIXES):
            problem = _parse(package, path, codes.CLASS_FILE_INVALID)
            if problem is not None:
                yield problem
    yield from package.class_problems()


def check_ui_files(package: Package) -> t.Iterator[Diagnostic]:
    """The form the manifest names exists, and every file under ``UI/`` is YAML."""
    if package.manifest.ui is not None and package.ui_path not in package.files():
        yield Diagnostic(package.manifest.span("UI"), codes.UI_INVALID,
                         f"UI file {package.ui_path!r} does not exist")
    for path in package.files():
        if path.startswith(f"{UI_DIR}/") and path.endswith(YAML_SUFFIXES):
            problem = _parse(package, path, codes.UI_INVALID)
            if problem is not None:
                yield problem


def check_logo(package: Package) -> t.Iterator[Diagnostic]:
    """The logo the manifest names exists."""
    try:
        package.logo()
    except PackageError as exc:
        yield Diagnostic(package.manifest.span("Logo"), exc.code, exc.message)


BUILTIN_CHECKERS: tuple[Checker, ...] = (
    check_manifest_warnings, check_class_files, check_ui_files, check_logo)
_registered: list[Checker] = []


def register_checker(checker: Checker) -> Checker:
    """Add a checker run after the built-in ones; usable as a decorator."""
    if checker not in _registered:
        _registered.append(checker)
    return checker


def unregister_checker(checker: Checker) -> None:
    """Remove a checker added with :func:`register_checker`."""
    if checker in _registered:
        _registered.remove(checker)


def checkers() -> list[Checker]:
    """The checkers :func:`check_package` runs, in order."""
    return [*BUILTIN_CHECKERS, *_registered]


def check_package(package: Package, run: t.Sequence[Checker] | None = None) -> list[Diagnostic]:
    """Run every checker (or those in ``run``); diagnostics sorted by position.

    A checker that raises a laguna error is reported as a diagnostic at the
    start of the manifest, so one faulty check does not hide the others.
    """
    found: list[Diagnostic] = []
    for checker in checkers() if run is None else run:
        try:
            found.extend(checker(package))
        except PackageFormatError as exc:
            found.extend(exc.diagnostics)
        except PackageError as exc:
            found.append(Diagnostic(Span(MANIFEST_FILE, 1, 1), exc.code, exc.message))
    return sorted(found, key=Diagnostic.sort_key)


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """What :func:`check_path` found; ``package`` is None when it could not be read."""

    package: Package | None
    diagnostics: list[Diagnostic]
    #: an error that kept the package from being read at all (no position)
    failure: PackageError | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None and not any(d.severity == "error" for d in self.diagnostics)


def check_path(path: str | os.PathLike[str], limits: ArchiveLimits = DEFAULT_LIMITS,
               run: t.Sequence[Checker] | None = None) -> CheckResult:
    """Check a package folder or archive: the manifest first, then every checker."""
    try:
        package = load_package(path, limits)
        package.files()   # a folder's links are refused here, once
    except PackageFormatError as exc:
        return CheckResult(None, list(exc.diagnostics))
    except ArchiveError as exc:
        if exc.entry is None or not os.path.isdir(path):
            return CheckResult(None, [], exc)
        # a file of the folder: reported at that file
        return CheckResult(None, [Diagnostic(Span(exc.entry, 1, 1), exc.code, exc.reason)])
    except PackageError as exc:
        return CheckResult(None, [], exc)
    return CheckResult(package, check_package(package, run))
