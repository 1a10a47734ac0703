"""Meta: objects of `Usage: Meta` classes attached to MuranoPL entities.

A package (manifest `Meta`), a class, a property, a method or a method
argument may carry a `Meta` value: one entry or a list of entries, each a
class name or a single-key mapping of a class name to property values::

    Meta:
      - m:Deprecated                       # defaults only
      - m:Label: {text: 'shown in the UI'}

The loader keeps the raw value and checks only its shape
(:func:`format_problem`). When the class has been built, the registry checks
the own meta of the class, its properties, methods and arguments
(:func:`check_class`, as the original engine did in its class constructor):
each class name is resolved, must be a meta class, must apply to the entity
(`Applies`), may appear only once unless its `Cardinality` is Many. A class
failing these is not loaded (:class:`InvalidClassMeta`, with the position of
the entry). When MuranoPL first reads `meta`, the objects are created, their
property values evaluated in the declaring class and passed through the meta
class's contracts; those errors, and conflicts of inherited meta, surface at
that read. A package's manifest `Meta` is checked at its first read too.

Classes, properties and methods also receive meta from the entities they
inherit from or override, when the meta class says `Inherited: true`:

- an entity's own meta always counts;
- inherited meta of a Cardinality One class is hidden by the same meta class
  attached closer to the entity (the child overrides the parent);
- inherited meta of a Cardinality Many class accumulates;
- the same Cardinality One meta reaching an entity from two different
  ancestors (and not overridden) is a conflict.

Results are cached per executor, so every read gives the same objects; the
executor holds them as roots, so garbage collection leaves them alone (the
original engine kept them out of its object store). The order is the
entity's own meta (declaration order), then inherited meta, parents in
`Extends` order, depth first.
"""

from __future__ import annotations

import typing as t
import weakref

from laguna.errors import LagunaError
from laguna.lang import errors
from laguna.lang.scope import Frame
from laguna.lang.types import (
    Argument, Method, MuranoClass, NamespaceResolver, Property, RuntimePackage,
)
from laguna.source import Span
from laguna.yaql.expressions import YaqlExpression

if t.TYPE_CHECKING:
    from laguna.lang.classes import ClassRegistry
    from laguna.lang.executor import Executor
    from laguna.lang.objects import MuranoObject

Objects = tuple["MuranoObject", ...]


# -- errors --------------------------------------------------------------------------
class MetaError(errors.DslError):
    """Meta that cannot be attached. MuranoPL sees these as `ValueError`, the
    name the original engine's checks raised."""

    code = "LAG-E0800"
    murano_name = "ValueError"
    #: the entry of the `Meta` value at fault, when known
    span: Span | None = None


class InvalidMetaFormat(MetaError):
    """A `Meta` value that is neither a class name nor a single-key mapping."""

    code = "LAG-E0801"


class NotAMetaClass(MetaError):
    """The class named in `Meta` is not declared with `Usage: Meta`."""

    code = "LAG-E0802"


class MetaNotApplicable(MetaError):
    """The meta class's `Applies` does not include this kind of entity."""

    code = "LAG-E0803"


class MetaCardinalityError(MetaError):
    """A Cardinality One meta class attached twice to one entity."""

    code = "LAG-E0804"


class InheritedMetaConflict(MetaError):
    """A Cardinality One meta class inherited from two places, not overridden."""

    code = "LAG-E0805"


class InvalidClassMeta(errors.ClassLoadError):
    """A class whose own meta, or its members', cannot be attached: the class
    does not load. Code, message and MuranoPL name are those of the first
    problem (`ValueError` as the original engine raised, `NoClassFound` for a
    meta class that does not exist); :meth:`every` lists them all."""

    def __init__(self, problem: LagunaError, span: Span | None) -> None:
        message = getattr(problem, "message", None) or str(problem)
        super().__init__(message, span, code=problem.code)
        self.problem = problem
        self.murano_name = errors.murano_names(problem)[0]


