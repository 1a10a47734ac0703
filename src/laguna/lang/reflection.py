"""Reflection: the objects `typeinfo()` returns and everything reachable from them.

MuranoPL code never sees Python objects (the sandbox); the engine's own
:class:`MuranoClass`, :class:`Property`, :class:`Method`, :class:`Argument` and
:class:`RuntimePackage` are described to it by *views*. A view exposes exactly
the members its class lists with the :func:`attribute` and :func:`method`
decorators; :mod:`laguna.lang.dispatch` consults those tables and nothing
else::

    ReflectionView
     +-- TypeInfo        typeinfo($obj), typeinfo(ns:Class)
     +-- PropertyInfo    typeinfo($).properties
     +-- MethodInfo      typeinfo($).methods
     +-- ArgumentInfo    $method.arguments
     +-- PackageInfo     typeinfo($).package
     +-- SemVer          $typeInfo.version, $package.version

There is one view per engine object (kept on the object itself), so views
compare with `=`, work with `in` and keep their identity across calls. Views
do not depend on an executor; the `meta` of each is built per executor by
:mod:`laguna.lang.meta`.
"""

from __future__ import annotations

import threading
import typing as t

import semantic_version

from laguna.lang import errors, meta
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import NO_VALUE
from laguna.lang.types import (
    Argument, Method, MuranoClass, Property, PropertyUsage, RuntimePackage, TypeRef,
)

if t.TYPE_CHECKING:
    from laguna.lang.scope import Frame

Getter = t.Callable[[t.Any, "Frame"], t.Any]
Invoker = t.Callable[[t.Any, "Frame", list[t.Any], dict[str, t.Any]], t.Any]

_ALL_TARGETS = ("Package", "Type", "Property", "Method", "Argument")
_lock = threading.Lock()


class InvalidReflectionTarget(errors.DslInvalidOperationError):
    """getValue/setValue/invoke got a target that cannot take the member."""

    code = "LAG-E0810"


def attribute(name: str) -> t.Callable[[Getter], Getter]:
    """Expose a getter ``fn(view, frame)`` to MuranoPL as attribute ``name``."""
    def mark(fn: Getter) -> Getter:
        fn._muranopl = ("attribute", name)  # type: ignore[attr-defined]
        return fn
    return mark


def method(name: str) -> t.Callable[[Invoker], Invoker]:
    """Expose ``fn(view, frame, args, kwargs)`` to MuranoPL as method ``name``."""
    def mark(fn: Invoker) -> Invoker:
        fn._muranopl = ("method", name)  # type: ignore[attr-defined]
        return fn
    return mark


class ReflectionView:
    """An engine object as MuranoPL may see it: only the listed members.

    ``attributes`` and ``methods`` are built from the decorated functions of
    each subclass (and its bases). A getter may return ``NO_VALUE`` to say
    "no such member here" (e.g. `cardinality` of a class that is not a meta
    class), which lets the call fail the way an unknown member fails.
    """

    __slots__ = ()
    attributes: t.ClassVar[dict[str, Getter]] = {}
    methods: t.ClassVar[dict[str, Invoker]] = {}

    def __init_subclass__(cls, **kwargs: t.Any) -> None:
        super().__init_subclass__(**kwargs)
        attributes: dict[str, Getter] = {}
        methods: dict[str, Invoker] = {}
        for klass in reversed(cls.__mro__):
            for value in vars(klass).values():
                exposed = getattr(value, "_muranopl", None)
                if exposed is None:
                    continue
                kind, name = exposed
                (attributes if kind == "attribute" else methods)[name] = value
        cls.attributes = attributes
        cls.methods = methods


def _cached(owner: t.Any, factory: t.Callable[[], ReflectionView]) -> t.Any:
    view = owner.view
    if view is None:
        # a lock so that two threads asking first still share one view (identity is `=`)
        with _lock:
            view = owner.view
            if view is None:
                view = owner.view = factory()
    return view


def type_info(cls: MuranoClass) -> TypeInfo:
    return t.cast(TypeInfo, _cached(cls, lambda: TypeInfo(cls)))


def property_info(prop: Property) -> PropertyInfo:
    return t.cast(PropertyInfo, _cached(prop, lambda: PropertyInfo(prop)))


def method_info(murano_method: Method) -> MethodInfo:
    return t.cast(MethodInfo, _cached(murano_method, lambda: MethodInfo(murano_method)))


