"""MuranoPL types: classes, their properties, methods and arguments."""

from __future__ import annotations

import collections
import enum
import typing as t

import semantic_version

from laguna.lang import errors
from laguna.packages.versions import (
    Requirement, parse_requirement, parse_version, same_major_requirement,
)
from laguna.source import Span

if t.TYPE_CHECKING:
    from laguna.lang.contracts import Contract
    from laguna.lang.macros import MethodBlock

OBJECT_CLASS = "io.murano.Object"
CORE_LIBRARY = "io.murano"


class PropertyUsage(str, enum.Enum):
    In = "In"
    Out = "Out"
    InOut = "InOut"
    Const = "Const"
    Runtime = "Runtime"
    Static = "Static"
    Config = "Config"


WRITABLE_USAGES = frozenset({PropertyUsage.Out, PropertyUsage.InOut, PropertyUsage.Runtime,
                             PropertyUsage.Static, PropertyUsage.Config})


class MethodUsage(str, enum.Enum):
    Runtime = "Runtime"
    Static = "Static"
    Extension = "Extension"
    Action = "Action"


class MethodScope(str, enum.Enum):
    Session = "Session"
    Public = "Public"


class ArgumentUsage(str, enum.Enum):
    Standard = "Standard"
    VarArgs = "VarArgs"
    KwArgs = "KwArgs"


class RuntimePackage:
    """What the engine needs to know of the package a class comes from."""

    def __init__(self, name: str, version: semantic_version.Version | str = "0.0.0",
                 format_version: tuple[int, int] = (1, 4),
                 requirements: dict[str, t.Any] | None = None,
                 meta: t.Any = None) -> None:
        self.name = name
        self.version = (version if isinstance(version, semantic_version.Version)
                        else parse_version(str(version)))
        self.format_version = format_version
        #: Formats 1.0 and 1.1 run yaql in its legacy (0.2-compatible) mode
        #: (an attribute, not a property: every call reads it)
        self.legacy: bool = format_version <= (1, 1)
        #: required packages in lookup order: io.murano (implicitly "0") first
        self.requirements = _requirements(name, requirements or {})
        self._own_requirement = same_major_requirement(self.version)
        self.meta = meta
        self.classes: dict[str, MuranoClass] = {}
        self.view: t.Any = None            # its reflection object (lang.reflection)

    def requirement_for(self, package_name: str) -> Requirement | None:
        """The versions of ``package_name`` this package may use; for itself,
        any version with the same major number."""
        if package_name == self.name:
            return self._own_requirement
        return self.requirements.get(package_name)


    def __repr__(self) -> str:
        return f"<package {self.name}/{self.version}>"


def _requirements(name: str, given: t.Mapping[str, t.Any]) -> dict[str, Requirement]:
    result: dict[str, Requirement] = {}
    if name != CORE_LIBRARY:
        result[CORE_LIBRARY] = parse_requirement("0")
    for package, spec in given.items():
        result[str(package)] = (spec if isinstance(spec, Requirement) else
                                parse_requirement(None if spec is None else str(spec)))
    return result


class Argument:
    __slots__ = ("name", "contract", "has_default", "default", "usage", "meta", "span", "method",
                 "view")

    def __init__(self, name: str, contract: Contract, has_default: bool, default: t.Any,
                 usage: ArgumentUsage, meta: t.Any, span: Span | None) -> None:
        self.name = name
        self.contract = contract
        self.has_default = has_default
        self.default = default
        self.usage = usage
        self.meta = meta
        self.span = span
        self.method: Method | None = None
        self.view: t.Any = None


class Method:
    """A MuranoPL method, or a native (Python) one when ``native`` is set."""

    def __init__(self, name: str, declaring_type: MuranoClass, *,
                 arguments: list[Argument] | None = None,
                 body: MethodBlock | None = None,
                 native: t.Callable[..., t.Any] | None = None,
                 usage: MethodUsage = MethodUsage.Runtime,
                 scope: MethodScope = MethodScope.Session,
                 meta: t.Any = None, span: Span | None = None) -> None:
        self.name = name
        self.declaring_type = declaring_type
        self.arguments = arguments if arguments is not None else []
        for argument in self.arguments:
            argument.method = self
        self.arguments_by_name = {a.name: a for a in self.arguments}
        self.body = body
        self.native = native
        self.usage = usage
        self.scope = scope
        self.meta = meta
        self.span = span
        self.view: t.Any = None
        self.is_static = usage in (MethodUsage.Static, MethodUsage.Extension)
        self.is_extension = usage is MethodUsage.Extension
        self.is_action = scope is MethodScope.Public or usage is MethodUsage.Action
        self.varargs = next((a.name for a in self.arguments
                             if a.usage is ArgumentUsage.VarArgs), None)
        self.kwargs = next((a.name for a in self.arguments
                            if a.usage is ArgumentUsage.KwArgs), None)
        self.standard = [a.name for a in self.arguments if a.usage is ArgumentUsage.Standard]
        # each argument's variable name ('$n') when all are standard: the
        # arguments of a call by position bind straight into the method's scope
        self.locals: tuple[tuple[str, Argument], ...] | None = (
            tuple(("$" + a.name, a) for a in self.arguments)
            if len(self.standard) == len(self.arguments) else None)

    def __repr__(self) -> str:
        return f"<method {self.declaring_type.name}::{self.name}>"


