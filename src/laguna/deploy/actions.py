"""Checking an action against what the deployed objects offer, before it runs.

A front end that can list the actions of a stored environment
(:class:`~laguna.deploy.frontend.ActionLister`) lets the service refuse an
action that could only fail: an object that is not there, a method that is
not one of its actions, an argument it does not take or one it needs and was
not given. The refusal is a ``rejected`` result and nothing is written, so the
environment keeps its state (a run that failed on it would leave it
``deploy failure``). :func:`resolve` does the check for every language, and
names the object by id or, where it is unique, by name.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.deploy.context import StoredState
from laguna.deploy.errors import (
    ACTION_NOT_FOUND,
    ARGUMENT_INVALID,
    OBJECT_NOT_FOUND,
    Rejected,
)
from laguna.deploy.frontend import ActionChecker, ActionLister
from laguna.deploy.result import Action


def _described(action: Action) -> str:
    return f"{action.object_name} ({action.object_type})"


def _listing(actions: t.Iterable[Action]) -> dict[str, t.Any]:
    """What a refusal carries under ``error``: the actions the user may mean."""
    return {"actions": [a.to_json() for a in actions]}


def resolve(actions: t.Sequence[Action], environment: str, target: str, method: str,
            arguments: t.Mapping[str, t.Any]) -> Action:
    """The action ``method`` of the object ``target`` names (its id, else its
    unique name), taking ``arguments``; :class:`Rejected` saying why not."""
    by_id = [a for a in actions if a.object == target]
    if not by_id:
        named = {a.object for a in actions if a.object_name == target}
        if len(named) > 1:
            raise Rejected(OBJECT_NOT_FOUND, f"environment {environment!r} has "
                           f"{len(named)} objects named {target!r}: name one by its id "
                           f"({', '.join(sorted(named))})",
                           _listing(a for a in actions if a.object in named))
        by_id = [a for a in actions if a.object in named]
    if not by_id:
        raise Rejected(OBJECT_NOT_FOUND, f"environment {environment!r} has no object "
                       f"{target!r} with actions (name an object by its id or name)",
                       _listing(actions))
    found = next((a for a in by_id if a.name == method), None)
    if found is None:
        raise Rejected(ACTION_NOT_FOUND, f"{_described(by_id[0])} has no action {method!r}; "
                       f"its actions: {', '.join(a.name for a in by_id)}", _listing(by_id))
    known = {a.name for a in found.arguments}
    unknown = [name for name in arguments if name not in known]
    if unknown and not found.open:
        raise Rejected(ARGUMENT_INVALID, f"action {method} of {_described(found)} takes no "
                       f"argument {', '.join(repr(n) for n in unknown)}; its arguments: "
                       f"{', '.join(sorted(known)) or 'none'}", _listing([found]))
    missing = [a.name for a in found.arguments if a.required and a.name not in arguments]
    if missing:
        raise Rejected(ARGUMENT_INVALID, f"action {method} of {_described(found)} needs "
                       f"{', '.join(f'--arg {n}=...' for n in missing)}", _listing([found]))
    return found


def check(frontend: object, stored: StoredState, state_dir: Path, target: str, method: str,
          arguments: t.Mapping[str, t.Any]) -> str:
    """The id of the object ``target`` names once ``frontend`` accepts the action:
    checked by the front end itself (an ActionChecker), else resolved in the
    actions it lists; ``target`` unchanged when it can tell nothing."""
    if isinstance(frontend, ActionChecker):
        return frontend.check_action(stored, state_dir, target, method, arguments)
    actions = frontend.actions(stored, state_dir) if isinstance(frontend, ActionLister) \
        else None
    if actions is None:
        return target
    return resolve(actions, stored.name, target, method, arguments).object