def argument_info(argument: Argument) -> ArgumentInfo:
    return t.cast(ArgumentInfo, _cached(argument, lambda: ArgumentInfo(argument)))


def package_info(package: RuntimePackage) -> PackageInfo:
    return t.cast(PackageInfo, _cached(package, lambda: PackageInfo(package)))


def _visible(name: str) -> bool:
    # `.init`, `.destroy` and `__`-names are engine hooks, not members to list
    return not (name.startswith(".") or name.startswith("__"))


def _member_names(cls: MuranoClass, table: str) -> list[str]:
    """Names declared by the class first (in declaration order), then by its
    ancestors in resolution order, each once."""
    names: dict[str, None] = {}
    for klass in cls.mro:
        for name in getattr(klass, table):
            if _visible(name):
                names[name] = None
    return list(names)


def _arity(member: str, args: list[t.Any], kwargs: dict[str, t.Any],
           params: tuple[str, ...]) -> None:
    if kwargs or len(args) != len(params):
        raise errors.NoMatchingMethod(
            f"{member}() takes {len(params)} positional argument(s) ({', '.join(params)})")


def _describe(value: t.Any) -> str:
    if isinstance(value, MuranoObject):
        return f"an object of class {value.real_this.type.name}"
    if isinstance(value, TypeRef):
        return f"the type object of {value.type.name}"
    if isinstance(value, ReflectionView):
        return f"a {type(value).__name__}"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)


# -- versions -------------------------------------------------------------------------
class SemVer(ReflectionView):
    """A semantic version: `str()` gives '1.2.3'; `major`, `minor`, `patch`,
    `prerelease` and `build` give its parts; two versions compare with `=`."""

    __slots__ = ("value",)

    def __init__(self, value: semantic_version.Version) -> None:
        self.value = value

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"<version {self.value}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SemVer) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    @attribute("major")
    def _major(self, frame: Frame) -> int:
        return int(self.value.major)

    @attribute("minor")
    def _minor(self, frame: Frame) -> int:
        return int(self.value.minor)

    @attribute("patch")
    def _patch(self, frame: Frame) -> int:
        return int(self.value.patch)

    @attribute("prerelease")
    def _prerelease(self, frame: Frame) -> tuple[str, ...]:
        return tuple(str(p) for p in self.value.prerelease)

    @attribute("build")
    def _build(self, frame: Frame) -> tuple[str, ...]:
        return tuple(str(p) for p in self.value.build)


# -- types ----------------------------------------------------------------------------
class TypeInfo(ReflectionView):
    """A class as `typeinfo()` describes it.

    Members: `name`, `version`, `ancestors`, `properties`, `methods`,
    `package`, `type` (the type object, for `new()` and the like), `usage`
    ('Class' or 'Meta'), `meta`; meta classes add `cardinality`, `targets`
    and `inherited`.
    """

    __slots__ = ("cls",)

    def __init__(self, cls: MuranoClass) -> None:
        self.cls = cls

    def __repr__(self) -> str:
        return f"<typeinfo {self.cls.name}/{self.cls.version}>"

    @attribute("name")
    def _name(self, frame: Frame) -> str:
        return self.cls.name

    @attribute("version")
    def _version(self, frame: Frame) -> SemVer:
        return package_info(self.cls.package).version

    @attribute("ancestors")
    def _ancestors(self, frame: Frame) -> tuple[TypeInfo, ...]:
        return tuple(type_info(c) for c in self.cls.ancestors())

    @attribute("properties")
    def _properties(self, frame: Frame) -> tuple[PropertyInfo, ...]:
        return tuple(property_info(p) for name in _member_names(self.cls, "properties")
                     for p in self.cls.find_properties(name))

    @attribute("methods")
    def _methods(self, frame: Frame) -> tuple[MethodInfo, ...]:
        return tuple(method_info(m) for name in _member_names(self.cls, "methods")
                     for m in self.cls.find_methods(name))

    @attribute("package")
    def _package(self, frame: Frame) -> PackageInfo:
        return package_info(self.cls.package)

    @attribute("type")
    def _type(self, frame: Frame) -> TypeRef:
        return self.cls.ref

    @attribute("usage")
    def _usage(self, frame: Frame) -> str:
        return self.cls.usage

    @attribute("meta")
    def _meta(self, frame: Frame) -> tuple[MuranoObject, ...]:
        return meta.class_meta(self.cls, frame)

    @attribute("cardinality")
    def _cardinality(self, frame: Frame) -> t.Any:
        return self.cls.meta_cardinality if self.cls.usage == "Meta" else NO_VALUE

    @attribute("targets")
    def _targets(self, frame: Frame) -> t.Any:
        if self.cls.usage != "Meta":
            return NO_VALUE
        applies = self.cls.meta_applies
        return tuple(a for a in _ALL_TARGETS if a in applies or "All" in applies)

    @attribute("inherited")
    def _inherited(self, frame: Frame) -> t.Any:
        return self.cls.meta_inherited if self.cls.usage == "Meta" else NO_VALUE


