"""Where classes come from: package versions, their requirements, native classes.

A :class:`ClassRegistry` is the package loader of one run. It holds the
packages handed to it (:meth:`ClassRegistry.add`) and draws further ones
from package sources (folders, archives, the catalog store; any
:class:`~laguna.packages.source.PackageSource`) only when a lookup needs
them; a package's class files are parsed when one of its classes is first
built, so a run pays only for what it touches.

How a name becomes a class:

- from a class's code (``find(name, requester)``): the requester's own
  package, else each package it requires (``io.murano`` first, implicitly
  ``0``), in the version its requirement allows;
- with no requester (a model's root object, a host lookup): a loaded package
  defining the class, else the highest version a source offers;
- a requirement is met by a version already loaded when one fits (the engine
  keeps the number of versions of a package low), else by the versions a
  loaded model pinned (:meth:`ClassRegistry.fix`), else by the highest version
  available; once met, a package keeps using the version it got.

Several versions of one package live side by side; :mod:`~laguna.lang.resolution`
keeps a single version of each class inside one hierarchy.
"""

from __future__ import annotations

import re
import threading
import typing as t

from laguna.lang import errors, meta
from laguna.lang.functions import FunctionTable, language_functions
from laguna.lang.loader import ClassBuilder, class_name_of, shared_class_file
from laguna.lang.resolution import (
    ClassNotVisibleError,
    NoPackageForClassFound,
    NoPackageFound,
    unify,
)
from laguna.lang.types import MuranoClass, RuntimePackage
from laguna.errors import SourceError, decode_text
from laguna.packages.errors import CLASS_FILE_INVALID, PackageLoadError
from laguna.packages.package import Package
from laguna.packages.source import PackageSource, packages_with_class
from laguna.packages.versions import (
    Requirement,
    Version,
    parse_requirement,
    parse_version,
    requirement_for,
)
from laguna.source import Span

NativeBinder = t.Callable[[MuranoClass], None]
ANY = parse_requirement("*")
# what a model entry without any version asks for: "0", the highest 0.x
UNSPECIFIED = parse_requirement(None)
# A type as the original engine serialised it: name[/version][@package]
TYPE_STRING = re.compile(r"^([A-Za-z0-9_.]+)(?:/([^@]+))?(?:@([A-Za-z0-9_.]+))?$")


class PackageClasses:
    """The class files of one package version, parsed lazily."""

    def __init__(self, package: RuntimePackage,
                 files: t.Iterable[tuple[str, t.Callable[[], str]]],
                 declared: dict[str, str] | None = None) -> None:
        self.package = package
        self._files = list(files)          # (source path, text reader)
        self._declared = declared or {}    # class name -> source path (manifest Classes)
        self._docs: dict[str, dict[str, t.Any]] | None = None
        self._parsed_files: dict[str, list[dict[str, t.Any]]] = {}
        #: how each required package was resolved for this package (name -> package)
        self.bindings: dict[str, PackageClasses] = {}
        #: class names already resolved from this package's point of view
        self.resolved: dict[str, MuranoClass] = {}

    @classmethod
    def from_package(cls, package: Package) -> PackageClasses:
        """The classes of a package read by :mod:`laguna.packages`."""
        return SourcePackageClasses(package)

    def _parse(self, source: str, read: t.Callable[[], str]) -> list[dict[str, t.Any]]:
        docs = self._parsed_files.get(source)
        if docs is None:
            docs = shared_class_file(read(), source, self.package.legacy)
            self._parsed_files[source] = docs
        return docs

    def documents(self) -> dict[str, dict[str, t.Any]]:
        """Every class document by full class name (parses every file)."""
        if self._docs is None:
            docs: dict[str, dict[str, t.Any]] = {}
            readers = dict(self._files)
            for source, read in self._files:
                parsed = self._parse(source, read)
                declared_here = [n for n, s in self._declared.items() if s == source]
                _index_documents(parsed, declared_here, docs)
            for name, source in self._declared.items():
                if name not in docs:
                    raise _declared_missing(name, source, source in readers)
            self._docs = docs
        return self._docs

    def class_names(self) -> list[str]:
        return list(self.documents())

    def has_class(self, name: str) -> bool:
        return name in self.documents()

    def document(self, name: str) -> dict[str, t.Any]:
        return self.documents()[name]

    @property
    def version(self) -> Version:
        return self.package.version

    def __repr__(self) -> str:
        return f"<classes of {self.package.name}/{self.package.version}>"


