"""The actions a stored MuranoPL model offers, for ``laguna status`` and for
checking ``laguna action`` before it runs (:mod:`laguna.deploy.actions`).

An object's actions are its class's (:func:`laguna.lang.actions.action_methods`,
the list the API's ``?``/``_actions`` entries come from), less those the model
switches off (``enabled: false``). Only the classes are built, from the
environment's stored packages: no object is loaded and no ``.init`` runs, so
listing costs no more than reading the class files.
"""

from __future__ import annotations

import typing as t

from laguna.deploy.context import StoredState
from laguna.deploy.result import Action, ActionArgument
from laguna.errors import LagunaError
from laguna.frontends.muranopl.packages import registry_for
from laguna.frontends.muranopl.redeploy import index_objects
from laguna.lang.actions import ACTIONS_KEY, action_methods
from laguna.lang.executor import Executor
from laguna.lang.types import Argument, ArgumentUsage, Method


def object_name(data: t.Mapping[str, t.Any], type_name: str) -> str:
    """What users call an object of a model: its ``name``, else its header's, else its
    class's short name."""
    header = data.get("?")
    for name in (data.get("name"), header.get("name") if isinstance(header, dict) else None):
        if isinstance(name, str) and name:
            return name
    return type_name.rsplit(".", 1)[-1]


def stored_actions(stored: StoredState) -> list[Action] | None:
    """Every enabled action of every object of the stored model, with its
    arguments; None when a class of the model cannot be built from the stored
    packages (the run will say why)."""
    try:
        registry = registry_for((), stored.packages)
    except LagunaError:
        return None     # a stored package that no longer reads: the run says so
    executor = Executor(registry)
    found: list[Action] = []
    for object_id, data in index_objects((stored.model or {}).get("Objects")).items():
        header = data["?"]
        type_name = str(header.get("type") or "")
        try:
            cls = registry.find_for_model(type_name, header)
        except LagunaError:
            return None
        switched = header.get(ACTIONS_KEY) or {}
        for method in action_methods(cls):
            entry = switched.get(f"{object_id}_{method.name}") if isinstance(switched, dict) \
                else None
            if isinstance(entry, t.Mapping) and entry.get("enabled", True) is False:
                continue
            found.append(Action(object=object_id, object_name=object_name(data, type_name),
                                object_type=cls.name, name=method.name,
                                arguments=_arguments(method, executor),
                                open=method.kwargs is not None))
    return found


def _arguments(method: Method, executor: Executor) -> tuple[ActionArgument, ...]:
    return tuple(ActionArgument(a.name, _required(a, executor), a.contract.text or "")
                 for a in method.arguments if a.usage is ArgumentUsage.Standard)


def _required(argument: Argument, executor: Executor) -> bool:
    """Whether leaving the argument out fails its contract: a missing argument
    is null, unless it has a default."""
    if argument.has_default:
        return False
    try:
        return not argument.contract.check(None, executor=executor, this=None)
    except Exception:  # noqa: BLE001 - a contract that cannot be asked about null is left to the run
        return False


__all__ = ["object_name", "stored_actions"]
