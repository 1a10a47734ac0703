"""Actions: the methods of a deployed model that may be called from outside.

A method is an action when it is declared `Scope: Public` (or, deprecated,
`Usage: Action`). Serialising a model lists the actions of each object under
``?`` → ``_actions`` as ``"<objectId>_<method>": {"name", "title", "enabled"}``;
an ``enabled`` flag given in the model is kept, so an operator can switch an
action off. :meth:`Executor.run_action` loads a model, runs one of its actions and
returns the result and the model afterwards; :meth:`Executor.run_static_action`
runs a static action by class and method name. Only actions can be run this way.
"""

from __future__ import annotations

import dataclasses
import typing as t

from laguna.lang import errors
from laguna.lang.dispatch import freeze
from laguna.lang.meta import method_meta
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import Frame
from laguna.lang.types import Method, MuranoClass

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor

ACTIONS_KEY = "_actions"


class ActionNotFound(errors.DslError):
    """No object of the model has an action of that id."""

    code = "LAG-E0902"
    murano_name = "LookupError"

    def __init__(self, action_id: str) -> None:
        super().__init__(f'Action "{action_id}" is not found')
        self.action_id = action_id


class ActionDisabled(errors.DslError):
    """The model marks the action `enabled: false`."""

    code = "LAG-E0903"
    murano_name = "ValueError"

    def __init__(self, action_id: str) -> None:
        super().__init__(f'Cannot execute disabled action "{action_id}"')
        self.action_id = action_id


@dataclasses.dataclass
class ActionResult:
    """What running an action gives: its serialised ``result``, the object
    ``model`` afterwards (None for static actions) and the MuranoPL ``error``
    when the action raised one (the model is still the state it left)."""

    result: t.Any
    model: dict[str, t.Any] | None
    error: errors.MuranoPlError | None = None


def action_id(obj: MuranoObject, method_name: str) -> str:
    return f"{obj.id}_{method_name}"


def action_methods(cls: MuranoClass) -> list[Method]:
    """The actions callable on objects of ``cls``, its own and inherited ones,
    in method resolution order. A name counts when the implementation a call
    would reach is an action (an action overridden by a plain method is not one)."""
    names: dict[str, None] = {}
    for c in cls.mro:
        for name in c.methods:
            names.setdefault(name, None)
    result = []
    for name in names:
        if name.startswith("."):
            continue
        found = cls.find_methods(name)
        if len(found) == 1 and found[0].is_action:
            result.append(found[0])
    return result


# meta classes whose `text` fills an `_actions` entry, as the original engine did
_ENTRY_META = {"io.murano.metadata.Title": "title",
               "io.murano.metadata.Description": "description",
               "io.murano.metadata.HelpText": "helpText"}


def available_actions(obj: MuranoObject, current: t.Mapping[str, t.Any],
                      executor: Executor) -> dict[str, t.Any]:
    """The ``_actions`` of ``obj``: one entry per action, keeping what
    ``current`` (the model's entries) says besides name and title. The title
    is the method's io.murano.metadata.Title meta or its name; Description and
    HelpText meta add `description` and `helpText`."""
    result: dict[str, t.Any] = {}
    for method in action_methods(obj.real_this.type):
        key = action_id(obj, method.name)
        previous = current.get(key)
        entry = dict(previous) if isinstance(previous, t.Mapping) else {"enabled": True}
        entry["name"] = method.name
        entry["title"] = method.name
        home = method.declaring_type
        for meta in method_meta(method, Frame(executor, home.ref, None, home, None)):
            field = _ENTRY_META.get(meta.type.name)
            if field is not None:
                entry[field] = meta.real_this.values.get("text")
        result[key] = entry
    return result


def add_system_data(model: t.Any, executor: Executor) -> None:
    """Give each object header of a serialised model its designer attributes
    (`?` keys starting with "_" the loaded model had) and its `_actions`."""
    if isinstance(model, list):
        for item in model:
            add_system_data(item, executor)
        return
    if not isinstance(model, dict):
        return
    header = model.get("?")
    if isinstance(header, dict) and "id" in header:
        obj = executor.objects.get(str(header["id"]))
        if obj is not None and obj.real_this.type.name == header.get("type"):
            designer = executor.designer_attributes.get(obj.id, {})
            header.update(designer)
            header[ACTIONS_KEY] = available_actions(obj, designer.get(ACTIONS_KEY) or {},
                                                    executor)
    for key, value in model.items():
        if key != "?":
            add_system_data(value, executor)


def check_action(cls: MuranoClass, method_name: str, static: bool = False) -> Method:
    """The action ``method_name`` of ``cls``; MethodNotExposed when the method
    is not an action (or, for a call on the class, not a static one)."""
    method = cls.find_method(method_name)
    if not method.is_action or method_name.startswith("."):
        raise errors.MethodNotExposed(f"{method_name} is not an action")
    if static and not method.is_static:
        raise errors.MethodNotExposed(f"{method_name} is not a static action of class {cls.name}")
    return method


def invoke_action(executor: Executor, target: MuranoObject | MuranoClass, method_name: str,
                  parameters: t.Mapping[str, t.Any] | None = None) -> t.Any:
    """Call action ``method_name`` of an object or (static actions) a class
    with keyword ``parameters``, as the API does; the raw MuranoPL result."""
    static = isinstance(target, MuranoClass)
    cls = target if isinstance(target, MuranoClass) else target.real_this.type
    method = check_action(cls, method_name, static)
    this = cls.ref if method.is_static else t.cast(MuranoObject, target).real_this
    kwargs = {str(k): freeze(v) for k, v in (parameters or {}).items()}
    return executor.run(lambda: executor.invoke(method, this, (), kwargs, None))


def find_action(executor: Executor, action: str) -> tuple[MuranoObject, str]:
    """The object and method name an action id of a loaded model names; the
    longest object id that prefixes it wins."""
    candidates = [obj for obj in executor.objects.values()
                  if action.startswith(obj.id + "_") and len(action) > len(obj.id) + 1]
    if not candidates:
        raise ActionNotFound(action)
    obj = max(candidates, key=lambda o: len(o.id))
    method_name = action[len(obj.id) + 1:]
    if not obj.real_this.type.find_methods(method_name):
        raise ActionNotFound(action)
    listed = executor.designer_attributes.get(obj.id, {}).get(ACTIONS_KEY) or {}
    entry = listed.get(action)
    if isinstance(entry, t.Mapping) and entry.get("enabled", True) is False:
        raise ActionDisabled(action)
    return obj, method_name


def find_action_class(executor: Executor, class_name: str, package: str | None,
                      version: str | None) -> MuranoClass:
    """The class a static action call names, chosen as the original engine did:
    from the given package, else from the package defining the class, in the
    highest version matching ``version``."""
    registry = executor.classes
    if package is not None:
        holder = registry.load_package(package, version)
        if not holder.has_class(class_name):
            raise errors.NoClassFound(class_name)
    else:
        holder = registry.load_class_package(class_name, version)
    return registry.class_of(holder, class_name)


__all__ = ["ActionDisabled", "ActionNotFound", "ActionResult", "action_methods",
           "add_system_data", "available_actions", "check_action", "find_action",
           "find_action_class", "invoke_action"]
