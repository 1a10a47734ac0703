"""Object model <-> objects: the JSON form of an environment."""

from __future__ import annotations

import typing as t

from laguna.lang.actions import add_system_data
from laguna.lang.dispatch import thaw
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass, PropertyUsage, TypeRef

_HIDDEN = (PropertyUsage.Runtime, PropertyUsage.Config, PropertyUsage.Static)


def serialize_object(obj: MuranoObject, executor: t.Any,
                     kind: str = "Serializable") -> dict[str, t.Any]:
    """The model of ``obj``: declared non-runtime properties, objects it owns
    nested in place and other objects by id. An object referenced here that
    nothing in the tree owns is written in full at its first reference (as the
    original engine did), so it is not lost when the model is loaded again."""
    obj = obj.real_this
    return _Writer(executor, kind, _owned_tree(obj)).object(obj)


def _owned_tree(root: MuranoObject) -> set[str]:
    """Ids of the objects written in place under their owners, from ``root`` down."""
    found: set[str] = set()
    pending = [root]
    while pending:
        obj = pending.pop()
        if obj.id in found:
            continue
        found.add(obj.id)
        for value in _serialized_values(obj).values():
            pending.extend(o for o in _objects_in(value) if o.owner is obj)
    return found


def _serialized_values(obj: MuranoObject) -> dict[str, t.Any]:
    values = {}
    for name in obj.type.property_names():
        spec = obj.type.find_property(name)
        if spec is None or spec.usage in _HIDDEN or name not in obj.values:
            continue
        values[name] = obj.values[name]
    return values


def _objects_in(value: t.Any) -> t.Iterator[MuranoObject]:
    if isinstance(value, MuranoObject):
        yield value.real_this
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _objects_in(v)
    elif isinstance(value, dict) or hasattr(value, "items"):
        for v in value.values():
            yield from _objects_in(v)


class _Writer:
    def __init__(self, executor: t.Any, kind: str, owned: set[str]) -> None:
        self.executor = executor
        self.kind = kind
        self.owned = owned
        self.written: set[str] = set()

    def object(self, obj: MuranoObject) -> dict[str, t.Any]:
        self.written.add(obj.id)
        values = {name: self.value(value, obj)
                  for name, value in _serialized_values(obj).items()}
        header: dict[str, t.Any] = {"type": obj.type.name, "id": obj.id}
        if obj.name is not None:
            header["name"] = obj.name
        if obj.metadata is not None:
            header["metadata"] = thaw(obj.metadata)
        if obj.destroyed:
            header["destroyed"] = True
        if self.kind == "Inline":
            return {obj.type.name: values, "id": obj.id, "name": obj.name}
        header["package"] = obj.type.package.name
        header["version"] = str(obj.type.package.version)
        result = {"?": header}
        result.update(values)
        return result

    def value(self, value: t.Any, owner: MuranoObject) -> t.Any:
        if isinstance(value, MuranoObject):
            value = value.real_this
            if value.id in self.written:
                return value.id
            if value.owner is owner or value.id not in self.owned:
                return self.object(value)
            return value.id
        if isinstance(value, TypeRef):
            return value.type.name
        if isinstance(value, (tuple, list)):
            return [self.value(v, owner) for v in value]
        if isinstance(value, dict) or hasattr(value, "items"):
            return {thaw(k): self.value(v, owner) for k, v in value.items()}
        return value


def serialize_model(root: MuranoObject | None, executor: t.Any) -> dict[str, t.Any]:
    """The whole model: `Objects` (the root, each object's `?` with its
    `_actions`), `Attributes` of known objects."""
    objects = serialize_object(root, executor) if root is not None else None
    add_system_data(objects, executor)     # designer attributes and `_actions` in each `?`
    executor.lifecycle.add_dependency_headers(objects)   # destruction subscriptions
    known = _collect_ids(objects)
    attributes = [[object_id, owner, name, thaw(value)]
                  for object_id, bucket in executor.attributes.items() if object_id in known
                  for (owner, name), value in bucket.items()]
    # `Packages`: the versions this run used, preferred again when the model is
    # loaded, so a deployed environment keeps them after newer ones are imported
    return {"Objects": objects, "Attributes": attributes,
            "Packages": executor.classes.fixations()}


def serialize_result(value: t.Any, executor: t.Any) -> t.Any:
    """An action's return value as JSON data: objects become their model."""
    if isinstance(value, MuranoObject):
        return serialize_object(value.real_this, executor)
    if isinstance(value, TypeRef):
        return value.type.name
    if isinstance(value, MuranoClass):
        return value.name
    if isinstance(value, (tuple, list, set, frozenset)):
        return [serialize_result(v, executor) for v in value]
    if isinstance(value, t.Mapping):
        return {thaw(k): serialize_result(v, executor) for k, v in value.items()}
    return value


def _collect_ids(model: t.Any) -> set[str]:
    found: set[str] = set()

    def walk(value: t.Any) -> None:
        if isinstance(value, dict):
            header = value.get("?")
            if isinstance(header, dict) and "id" in header:
                found.add(header["id"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(model)
    return found