# -- properties -------------------------------------------------------------------------
class PropertyInfo(ReflectionView):
    """A declared property: `name`, `hasDefault`, `usage`, `declaringType`,
    `meta`, and `getValue($target)` / `setValue($target, $value)`."""

    __slots__ = ("prop",)

    def __init__(self, prop: Property) -> None:
        self.prop = prop

    def __repr__(self) -> str:
        return f"<property info {self.prop.declaring_type.name}.{self.prop.name}>"

    @attribute("name")
    def _name(self, frame: Frame) -> str:
        return self.prop.name

    @attribute("hasDefault")
    def _has_default(self, frame: Frame) -> bool:
        return self.prop.has_default

    @attribute("usage")
    def _usage(self, frame: Frame) -> str:
        return self.prop.usage.value

    @attribute("declaringType")
    def _declaring_type(self, frame: Frame) -> TypeInfo:
        return type_info(self.prop.declaring_type)

    @attribute("meta")
    def _meta(self, frame: Frame) -> tuple[MuranoObject, ...]:
        return meta.property_meta(self.prop, frame)

    def _target(self, target: t.Any, member: str) -> MuranoObject | None:
        """The object to read or write; None for a static property read through
        null or a type object."""
        prop = self.prop
        owner = prop.declaring_type
        static = prop.usage is PropertyUsage.Static
        if isinstance(target, MuranoObject) and owner in target.real_this.type.ancestry:
            return target.real_this
        if static and (target is None or (isinstance(target, TypeRef)
                                          and owner in target.type.ancestry)):
            return None
        wanted = f"an object of class {owner.name}"
        if static:
            wanted += ", its type object or null"
        raise InvalidReflectionTarget(
            f"{member}() of property {owner.name}.{prop.name} needs {wanted}, "
            f"got {_describe(target)}")

    @method("getValue")
    def _get_value(self, frame: Frame, args: list[t.Any], kwargs: dict[str, t.Any]) -> t.Any:
        """The property's value in ``target`` (null for a static property)."""
        _arity("getValue", args, kwargs, ("target",))
        obj = self._target(args[0], "getValue")
        prop = self.prop
        if obj is None:
            return frame.executor.get_static_property(prop.declaring_type, prop.name, frame.cls)
        # read as the declaring class sees it, so a same-named property of a
        # subclass or a private value of the caller cannot get in the way
        return obj.get_property(prop.name, prop.declaring_type)

    @method("setValue")
    def _set_value(self, frame: Frame, args: list[t.Any], kwargs: dict[str, t.Any]) -> None:
        """Assign ``value`` as ``$target.name: value`` would from the calling code:
        the same contract and the same write permissions."""
        _arity("setValue", args, kwargs, ("target", "value"))
        obj = self._target(args[0], "setValue")
        prop = self.prop
        if obj is None:
            frame.executor.set_static_property(prop.declaring_type, prop.name, args[1], frame)
        else:
            frame.executor.set_property(obj, prop.name, args[1], frame)


