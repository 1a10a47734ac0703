"""Where classes come from: packages of class files, and native classes.

A :class:`ClassRegistry` knows every package handed to it; it parses a
package's class files on first use and builds classes on demand, so a run
pays only for the classes it touches.
"""

from __future__ import annotations

import threading
import typing as t

from laguna.lang import errors
from laguna.lang.loader import ClassBuilder, class_name_of, parse_class_file
from laguna.lang.types import MuranoClass, RuntimePackage

NativeBinder = t.Callable[[MuranoClass], None]


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

    def _parse(self, source: str, read: t.Callable[[], str]) -> list[dict[str, t.Any]]:
        docs = self._parsed_files.get(source)
        if docs is None:
            docs = parse_class_file(read(), source, self.package.legacy)
            self._parsed_files[source] = docs
        return docs

    def documents(self) -> dict[str, dict[str, t.Any]]:
        if self._docs is None:
            docs: dict[str, dict[str, t.Any]] = {}
            readers = dict(self._files)
            for source, read in self._files:
                parsed = self._parse(source, read)
                declared_here = [n for n, s in self._declared.items() if s == source]
                unnamed = [d for d in parsed if d.get("Name") is None]
                for doc in parsed:
                    name = class_name_of(doc)
                    if name is not None:
                        docs.setdefault(name, doc)
                if unnamed and len(declared_here) == 1 and declared_here[0] not in docs:
                    docs[declared_here[0]] = unnamed[0]
            for name, source in self._declared.items():
                if name not in docs and source not in readers:
                    raise errors.ClassLoadError(
                        f"class {name} is declared in the manifest but file {source} "
                        "does not exist", None, code="LAG-E0240")
                if name not in docs:
                    raise errors.ClassLoadError(
                        f"class {name} is declared in the manifest but {source} does not "
                        "define it", None, code="LAG-E0241")
            self._docs = docs
        return self._docs

    def class_names(self) -> list[str]:
        return list(self.documents())


class ClassRegistry:
    """All packages of a run; finds and builds classes by full name."""

    def __init__(self) -> None:
        self.packages: list[PackageClasses] = []
        self._built: dict[tuple[str, str, str], MuranoClass] = {}
        self._building: set[tuple[str, str, str]] = set()
        self._natives: dict[str, list[NativeBinder]] = {}
        self._lock = threading.RLock()

    def add(self, package: PackageClasses) -> None:
        self.packages.append(package)

    def bind_native(self, class_name: str, binder: NativeBinder) -> None:
        """Add Python-implemented methods to a class when it is built."""
        self._natives.setdefault(class_name, []).append(binder)

    def _candidates(self, name: str, requester: RuntimePackage | None) -> list[PackageClasses]:
        found = [p for p in self.packages if name in p.documents()]
        if requester is not None:
            own = [p for p in found if p.package is requester]
            if own:
                return own
        found.sort(key=lambda p: p.package.version, reverse=True)
        return found

    def find(self, name: str, requester: RuntimePackage | None = None) -> MuranoClass:
        with self._lock:
            candidates = self._candidates(name, requester)
            if not candidates:
                raise errors.NoClassFound(name)
            holder = candidates[0]
            key = (holder.package.name, str(holder.package.version), name)
            cls = self._built.get(key)
            if cls is not None:
                return cls
            if key in self._building:
                raise errors.ClassLoadError(f"class {name} inherits from itself",
                                            holder.documents()[name].get("Name") and
                                            getattr(holder.documents()[name], "span", None),
                                            code="LAG-E0204")
            self._building.add(key)
            try:
                doc = holder.documents()[name]
                builder = ClassBuilder(holder.package,
                                       lambda n: self.find(n, holder.package))
                cls = builder.build(doc, name)
                for binder in self._natives.get(name, []):
                    binder(cls)
                holder.package.classes[name] = cls
                self._built[key] = cls
                return cls
            finally:
                self._building.discard(key)

    def all_class_names(self) -> list[str]:
        names: dict[str, None] = {}
        for package in self.packages:
            for name in package.class_names():
                names[name] = None
        return list(names)
