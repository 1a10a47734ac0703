"""Redeploying a changed model: the difference from the stored one.

The new model (the user's file) is applied to the stored model object by
object id, as the original API applied edits to an environment's stored
description:

- an object in both keeps everything stored (Out and Runtime values such as
  addresses and ids, its attributes, what it added to the stack), and takes
  the values the new model gives;
- an object only in the new model is new: the run deploys it;
- an object only in the stored model is gone: it stays in ``ObjectsCopy``
  only, so the garbage collector destroys it when the model loads (its
  ``.destroy`` releases its servers and stack resources).

Applications that are already deployed are left alone by their own
``deploy()`` (the murano-apps idiom: ``If: not $.getAttr(deployed, false)``).
"""

from __future__ import annotations

import copy
import typing as t


def _is_object(value: t.Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("?"), dict) \
        and "id" in value["?"]


def index_objects(value: t.Any, into: dict[str, dict[str, t.Any]] | None = None
                  ) -> dict[str, dict[str, t.Any]]:
    """Every object of a serialised model by id."""
    found = {} if into is None else into
    if isinstance(value, dict):
        if _is_object(value):
            found.setdefault(str(value["?"]["id"]), value)
        for key, item in value.items():
            if key != "?":
                index_objects(item, found)
    elif isinstance(value, list):
        for item in value:
            index_objects(item, found)
    return found


def _apply(new: t.Any, stored: dict[str, dict[str, t.Any]]) -> t.Any:
    if isinstance(new, list):
        return [_apply(item, stored) for item in new]
    if not isinstance(new, dict):
        return copy.deepcopy(new)
    if _is_object(new) and str(new["?"]["id"]) in stored:
        old = stored[str(new["?"]["id"])]
        if old["?"].get("type") == new["?"].get("type"):
            result = copy.deepcopy(old)
            result["?"] = {**old["?"], **copy.deepcopy(new["?"])}
            for key, value in new.items():
                if key != "?":
                    result[key] = _apply(value, stored)
            return result
    return {key: (copy.deepcopy(value) if key == "?" else _apply(value, stored))
            for key, value in new.items()}


def deployment_model(new: t.Mapping[str, t.Any],
                     stored: t.Mapping[str, t.Any] | None,
                     repair: t.Collection[str] = ()) -> dict[str, t.Any]:
    """What the engine loads for a deploy: ``Objects`` (new applied to stored),
    ``ObjectsCopy`` (the stored objects) and the stored ``Attributes``, but for
    the objects to ``repair`` (found drifted by ``laguna check``): their
    attributes are left behind, so that an application that skips what it did
    (``If: not $.getAttr(deployed, false)``) does it again."""
    if not stored or stored.get("Objects") is None:
        return {"Objects": copy.deepcopy(new.get("Objects")),
                "Attributes": copy.deepcopy(list(new.get("Attributes") or []))}
    objects = index_objects(stored["Objects"])
    return {"Objects": _apply(new.get("Objects"), objects),
            "ObjectsCopy": copy.deepcopy(stored["Objects"]),
            "Attributes": copy.deepcopy([entry for entry in stored.get("Attributes") or []
                                         if not entry or entry[0] not in repair])}


def removal_model(stored: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """What the engine loads for an undeploy: no objects, the stored ones as the copy."""
    if not stored:
        return {"Objects": None}
    return {"Objects": None, "ObjectsCopy": copy.deepcopy(stored.get("Objects")),
            "Attributes": copy.deepcopy(list(stored.get("Attributes") or []))}


def _own_values(data: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """An object's values with the objects it holds as their ids: whether they
    changed is their own question, not their holder's."""
    def own(value: t.Any) -> t.Any:
        if _is_object(value):
            return {"@": str(value["?"]["id"])}
        if isinstance(value, dict):
            return {key: own(item) for key, item in value.items()}
        if isinstance(value, list):
            return [own(item) for item in value]
        return value
    return {key: own(value) for key, value in data.items() if key != "?"}


def changed_ids(new: t.Mapping[str, t.Any], stored: t.Mapping[str, t.Any] | None) -> list[str]:
    """Objects of the stored model the new one gives other values (what a
    redeploy changes rather than creates or destroys); values the new model
    leaves out are kept, so they change nothing."""
    if not stored or stored.get("Objects") is None:
        return []
    before = index_objects(stored["Objects"])
    changed = []
    for object_id, data in index_objects(new.get("Objects")).items():
        old = before.get(object_id)
        if old is None:
            continue
        kept = _own_values(old)
        if any(kept.get(key, _MISSING) != value for key, value in _own_values(data).items()):
            changed.append(object_id)
    return changed


_MISSING = object()


def removed_ids(data: t.Mapping[str, t.Any]) -> list[str]:
    """Objects of the stored model (``ObjectsCopy``) the deployed one no longer has."""
    if data.get("ObjectsCopy") is None:
        return []
    before = index_objects(data["ObjectsCopy"])
    after = index_objects(data.get("Objects"))
    return [object_id for object_id in before if object_id not in after]