# -- methods ---------------------------------------------------------------------------
class MethodInfo(ReflectionView):
    """A method: `name`, `declaringType`, `arguments`, `meta`, and
    `invoke($target, args..., name => value...)`."""

    __slots__ = ("method",)

    def __init__(self, murano_method: Method) -> None:
        self.method = murano_method

    def __repr__(self) -> str:
        return f"<method info {self.method.declaring_type.name}::{self.method.name}>"

    @attribute("name")
    def _name(self, frame: Frame) -> str:
        return self.method.name

    @attribute("declaringType")
    def _declaring_type(self, frame: Frame) -> TypeInfo:
        return type_info(self.method.declaring_type)

    @attribute("arguments")
    def _arguments(self, frame: Frame) -> tuple[ArgumentInfo, ...]:
        return tuple(argument_info(a) for a in self.method.arguments)

    @attribute("meta")
    def _meta(self, frame: Frame) -> tuple[MuranoObject, ...]:
        return meta.method_meta(self.method, frame)

    @method("invoke")
    def _invoke(self, frame: Frame, args: list[t.Any], kwargs: dict[str, t.Any]) -> t.Any:
        """Call exactly this implementation on ``target`` (an object of its class;
        null or a type object for a static method) with the other arguments."""
        if not args:
            raise errors.NoMatchingMethod(
                "invoke() takes the target object (null for a static method) first")
        target, rest = args[0], args[1:]
        murano_method = self.method
        owner = murano_method.declaring_type
        this: t.Any
        if isinstance(target, MuranoObject) and owner in target.real_this.type.ancestry:
            this = target.real_this.type.ref if murano_method.is_static else target
        elif murano_method.is_static and target is None:
            this = owner.ref
        elif (murano_method.is_static and isinstance(target, TypeRef)
              and owner in target.type.ancestry):
            this = target
        else:
            wanted = f"an object of class {owner.name}"
            if murano_method.is_static:
                wanted += ", its type object or null"
            raise InvalidReflectionTarget(
                f"invoke() of method {owner.name}::{murano_method.name} needs {wanted}, "
                f"got {_describe(target)}")
        return frame.executor.invoke(murano_method, this, rest, kwargs, frame)


class ArgumentInfo(ReflectionView):
    """A method argument: `name`, `hasDefault`, `usage` ('Standard',
    'VarArgs' or 'KwArgs'), `declaringMethod`, `meta`."""

    __slots__ = ("argument",)

    def __init__(self, argument: Argument) -> None:
        self.argument = argument

    def __repr__(self) -> str:
        owner = self.argument.method
        where = f"{owner.declaring_type.name}::{owner.name}" if owner is not None else "?"
        return f"<argument info {where}({self.argument.name})>"

    @attribute("name")
    def _name(self, frame: Frame) -> str:
        return self.argument.name

    @attribute("hasDefault")
    def _has_default(self, frame: Frame) -> bool:
        return self.argument.has_default

    @attribute("usage")
    def _usage(self, frame: Frame) -> str:
        return self.argument.usage.value

    @attribute("declaringMethod")
    def _declaring_method(self, frame: Frame) -> MethodInfo | None:
        owner = self.argument.method
        return method_info(owner) if owner is not None else None

    @attribute("meta")
    def _meta(self, frame: Frame) -> tuple[MuranoObject, ...]:
        return meta.argument_meta(self.argument, frame)


# -- packages ----------------------------------------------------------------------------
class PackageInfo(ReflectionView):
    """The package a class comes from: `name`, `version`, `types` (every class
    it declares), `meta` (from the manifest's `Meta`)."""

    __slots__ = ("package", "version")

    def __init__(self, package: RuntimePackage) -> None:
        self.package = package
        self.version = SemVer(package.version)

    def __repr__(self) -> str:
        return f"<package info {self.package.name}/{self.package.version}>"

    @attribute("name")
    def _name(self, frame: Frame) -> str:
        return self.package.name

    @attribute("version")
    def _version_attribute(self, frame: Frame) -> SemVer:
        return self.version

    @attribute("types")
    def _types(self, frame: Frame) -> tuple[TypeInfo, ...]:
        registry = frame.executor.classes
        for holder in registry.packages:
            if holder.package is self.package:
                return tuple(type_info(registry.find(name, self.package))
                             for name in holder.class_names())
        # a package the registry does not hold (built by hand): its classes so far
        return tuple(type_info(c) for c in self.package.classes.values())

    @attribute("meta")
    def _meta(self, frame: Frame) -> tuple[MuranoObject, ...]:
        return meta.package_meta(self.package, frame)


def describe(value: t.Any) -> ReflectionView | None:
    """What `typeinfo(value)` returns for an object, a type object or a class."""
    if value is None:
        return None
    if isinstance(value, TypeInfo):
        return value
    if isinstance(value, MuranoObject):
        # an object seen through cast() describes the class it was cast to, as
        # in the original engine; `$this` is always the whole object
        return type_info(value.type)
    if isinstance(value, TypeRef):
        return type_info(value.type)
    if isinstance(value, MuranoClass):
        return type_info(value)
    raise errors.DslError(f"typeinfo() expects an object or a type, got {_describe(value)}")


__all__ = ["ArgumentInfo", "InvalidReflectionTarget", "MethodInfo", "PackageInfo",
           "PropertyInfo", "ReflectionView", "SemVer", "TypeInfo", "describe"]
