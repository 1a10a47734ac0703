"""Environment descriptions: the object models the API edits, as the original kept them.

A description is ``{"Objects": {...environment object...}, "Attributes": [...]}``;
its applications are the Objects' ``services`` (the engine's ``applications``,
renamed on the way in and out, as the original did). ``Objects`` is None in a
session that deletes the environment.

Paths (``/services/<id>/name``) walk the description as the original's tree
traversal did: a list step is an object's id (``?.id``) or an index.
"""

from __future__ import annotations

import copy
import typing as t
import uuid

from laguna.errors import LagunaError

ENVIRONMENT_CLASS = "io.murano.Environment"
NETWORK_CLASS = "io.murano.resources.NeutronNetwork"

Json = t.Any


def new_object_id() -> str:
    return str(uuid.uuid4())


def initial_description(name: str, project_id: str, user_id: str,
                        objects: t.Mapping[str, t.Any] | None = None) -> dict[str, Json]:
    """The description of a new environment: an Environment object with a default
    network (``<name>-network``), as the original made for every new environment."""
    environment: dict[str, Json] = {"?": {"id": new_object_id()}}
    environment.update(copy.deepcopy(dict(objects or {})))
    environment["name"] = name
    if not environment.get("defaultNetworks"):
        environment["defaultNetworks"] = {
            "environment": {"?": {"id": uuid.uuid4().hex, "type": NETWORK_CLASS},
                            "name": f"{name}-network"},
            "flat": None}
    environment["?"]["type"] = ENVIRONMENT_CLASS
    environment["?"].setdefault("metadata", {})
    return {"Objects": environment, "Attributes": [], "project_id": project_id,
            "user_id": user_id}


def from_engine(model: t.Mapping[str, Json] | None) -> dict[str, Json] | None:
    """A model the engine serialised, as the API shows it (``services``)."""
    if model is None:
        return None
    description = copy.deepcopy(dict(model))
    objects = description.get("Objects")
    if isinstance(objects, dict):
        objects["services"] = objects.pop("applications", [])
    return description


def to_engine(description: t.Mapping[str, Json], environment_id: str) -> dict[str, Json]:
    """A description as the engine deploys it: the environment object takes the
    environment's id, and ``services`` become ``applications``."""
    model = copy.deepcopy(dict(description))
    objects = model.get("Objects")
    if isinstance(objects, dict):
        objects.setdefault("?", {})["id"] = environment_id
        objects["applications"] = objects.pop("services", [])
    for key in ("project_id", "user_id"):
        model.pop(key, None)
    return model


class PathError(LookupError, LagunaError):
    """A path that names nothing in the description (a LookupError as well, as
    a lookup's failure)."""

    code = "LAG-E1702"


def _steps(path: str) -> list[str]:
    return [step for step in path.strip("/").split("/") if step]


def _child(node: Json, step: str) -> Json:
    if isinstance(node, dict):
        if step in node:
            return node[step]
        raise PathError(step)
    if isinstance(node, list):
        for item in node:
            if isinstance(item, dict) and isinstance(item.get("?"), dict) \
                    and item["?"].get("id") == step:
                return item
        if step.isdigit() and int(step) < len(node):
            return node[int(step)]
    raise PathError(step)


def get(node: Json, path: str) -> Json:
    """The value at ``path``; :class:`PathError` when a step names nothing."""
    for step in _steps(path):
        node = _child(node, step)
    return node


def insert(node: Json, path: str, value: Json) -> None:
    """Append ``value`` to the list at ``path`` (created when missing at the end)."""
    steps = _steps(path)
    parent = get(node, "/".join(steps[:-1]))
    if isinstance(parent, dict) and steps and steps[-1] not in parent:
        parent[steps[-1]] = []
    target = get(node, path)
    if not isinstance(target, list):
        raise PathError(path)
    target.append(value)


def update(node: Json, path: str, value: Json) -> None:
    """Replace what ``path`` names with ``value``."""
    steps = _steps(path)
    if not steps:
        raise PathError(path)
    parent = get(node, "/".join(steps[:-1]))
    last = steps[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PathError(last)
        parent[last] = value
        return
    if isinstance(parent, list):
        for index, item in enumerate(parent):
            if isinstance(item, dict) and isinstance(item.get("?"), dict) \
                    and item["?"].get("id") == last:
                parent[index] = value
                return
        if last.isdigit() and int(last) < len(parent):
            parent[int(last)] = value
            return
    raise PathError(last)


def remove(node: Json, path: str) -> None:
    """Remove what ``path`` names."""
    steps = _steps(path)
    if not steps:
        raise PathError(path)
    parent = get(node, "/".join(steps[:-1]))
    last = steps[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PathError(last)
        del parent[last]
        return
    if isinstance(parent, list):
        for index, item in enumerate(parent):
            if isinstance(item, dict) and isinstance(item.get("?"), dict) \
                    and item["?"].get("id") == last:
                del parent[index]
                return
        if last.isdigit() and int(last) < len(parent):
            del parent[int(last)]
            return
    raise PathError(last)