# -- the shape of a Meta value ---------------------------------------------------------
class Entry(t.NamedTuple):
    name: str            # the class name as written (resolved later)
    properties: t.Any    # raw mapping of property values, or None
    span: Span | None


def _entries(raw: t.Any) -> list[Entry] | tuple[str, Span | None]:
    """The entries of a Meta value, or (problem, where) when it is malformed."""
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    result = []
    for item in items:
        span = getattr(item, "span", None) or getattr(raw, "span", None)
        if isinstance(item, dict):
            if len(item) != 1:
                return ("a Meta entry must be a class name or a mapping with exactly one key "
                        f"(the meta class name), got {len(item)} keys", span)
            name, properties = next(iter(item.items()))
            if not isinstance(name, (str, YaqlExpression)):
                return f"a Meta entry must name a meta class, got {name!r}", span
            if properties is not None and not isinstance(properties, dict):
                return (f"the properties of meta {name} must be a mapping of property "
                        "names to values", getattr(properties, "span", None) or span)
            result.append(Entry(str(name), properties, span))
        elif isinstance(item, (str, YaqlExpression)):
            result.append(Entry(str(item), None, span))
        else:
            return f"a Meta entry must be a class name or a mapping, got {item!r}", span
    return result


def format_problem(raw: t.Any) -> tuple[str, Span | None] | None:
    """What is wrong with the shape of a Meta value, or None (for the loader)."""
    found = _entries(raw)
    return found if isinstance(found, tuple) else None


# -- building the objects -------------------------------------------------------------
_caches: weakref.WeakKeyDictionary[t.Any, dict[tuple[str, t.Any], Objects]] = (
    weakref.WeakKeyDictionary())


def _cache(executor: Executor) -> dict[tuple[str, t.Any], Objects]:
    cache = _caches.get(executor)
    if cache is None:
        cache = _caches.setdefault(executor, {})
    return cache


def _cached(cache: dict[tuple[str, t.Any], Objects], key: tuple[str, t.Any]) -> Objects | None:
    found = cache.get(key)
    if found is not None and any(obj.destroyed for obj in found):
        # the run ended (Executor.finalize retires every object): build anew
        cache.pop(key, None)
        return None
    return found


def _applies(meta_class: MuranoClass, target: str) -> bool:
    applies = meta_class.meta_applies
    return target in applies or "All" in applies


def _resolved(classes: ClassRegistry, raw: t.Any, target: str, what: str,
              scope_class: MuranoClass | None, package: RuntimePackage
              ) -> list[tuple[MuranoClass, t.Any, Span | None]]:
    """The meta classes (with raw property values and spans) of one entity's
    `Meta`, checked: meta classes that apply to ``target``, Cardinality One
    classes once."""
    entries = _entries(raw)
    if isinstance(entries, tuple):
        raise InvalidMetaFormat(f"invalid Meta of {what}: {entries[0]}")
    resolver = scope_class.resolver if scope_class is not None else NamespaceResolver({})
    resolved: list[tuple[MuranoClass, t.Any, Span | None]] = []
    for entry in entries:
        meta_class = classes.find(resolver.resolve(entry.name), package)
        problem: MetaError | None = None
        if meta_class.usage != "Meta":
            problem = NotAMetaClass(f"class {meta_class.name} cannot be attached to {what} as "
                                    "meta: it is not declared with Usage: Meta")
        elif not _applies(meta_class, target):
            problem = MetaNotApplicable(
                f"meta class {meta_class.name} cannot be attached to {what}: it applies "
                f"to {', '.join(sorted(meta_class.meta_applies))}")
        elif meta_class.meta_cardinality == "One" and any(
                m is meta_class for m, _, _ in resolved):
            problem = MetaCardinalityError(
                f"meta class {meta_class.name} has Cardinality One but is attached more "
                f"than once to {what}")
        if problem is not None:
            problem.span = entry.span
            raise problem
        resolved.append((meta_class, entry.properties, entry.span))
    return resolved