class SourcePackageClasses(PackageClasses):
    """The classes of a :class:`~laguna.packages.package.Package`: only the file
    of a class that is built gets parsed."""

    def __init__(self, package: Package) -> None:
        manifest = package.manifest
        runtime = RuntimePackage(manifest.full_name, manifest.version,
                                 (manifest.format.major, manifest.format.minor),
                                 dict(manifest.require), manifest.meta)
        super().__init__(runtime, [])
        self.source = package
        self._names: frozenset[str] | None = None

    def class_names(self) -> list[str]:
        return self.source.class_names()

    def has_class(self, name: str) -> bool:
        if self._names is None:
            self._names = frozenset(self.source.class_names())
        return name in self._names

    def document(self, name: str) -> dict[str, t.Any]:
        try:
            path = self.source.class_path(name)
        except PackageLoadError:
            raise KeyError(name) from None
        try:
            text = decode_text(self.source.read(path), path, CLASS_FILE_INVALID)
        except PackageLoadError:
            raise _declared_missing(name, path, False) from None
        except SourceError as exc:
            raise errors.ClassLoadError(exc.message, exc.span, code=exc.code) from None
        parsed = self._parse(path, lambda: text)
        docs: dict[str, dict[str, t.Any]] = {}
        declared_here = [n for n, f in self.source.manifest.classes.items()
                         if self.source.class_path(n) == path]
        _index_documents(parsed, declared_here, docs)
        if name not in docs:
            raise _declared_missing(name, path, True)
        return docs[name]

    def documents(self) -> dict[str, dict[str, t.Any]]:
        return {name: self.document(name) for name in self.class_names()}


def _index_documents(parsed: list[dict[str, t.Any]], declared_here: list[str],
                     docs: dict[str, dict[str, t.Any]]) -> None:
    """Class documents of one file by name; a file declaring a single class in
    the manifest may leave that class's document unnamed."""
    unnamed = [d for d in parsed if d.get("Name") is None]
    for doc in parsed:
        name = class_name_of(doc)
        if name is not None:
            docs.setdefault(name, doc)
    if unnamed and len(declared_here) == 1 and declared_here[0] not in docs:
        docs[declared_here[0]] = unnamed[0]


def _declared_missing(name: str, source: str, exists: bool) -> errors.ClassLoadError:
    if not exists:
        return errors.ClassLoadError(
            f"class {name} is declared in the manifest but file {source} does not exist",
            None, code="LAG-E0240")
    return errors.ClassLoadError(
        f"class {name} is declared in the manifest but {source} does not define it",
        None, code="LAG-E0241")


def _requirement(spec: Requirement | str | None) -> Requirement:
    if spec is None:
        return ANY
    return spec if isinstance(spec, Requirement) else parse_requirement(spec)


