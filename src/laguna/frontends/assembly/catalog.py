"""The catalog: descriptors and resource packages found under ``-l`` folders.

A package follows lmctl's layout (``<pkg>/Definitions/lm/resource.yaml`` and
``<pkg>/Lifecycle/shell/scripts/<Transition>.sh``); any ``*.yaml``/``*.yml``
whose ``name:`` starts with ``assembly::`` or ``resource::`` is a descriptor.
Version ranges (``^1.0``, Maven ``[1.0,2.0)``) resolve to the highest match,
compared numerically per part with ``univers``.
"""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

import jinja2.sandbox
from univers.version_range import MavenVersionRange
from univers.versions import MavenVersion

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.descriptor import (
    Descriptor,
    load_descriptor,
    package_default_name,
)
from laguna.frontends.assembly.names import split
from laguna.source import Span

_NAME_LINE = re.compile(r"^name:\s*['\"]?((?:assembly|resource)::[^'\"\s]+)", re.MULTILINE)
#: a descriptor with a name line of its own is never named by its package
_ANY_NAME_LINE = re.compile(r"^name\s*:", re.MULTILINE)


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def version_matches(wanted: str, version: str) -> bool:
    """Whether catalog ``version`` satisfies ``wanted`` (exact, ``^X.Y`` or a Maven range)."""
    try:
        have = _numbers(version)
    except ValueError:
        return False
    if wanted.startswith("^"):
        try:
            low = _numbers(wanted[1:])
        except ValueError:
            return False
        return have[0] == low[0] and have >= low
    if wanted[:1] in "[(":
        try:
            maven_range = MavenVersionRange.from_native(wanted)  # type: ignore[no-untyped-call]
            return MavenVersion(version) in maven_range
        except Exception:  # univers raises several types for a malformed range
            return False
    try:
        return _numbers(wanted) == have
    except ValueError:
        return False


class Catalog:
    """Descriptors by name, from layers added in precedence order (the first to name
    a descriptor wins; :meth:`add` puts one given outside them above all)."""

    def __init__(self, roots: t.Iterable[Path] = ()) -> None:
        self.roots = [Path(r) for r in roots]
        self.paths: dict[str, Path] = {}
        #: descriptors whose package is fetched when first asked for (the store's)
        self._lazy: dict[str, t.Callable[[], Path]] = {}
        self._loaded: dict[str, Descriptor] = {}
        for root in self.roots:
            self._scan(root)

    def _scan(self, root: Path) -> None:
        for name, path in _descriptor_files(root):
            if name not in self._lazy:
                self.paths.setdefault(name, path)

    def add_root(self, root: Path) -> None:
        """A folder (or file) below the layers added so far."""
        self._scan(root)

    def add_lazy(self, name: str, package: t.Callable[[], Path]) -> None:
        """Descriptor ``name``, in the package folder ``package()`` gives when first
        needed; below the layers added so far."""
        if name not in self.paths:
            self._lazy.setdefault(name, package)

    def add(self, descriptor: Descriptor) -> None:
        self.paths[descriptor.name] = descriptor.path
        self._lazy.pop(descriptor.name, None)
        self._loaded[descriptor.name] = descriptor

    def names(self) -> list[str]:
        return sorted({*self.paths, *self._lazy})

    def loaded(self) -> dict[str, Descriptor]:
        """The descriptors read so far, by name."""
        return dict(self._loaded)

    def path_of(self, name: str, span: Span | None = None) -> Path:
        """The file of descriptor ``name`` (a store package is unpacked for it)."""
        path = self.paths.get(name)
        if path is None and name in self._lazy:
            folder = self._lazy.pop(name)()
            path = dict(_descriptor_files(folder)).get(name)
            if path is None:
                raise e.fail(e.DESCRIPTOR_NOT_FOUND, f"the package of {name!r} does not "
                             "define it", span)
            self.paths[name] = path
        if path is None:
            raise e.fail(e.DESCRIPTOR_NOT_FOUND, f"descriptor {name!r} is not in the catalog",
                         span)
        return path

    def get(self, name: str, span: Span | None = None) -> Descriptor:
        """The descriptor called ``name`` exactly; descriptor_not_found otherwise."""
        if name in self._loaded:
            return self._loaded[name]
        path = self.path_of(name, span)
        descriptor, problems = load_descriptor(path)
        if problems or descriptor is None:
            raise e.DescriptorError(problems)
        descriptor.package = package_of(path)
        self._loaded[name] = descriptor
        return descriptor

    def matching(self, wanted: str) -> list[str]:
        """Names of every descriptor ``wanted`` (``kind::name::version-or-range``) matches."""
        kind, name, version = split(wanted)
        return [n for n in self.names()
                if split(n)[:2] == (kind, name) and version_matches(version, split(n)[2])]

    def resolve_version(self, wanted: str, span: Span | None = None) -> str:
        """The highest catalog version ``wanted`` matches."""
        found = self.matching(wanted)
        if not found:
            raise e.fail(e.DESCRIPTOR_NOT_FOUND, f"no descriptor in the catalog matches "
                         f"{wanted!r}", span)
        return max(found, key=lambda n: _numbers(split(n)[2]))


def _descriptor_files(root: Path) -> t.Iterator[tuple[str, Path]]:
    """``(name, file)`` of every descriptor under ``root`` (or ``root`` itself), in
    path order."""
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    for path in files:
        try:
            head = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        match = _NAME_LINE.search(head)
        if match is not None:
            yield match.group(1), path.resolve()
        elif _ANY_NAME_LINE.search(head) is None:
            default = package_default_name(path)
            if default is not None:
                yield default, path.resolve()


def package_of(path: Path) -> Path:
    """A descriptor file's package folder (lmctl layout), else its folder."""
    if path.parent.name == "lm" and path.parent.parent.name == "Definitions":
        return path.parent.parent.parent
    return path.parent


_ENVIRONMENT = jinja2.sandbox.ImmutableSandboxedEnvironment(autoescape=False)


def render_dynamic_type(template: str, variables: t.Mapping[str, t.Any], catalog: Catalog,
                        span: Span | None) -> str:
    """A ``dynamicType`` rendered in the Jinja2 sandbox, stripped."""

    def resolve_version(text: str) -> str:
        return catalog.resolve_version(str(text), span)

    environment = _ENVIRONMENT.overlay()
    environment.filters["resolveVersion"] = resolve_version
    try:
        return environment.from_string(template).render(**variables).strip()
    except jinja2.TemplateError as error:
        raise e.fail(e.INVALID_DESCRIPTOR, f"dynamicType: {error}", span) from None