def _own(frame: Frame, key: tuple[str, t.Any], raw: t.Any, target: str, what: str,
         scope_class: MuranoClass | None, package: RuntimePackage) -> Objects:
    """The meta objects declared on one entity (nothing inherited)."""
    if raw is None:
        return ()
    executor = frame.executor
    cache = _cache(executor)
    found = _cached(cache, key)
    if found is not None:
        return found
    resolved = _resolved(executor.classes, raw, target, what, scope_class, package)
    objects = []
    for meta_class, properties, _ in resolved:
        # values are written in the declaring class: its namespaces, `$` its type
        home = scope_class or meta_class
        this = scope_class.ref if scope_class is not None else None
        data_frame = Frame(executor, this, None, home, frame)
        values = executor.evaluate_data(properties, data_frame) if properties else {}
        objects.append(executor.new_object(meta_class, None, dict(values), frame=data_frame))
    # two threads building at once keep the first result, so identity holds
    built = tuple(objects)
    kept = cache.setdefault(key, built)
    if kept is built:
        # the engine holds meta objects for the rest of the run: the garbage
        # collector must not take them (they have no owner and nothing in the
        # model refers to them)
        executor.lifecycle.roots.extend(kept)
    return kept


def _merged(frame: Frame, key: tuple[str, t.Any], initial: MuranoClass, what: str,
            own_of: t.Callable[[MuranoClass], Objects]) -> Objects:
    """Own meta of ``initial`` plus what its ancestors pass down (module docstring)."""
    cache = _cache(frame.executor)
    found = _cached(cache, key)
    if found is not None:
        return found

    def walk(classes: t.Sequence[MuranoClass],
             hidden: frozenset[MuranoClass]) -> list[tuple[MuranoClass, MuranoObject]]:
        collected: list[tuple[MuranoClass, MuranoObject]] = []
        for cls in classes:
            hidden_above = set(hidden)
            for obj in own_of(cls):
                meta_class = obj.type
                if cls is not initial and (not meta_class.meta_inherited
                                           or meta_class in hidden):
                    continue
                if meta_class.meta_cardinality == "One":
                    hidden_above.add(meta_class)
                collected.append((cls, obj))
            collected.extend(walk(cls.parents, frozenset(hidden_above)))
        return _unique(collected, what)

    result = tuple(obj for _, obj in walk([initial], frozenset()))
    return cache.setdefault(key, result)


def _unique(collected: list[tuple[MuranoClass, MuranoObject]],
            what: str) -> list[tuple[MuranoClass, MuranoObject]]:
    """Drop the copies a diamond brings twice; reject one Cardinality One meta
    class arriving from two different classes."""
    single_from: dict[MuranoClass, MuranoClass] = {}
    seen: set[int] = set()
    result = []
    for cls, obj in collected:
        meta_class = obj.type
        if meta_class.meta_cardinality == "One":
            origin = single_from.setdefault(meta_class, cls)
            if origin is not cls:
                first, second = sorted((origin.name, cls.name))
                raise InheritedMetaConflict(
                    f"{what} inherits meta {meta_class.name} (Cardinality One) from both "
                    f"{first} and {second}; attach it to {what} itself to choose")
        if id(obj) not in seen:
            seen.add(id(obj))
            result.append((cls, obj))
    return result


# -- per kind of entity -------------------------------------------------------------------
def _class_own(frame: Frame, cls: MuranoClass) -> Objects:
    return _own(frame, ("type", cls), cls.meta, "Type", f"class {cls.name}", cls, cls.package)


def class_meta(cls: MuranoClass, frame: Frame) -> Objects:
    """Meta of a class, with what its ancestors pass down."""
    return _merged(frame, ("type*", cls), cls, f"class {cls.name}",
                   lambda c: _class_own(frame, c))


def method_meta(method: Method, frame: Frame) -> Objects:
    """Meta of a method, with what the methods it overrides pass down."""
    return _member_meta(method, "method", "Method", "::", lambda cls: cls.methods, frame)


def property_meta(prop: Property, frame: Frame) -> Objects:
    """Meta of a property, with what the properties it redeclares pass down."""
    return _member_meta(prop, "property", "Property", ".", lambda cls: cls.properties, frame)