class ClassRegistry:
    """The packages of a run and the classes built from them (see the module docstring)."""

    def __init__(self, *sources: PackageSource, functions: FunctionTable | None = None) -> None:
        #: the functions the classes' code may call (resolved when a class is
        #: built); the language's own when not given
        self.functions = functions if functions is not None else language_functions()
        #: loaded packages, in the order they were loaded
        self.packages: list[PackageClasses] = []
        self._versions: dict[str, dict[Version, PackageClasses]] = {}
        self._holders: dict[int, PackageClasses] = {}
        self._sources: list[PackageSource] = list(sources)
        self._available: dict[str, list[Version]] = {}
        self._fixed: dict[str, set[Version]] = {}
        self._built: dict[tuple[int, str], MuranoClass] = {}
        # the classes being built, in the order their builds started (a class
        # met again here extends itself; the names in between are the cycle)
        self._building: dict[tuple[int, str], str] = {}
        self._variants: dict[tuple[int, ...], MuranoClass] = {}
        self._natives: dict[str, list[NativeBinder]] = {}
        self._lock = threading.RLock()

    # -- packages -----------------------------------------------------------------
    def add(self, package: PackageClasses) -> PackageClasses:
        """Make a package version part of the run. A second package with the same
        name and version is still usable by its own classes, but lookups keep
        finding the first one."""
        with self._lock:
            if id(package.package) in self._holders:
                return package
            self._holders[id(package.package)] = package
            self.packages.append(package)
            versions = self._versions.setdefault(package.package.name, {})
            versions.setdefault(package.package.version, package)
            return package

    def add_source(self, source: PackageSource) -> None:
        """Draw packages from ``source`` too (after the sources given before)."""
        with self._lock:
            self._sources.append(source)
            self._available.clear()

    def bind_native(self, class_name: str, binder: NativeBinder) -> None:
        """Add Python-implemented methods to a class when it is built."""
        self._natives.setdefault(class_name, []).append(binder)

    def package_of(self, package: RuntimePackage) -> PackageClasses | None:
        """The loaded package a class's :class:`RuntimePackage` belongs to."""
        return self._holders.get(id(package))

    def loaded_versions(self, name: str) -> list[Version]:
        return sorted(self._versions.get(name, {}))

    def available_versions(self, name: str) -> list[Version]:
        """Every version of ``name`` loaded or offered by a source, ascending."""
        with self._lock:
            offered = self._available.get(name)
            if offered is None:
                offered = sorted({v for s in self._sources for v in s.versions(name)})
                self._available[name] = offered
            return sorted(set(offered) | set(self._versions.get(name, {})))

    def package_version(self, name: str, version: Version) -> PackageClasses:
        """That exact version of a package, loading it from a source if needed."""
        with self._lock:
            loaded = self._versions.get(name, {}).get(version)
            if loaded is not None:
                return loaded
            for source in self._sources:
                if version in source.versions(name):
                    return self.add(PackageClasses.from_package(source.get(name, version)))
            raise NoPackageFound(name, requirement_for(version), self.available_versions(name))

    def load_package(self, name: str, requirement: Requirement | str | None = None,
                     required_by: RuntimePackage | None = None) -> PackageClasses:
        """A version of ``name`` satisfying ``requirement``: a loaded one if any
        fits (the highest), else a pinned one, else the highest available."""
        wanted = _requirement(requirement)
        with self._lock:
            loaded = self._versions.get(name, {})
            version = wanted.select(loaded)
            if version is not None:
                return loaded[version]
            available = self.available_versions(name)
            version = wanted.select(self._fixed.get(name, set()) & set(available))
            if version is None:
                version = wanted.select(available)
            if version is None:
                raise NoPackageFound(name, wanted, available, required_by)
            return self.package_version(name, version)

    def load_class_package(self, class_name: str,
                           requirement: Requirement | str | None = None) -> PackageClasses:
        """The package to take ``class_name`` from when nobody requires it: a loaded
        package defining it (the highest fitting version), else the highest
        fitting version a source offers, pinned versions first."""
        wanted = _requirement(requirement)
        with self._lock:
            best: PackageClasses | None = None
            for holder in self.packages:
                if wanted.match(holder.version) and holder.has_class(class_name) and (
                        best is None or holder.version > best.version):
                    best = holder
            if best is not None:
                return best
            # in the sources' order: of equal versions, the first offered wins
            defining = list(dict.fromkeys(
                (version, name) for source in self._sources
                for name, version in packages_with_class(source, class_name)))
            offered = [pair for pair in defining if wanted.match(pair[0])]
            if not offered:
                # the versions that were passed over say why (a classVersion of
                # 0 finding only a 1.0, say)
                passed_over = set(defining) | {(h.version, h.package.name) for h in self.packages
                                               if h.has_class(class_name)}
                raise NoPackageForClassFound(class_name, None if requirement is None else wanted,
                                             sorted(passed_over))
            pinned = [(v, n) for v, n in offered if v in self._fixed.get(n, ())]
            version, name = max(pinned or offered, key=lambda pair: pair[0])
            return self.package_version(name, version)

    # -- pins ---------------------------------------------------------------------
    def fixations(self) -> dict[str, list[str]]:
        """The package versions this run loaded, to be saved with a model."""
        return {name: [str(v) for v in sorted(versions)]
                for name, versions in sorted(self._versions.items())}

    def fix(self, table: t.Mapping[str, t.Iterable[str]] | None) -> None:
        """Prefer these versions when a requirement has to load a package (a saved
        model's :meth:`fixations`), so a redeployment keeps its versions."""
        for name, versions in (table or {}).items():
            self._fixed.setdefault(str(name), set()).update(
                parse_version(str(v)) for v in versions)

    # -- classes ------------------------------------------------------------------
    def find(self, name: str, requester: RuntimePackage | None = None) -> MuranoClass:
        """The class ``name`` as code of package ``requester`` sees it."""
        with self._lock:
            holder = self._holders.get(id(requester)) if requester is not None else None
            if holder is None:
                return self.class_of(self.load_class_package(name), name)
            cls = holder.resolved.get(name)
            if cls is None:
                cls = self._find_from(holder, name)
                holder.resolved[name] = cls
            return cls

    def _find_from(self, holder: PackageClasses, name: str) -> MuranoClass:
        if holder.has_class(name):
            return self.class_of(holder, name)
        package = holder.package
        searched = [package]
        missing: list[tuple[str, Requirement]] = []
        for required, requirement in package.requirements.items():
            if required == package.name:
                continue
            dependency = holder.bindings.get(required)
            if dependency is None:
                try:
                    dependency = self.load_package(required, requirement, package)
                except NoPackageFound:
                    missing.append((required, requirement))
                    continue
                holder.bindings[required] = dependency
            if dependency.has_class(name):
                return self.class_of(dependency, name)
            searched.append(dependency.package)
        raise ClassNotVisibleError(name, searched, missing)

    def find_for_model(self, type_name: str, header: t.Mapping[str, t.Any],
                       scope: MuranoClass | None = None) -> MuranoClass:
        """The class of an object-model entry (its ``?`` header).

        ``package`` and ``version`` pin the package and its exact version (what
        a saved model carries); ``classVersion`` is a version requirement; the
        type may also be written ``name/version@package``. Without pins the
        class is looked up as ``scope``'s code would see it, else globally in
        the version ``0`` (the highest 0.x), as the original engine read an
        absent or empty ``classVersion``: a model written for a 0.x
        application keeps it when a 1.0 of that application is imported. When
        no 0.x defines the class, the most recent version does.
        """
        match = TYPE_STRING.match(type_name.strip())
        name, version, package = (match.groups() if match else (type_name, None, None))
        version = header.get("version") or version
        package = header.get("package") or package
        if scope is not None:
            name = scope.resolve_name(name)
        requirement: Requirement | None = None
        class_version = header.get("classVersion")
        if version:
            requirement = requirement_for(parse_version(str(version)))
        elif class_version is not None and str(class_version).strip():
            requirement = parse_requirement(str(class_version))
        with self._lock:
            if package:
                holder = self.load_package(str(package), requirement)
                if not holder.has_class(name):
                    raise ClassNotVisibleError(name, [holder.package])
                return self.class_of(holder, name)
            if requirement is None and scope is not None:
                try:
                    return self.find(name, scope.package)
                except errors.NoClassFound:
                    pass
            if requirement is None:
                try:
                    holder = self.load_class_package(name, UNSPECIFIED)
                except NoPackageForClassFound:
                    # no 0.x defines it: the most recent version (seed item
                    # 10) rather than the original engine's refusal
                    holder = self.load_class_package(name)
                return self.class_of(holder, name)
            return self.class_of(self.load_class_package(name, requirement), name)

    def class_of(self, holder: PackageClasses, name: str) -> MuranoClass:
        """The class ``name`` of exactly that package version, built once."""
        with self._lock:
            key = (id(holder), name)
            cls = self._built.get(key)
            if cls is not None:
                return cls
            if key in self._building:
                names = list(self._building.values())
                cycle = [*names[list(self._building).index(key):], name]
                raise errors.ClassLoadError(
                    f"class {name} inherits from itself: {' -> '.join(cycle)}",
                    _extends_span(holder.document(name)), code="LAG-E0204")
            self._building[key] = name
            try:
                doc = holder.document(name)
                package = holder.package
                cls = ClassBuilder(package, lambda n: self.find(n, package),
                                   self.functions).build(doc, name)
                self._bind(cls)
                cls = unify(cls, self, _extends_span(doc))
                package.classes[name] = cls
                self._built[key] = cls
            finally:
                self._building.pop(key, None)
            # Meta is checked once the class is built, so that meta classes
            # naming this class (in contracts, in their own meta) find it
            # rather than a cycle; a class that fails is not kept.
            try:
                meta.check_class(cls, self)
            except BaseException:
                self._built.pop(key, None)
                package.classes.pop(name, None)
                raise
            return cls

    def variant(self, cls: MuranoClass, parents: list[MuranoClass]) -> MuranoClass:
        """``cls`` rebuilt on other versions of its parents (same names)."""
        with self._lock:
            key = (id(cls), *(id(p) for p in parents))
            found = self._variants.get(key)
            if found is not None:
                return found
            holder = self._holders[id(cls.package)]
            by_name = {p.name: p for p in parents}
            package = cls.package
            builder = ClassBuilder(package, lambda n: by_name.get(n) or self.find(n, package),
                                   self.functions)
            found = builder.build(holder.document(cls.name), cls.name)
            self._bind(found)
            self._variants[key] = found
            return found

    def _bind(self, cls: MuranoClass) -> None:
        for binder in self._natives.get(cls.name, []):
            binder(cls)

    def all_class_names(self) -> list[str]:
        """Names of the classes of every loaded package."""
        names: dict[str, None] = {}
        for package in self.packages:
            for name in package.class_names():
                names[name] = None
        return list(names)


def _extends_span(doc: t.Mapping[str, t.Any]) -> Span | None:
    spans = getattr(doc, "key_spans", None)
    if spans and "Extends" in spans:
        return t.cast(Span, spans["Extends"])
    return t.cast("Span | None", getattr(doc, "span", None))


__all__ = ["ClassRegistry", "NativeBinder", "PackageClasses", "SourcePackageClasses"]