class Property:
    __slots__ = ("name", "contract", "has_default", "default", "usage", "declaring_type",
                 "meta", "span", "view")

    def __init__(self, name: str, contract: Contract, has_default: bool, default: t.Any,
                 usage: PropertyUsage, declaring_type: MuranoClass, meta: t.Any,
                 span: Span | None) -> None:
        self.name = name
        self.contract = contract
        self.has_default = has_default
        self.default = default
        self.usage = usage
        self.declaring_type = declaring_type
        self.meta = meta
        self.span = span
        self.view: t.Any = None

    def __repr__(self) -> str:
        return f"<property {self.declaring_type.name}.{self.name}>"


class TypeRef:
    """The type object of a class (`ns:Name`, `type('a.B')`): one per class."""

    __slots__ = ("type",)

    def __init__(self, murano_class: MuranoClass) -> None:
        self.type = murano_class

    def __repr__(self) -> str:
        return f"<type {self.type.name}/{self.type.version}>"


class NamespaceResolver:
    """Expands `prefix:Name`, `:Name` and `Name` with a class's Namespaces."""

    def __init__(self, namespaces: dict[str, str]) -> None:
        self.namespaces = namespaces

    def resolve(self, name: str) -> str:
        name = str(name)
        if ":" not in name:
            if "." in name:
                return name
            prefix, short = "=", name
        else:
            prefix, short = name.split(":", 1)
            if prefix == "=":   # `=` only declares the default namespace
                raise errors.InvalidTypeName(name)
            prefix = prefix or "="
        if prefix not in self.namespaces:
            if prefix == "=":
                return short
            raise errors.NoClassFound(f"{name} (unknown namespace prefix {prefix!r})")
        namespace = self.namespaces[prefix]
        return f"{namespace}.{short}" if namespace else short


