"""MuranoPL objects.

An object is one Python :class:`MuranoObject` per class of its hierarchy,
all sharing an id: the root (``real_this``, of the most derived class)
holds the declared property values; each per-class part holds the private
values its class wrote to undeclared names and is what `cast()` returns, so
that a method call on it resolves from that class.
"""

from __future__ import annotations

import os
import typing as t
import weakref

from laguna.lang import errors
from laguna.lang.types import MuranoClass, PropertyUsage


def generate_id() -> str:
    """A random (version 4) UUID in hex, as `uuid.uuid4().hex` gives, made
    from the same 16 random bytes without a UUID object (a sixth of the cost;
    every new object takes one)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40   # the version: 4
    raw[8] = (raw[8] & 0x3F) | 0x80   # the variant: RFC 4122
    return raw.hex()


class MuranoObject:
    __slots__ = ("type", "real_this", "_parts", "values", "private", "id", "owner",
                 "name", "metadata", "initialized", "destroyed", "extension",
                 "dependencies", "executor_ref", "__weakref__")

    #: a weak reference to the executor that created the object (set by the loader)
    executor_ref: t.Callable[[], t.Any]

    def __init__(self, murano_class: MuranoClass, owner: MuranoObject | None,
                 object_id: str | None = None, name: str | None = None,
                 metadata: t.Any = None, real_this: MuranoObject | None = None) -> None:
        self.type = murano_class
        self.real_this = real_this if real_this is not None else self
        self.private: dict[str, t.Any] = {}
        self.extension: t.Any = None
        if real_this is None:
            self._parts: dict[MuranoClass, MuranoObject] = {murano_class: self}
            self.values: dict[str, t.Any] = {}
            self.id = object_id or generate_id()
            self.owner = owner
            self.name = name
            self.metadata = metadata
            self.initialized = False
            self.destroyed = False
            # destruction subscriptions (lifecycle.Subscription) where this is the publisher
            self.dependencies: list[t.Any] = []
        else:
            self.id = real_this.id

    def cast(self, cls: MuranoClass) -> MuranoObject:
        """This object seen as ``cls`` (one of its classes)."""
        root = self.real_this
        part = root._parts.get(cls)
        if part is None:
            if cls not in root.type.ancestry:
                raise TypeError(f"Cannot cast {root.type} to {cls}")
            # an equal class may be another build of it (lang.resolution); the
            # part must be the one of this object's own hierarchy
            cls = next(c for c in root.type.mro if c == cls)
            part = MuranoObject(cls, None, real_this=root)
            root._parts[cls] = part
        return part

    def parts(self) -> list[MuranoObject]:
        return [self.cast(cls) for cls in self.real_this.type.mro]

    def parts_created(self) -> list[MuranoObject]:
        """The per-class parts that exist so far (private values live there)."""
        return list(self.real_this._parts.values())

    def __repr__(self) -> str:
        return f"<{self.type.name}/{self.type.version} {self.id}>"

    # -- properties -------------------------------------------------------
    def get_property(self, name: str, caller: MuranoClass | None) -> t.Any:
        """Read ``name`` as code of class ``caller`` sees it."""
        root = self.real_this
        derived = caller is not None and caller in root.type.ancestry
        start = caller if derived else root.type
        assert start is not None
        spec = start.find_property(name)
        if spec is not None:
            if spec.usage is PropertyUsage.Static:
                executor = root.executor_ref()
                return executor.get_static_property(spec.declaring_type, name, caller)
            try:
                return root.values[name]
            except KeyError:
                raise errors.UninitializedPropertyAccessError(name, root.type.name) from None
        if derived:
            part = root.cast(start)
            try:
                return part.private[name]
            except KeyError:
                raise errors.UninitializedPropertyAccessError(name, start.name) from None
        raise errors.PropertyReadError(name, start.name)


def find_owner(obj: MuranoObject, predicate: t.Callable[[MuranoObject], bool]) -> MuranoObject | None:
    """The nearest owner of ``obj`` (itself excluded) satisfying ``predicate``."""
    current = obj.real_this.owner
    seen = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if predicate(current):
            return current
        current = current.owner
    return None


class ObjectStore:
    """Objects by id for one executor; references resolve through it."""

    def __init__(self) -> None:
        self._objects: dict[str, MuranoObject] = {}

    def get(self, object_id: str) -> MuranoObject | None:
        return self._objects.get(object_id)

    def put(self, obj: MuranoObject) -> None:
        self._objects[obj.id] = obj

    def remove(self, object_id: str) -> None:
        self._objects.pop(object_id, None)

    def values(self) -> list[MuranoObject]:
        return list(self._objects.values())

    def __contains__(self, object_id: str) -> bool:
        return object_id in self._objects

    def __len__(self) -> int:
        return len(self._objects)


def weak(executor: t.Any) -> t.Callable[[], t.Any]:
    return weakref.ref(executor)