def _member_meta(member: Method | Property, kind: str, applies: str, separator: str,
                 members_of: t.Callable[[MuranoClass], t.Mapping[str, t.Any]],
                 frame: Frame) -> Objects:
    """Meta of a method or property: its own, merged with that of the same-named
    members of the ancestors of its declaring class."""
    owner = member.declaring_type

    def own_of(cls: MuranoClass) -> Objects:
        found = members_of(cls).get(member.name)
        if found is None:
            return ()
        return _own(frame, (kind, found), found.meta, applies,
                    f"{kind} {cls.name}{separator}{found.name}", cls, cls.package)
    return _merged(frame, (kind + "*", member), owner,
                   f"{kind} {owner.name}{separator}{member.name}", own_of)


def argument_meta(argument: Argument, frame: Frame) -> Objects:
    """Meta of a method argument (arguments inherit nothing)."""
    method = argument.method
    if method is None:
        return ()
    owner = method.declaring_type
    return _own(frame, ("argument", argument), argument.meta, "Argument",
                f"argument {argument.name} of method {owner.name}::{method.name}", owner,
                owner.package)


def package_meta(package: RuntimePackage, frame: Frame) -> Objects:
    """Meta of a package, from its manifest; class names there are full names."""
    return _own(frame, ("package", package), package.meta, "Package",
                f"package {package.name}", None, package)


# -- checks without running code (laguna package check) ---------------------------------
def _raw_span(raw: t.Any) -> Span | None:
    first = raw[0] if isinstance(raw, list) and raw else raw
    return getattr(first, "span", None) or getattr(raw, "span", None)


def class_problems(cls: MuranoClass, classes: ClassRegistry
                   ) -> t.Iterator[tuple[Span | None, LagunaError]]:
    """What reading the own meta of a class, its methods, their arguments and
    its properties would raise (unknown or non-meta classes, `Applies`,
    `Cardinality`), each with the position of the `Meta` value; nothing is
    evaluated or created."""
    entities: list[tuple[t.Any, str, str]] = [(cls.meta, "Type", f"class {cls.name}")]
    for prop in cls.properties.values():
        entities.append((prop.meta, "Property", f"property {cls.name}.{prop.name}"))
    for method in cls.methods.values():
        entities.append((method.meta, "Method", f"method {cls.name}::{method.name}"))
        for argument in method.arguments:
            entities.append((argument.meta, "Argument", f"argument {argument.name} of method "
                             f"{cls.name}::{method.name}"))
    for raw, target, what in entities:
        if raw is None:
            continue
        try:
            _resolved(classes, raw, target, what, cls, cls.package)
        except LagunaError as exc:   # meta errors, classes that do not resolve or load
            yield getattr(exc, "span", None) or _raw_span(raw), exc


def check_class(cls: MuranoClass, classes: ClassRegistry) -> None:
    """Refuse a class whose own meta cannot be attached (see :func:`class_problems`)."""
    if cls.meta is None and not _members_have_meta(cls):
        return
    found: list[errors.ClassLoadError] = []
    for span, problem in class_problems(cls, classes):
        if isinstance(problem, errors.ClassLoadError):
            # the meta class itself does not load: its own error, in its own file
            found.append(problem)
        else:
            found.append(InvalidClassMeta(problem, span))
    if found:
        first = found[0]
        first.others = tuple(found[1:])
        raise first


def _members_have_meta(cls: MuranoClass) -> bool:
    return (any(p.meta is not None for p in cls.properties.values())
            or any(m.meta is not None or any(a.meta is not None for a in m.arguments)
                   for m in cls.methods.values()))


__all__ = ["check_class", "class_problems", "InvalidClassMeta", "InheritedMetaConflict", "InvalidMetaFormat", "MetaCardinalityError", "MetaError",
           "MetaNotApplicable", "NotAMetaClass", "argument_meta", "class_meta",
           "format_problem", "method_meta", "package_meta", "property_meta"]