class MuranoClass:
    """A loaded MuranoPL class (one version of it)."""

    def __init__(self, name: str, package: RuntimePackage, parents: list[MuranoClass],
                 namespaces: dict[str, str] | None = None, span: Span | None = None,
                 usage: str = "Class") -> None:
        self.name = name
        self.package = package
        # One version of a class may exist as several objects: rebuilt on other
        # versions of its parents inside a hierarchy (lang.resolution). They are
        # the same class, so equality is by name and package version.
        self._key = (name, package.name, package.version)
        self._hash = hash(self._key)
        self.parents = parents
        self.resolver = NamespaceResolver(namespaces or {})
        self.span = span
        self.usage = usage
        self.properties: dict[str, Property] = {}
        self.methods: dict[str, Method] = {}
        self.imports: list[MuranoClass] = []
        self.meta: t.Any = None
        self.meta_cardinality = "One"
        self.meta_applies: frozenset[str] = frozenset({"All"})
        self.meta_inherited = False
        self.native: t.Any = None          # Python implementation, if any
        self.ref = TypeRef(self)
        self.view: t.Any = None            # its reflection object (lang.reflection)
        self.type_cache: dict[tuple[str, str], TypeRef] = {}
        self._method_cache: dict[str, list[Method]] = {}
        self._property_cache: dict[str, list[Property]] = {}
        self._specs_cache: dict[str, list[Property]] = {}
        self._property_names: list[str] | None = None
        self._declarations: dict[str, tuple[Property, list[Property]]] | None = None
        self._extensions: dict[str, list[Method]] | None = None
        self._init_order: tuple[MuranoClass, ...] | None = None
        self.mro = self._linearize()
        self.ancestry = frozenset(self.mro)

    @property
    def version(self) -> semantic_version.Version:
        return self.package.version

    def __repr__(self) -> str:
        return f"<class {self.name}/{self.version}>"

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, MuranoClass) and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash

    def _linearize(self) -> list[MuranoClass]:
        """Self, then ancestors breadth first, each once (the original engine's order)."""
        order: list[MuranoClass] = []
        seen: set[int] = set()
        queue: collections.deque[MuranoClass] = collections.deque([self])
        while queue:
            cls = queue.popleft()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            order.append(cls)
            queue.extend(cls.parents)
        return order

    def ancestors(self) -> list[MuranoClass]:
        return self.mro[1:]

    def is_subclass_of(self, other: MuranoClass) -> bool:
        return other in self.ancestry

    def resolve_name(self, name: str) -> str:
        return self.resolver.resolve(name)

    def _dominant(self, definers: list[MuranoClass]) -> list[MuranoClass]:
        """Definitions not overridden along some path: a definer that is an
        ancestor of another definer is hidden by it."""
        return [c for c in definers
                if not any(o is not c and c in o.ancestry for o in definers)]

    def find_methods(self, name: str) -> list[Method]:
        """The implementations `name` resolves to from this class (more than one is ambiguous)."""
        cached = self._method_cache.get(name)
        if cached is None:
            definers = [c for c in self.mro if name in c.methods]
            cached = [c.methods[name] for c in self._dominant(definers)]
            self._method_cache[name] = cached
        return cached

    def find_method(self, name: str) -> Method:
        found = self.find_methods(name)
        if not found:
            raise errors.NoMethodFound(name, self.name)
        if len(found) > 1:
            raise errors.AmbiguousMethodName(name)
        return found[0]

    def find_properties(self, name: str) -> list[Property]:
        cached = self._property_cache.get(name)
        if cached is None:
            definers = [c for c in self.mro if name in c.properties]
            cached = [c.properties[name] for c in self._dominant(definers)]
            self._property_cache[name] = cached
        return cached

    def find_property(self, name: str) -> Property | None:
        found = self.find_properties(name)
        if not found:
            return None
        if len(found) > 1:
            raise errors.AmbiguousPropertyNameError(name)
        return found[0]

    def all_property_specs(self, name: str) -> list[Property]:
        """Every declaration of `name` in the hierarchy, most derived first."""
        cached = self._specs_cache.get(name)
        if cached is None:
            cached = [c.properties[name] for c in self.mro if name in c.properties]
            self._specs_cache[name] = cached
        return cached

    def property_declarations(self) -> dict[str, tuple[Property, list[Property]]] | None:
        """Each property (in :meth:`property_names` order) with its ultimate
        declaration and all of them (:meth:`all_property_specs`): what
        creating an object writes its properties through, looked up once.
        None while a name is ambiguous (then each lookup raises in turn)."""
        if self._declarations is None:
            declarations = {}
            for name in self.property_names():
                try:
                    ultimate = self.find_property(name)
                except errors.AmbiguousPropertyNameError:
                    return None
                assert ultimate is not None
                declarations[name] = (ultimate, self.all_property_specs(name))
            self._declarations = declarations
        return self._declarations

    def init_order(self) -> tuple[MuranoClass, ...]:
        """This class and its ancestors in the order their `.init` run:
        parents before children, each class once (post-order over Extends);
        found once (every new object asks)."""
        if self._init_order is None:
            order: list[MuranoClass] = []
            seen: set[int] = set()

            def visit(c: MuranoClass) -> None:
                if id(c) in seen:
                    return
                seen.add(id(c))
                for parent in c.parents:
                    visit(parent)
                order.append(c)
            visit(self)
            self._init_order = tuple(order)
        return self._init_order

    def property_names(self) -> list[str]:
        if self._property_names is None:
            names: dict[str, None] = {}
            for cls in reversed(self.mro):
                for name in cls.properties:
                    names[name] = None
            self._property_names = list(names)
        return list(self._property_names)

    def extension_methods(self, name: str) -> list[Method]:
        """Extension methods called `name` visible in this class's code:
        its own (and inherited), then those of imported classes in order."""
        if self._extensions is None:
            table: dict[str, list[Method]] = {}
            for source in [self] + self.imports:
                for cls in source.mro:
                    for method in cls.methods.values():
                        if method.is_extension:
                            table.setdefault(method.name, []).append(method)
            self._extensions = table
        return self._extensions.get(name, [])

    def invalidate(self) -> None:
        self._extensions = None
        self._method_cache.clear()
        self._property_cache.clear()
        self._specs_cache.clear()
        self._property_names = None
