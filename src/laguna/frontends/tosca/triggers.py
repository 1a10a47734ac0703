"""The shape of a policy's ``triggers`` (TOSCA 1.3 3.6.22) as laguna runs them
(:mod:`.policies`): checked with the rest of the template, so a trigger that
could not act is refused before anything is deployed.

A trigger is a map of ``description``, ``event`` (a name, or ``{type: name}``),
``schedule``, ``target_filter`` (``{node: N}``), ``condition`` (condition
clauses, or ``{constraint: clauses, period: TIME, evaluations: N, method}``) and
``action`` (a list of activities: ``call_operation``, ``inline``/``delegate``
a workflow, ``scale``).
"""

from __future__ import annotations

import re
import typing as t

from laguna.frontends.tosca import conditions
from laguna.frontends.tosca.model import Node

KEYNAMES = frozenset({"description", "event", "schedule", "target_filter", "condition",
                      "action"})
CONDITION_KEYNAMES = frozenset({"constraint", "condition", "period", "evaluations", "method"})
ACTIVITIES = ("call_operation", "inline", "delegate", "scale")
_SIZE = re.compile(r"^[+-]?\d+$")

#: (message, the map holding the key, the key)
Problem = tuple[str, object, object]


def problems(triggers: object, targets: t.Sequence[str], nodes: t.Mapping[str, Node],
             workflows: t.Collection[str]) -> list[Problem]:
    """What is wrong with a policy's ``triggers`` (empty: nothing)."""
    if triggers is None:
        return []
    if not isinstance(triggers, dict):
        return [("triggers is a map of trigger names to triggers", triggers, None)]
    found: list[Problem] = []
    for name, body in triggers.items():
        where = f"trigger {name}"
        if not isinstance(body, dict):
            found.append((f"{where}: a trigger is a map", triggers, name))
            continue
        for key in body:
            if key not in KEYNAMES:
                found.append((f"{where}: unknown keyname {key!r} (expected one of "
                              f"{', '.join(sorted(KEYNAMES))})", body, key))
        event = body.get("event")
        if isinstance(event, dict):
            event = event.get("type")
        if not isinstance(event, str) or not event:
            found.append((f"{where}: an event is a name (or {{type: name}})", body, "event"))
        filtered = body.get("target_filter")
        own = [str(filtered["node"])] if isinstance(filtered, dict) and "node" in filtered \
            else list(targets)
        for node in own:
            if node not in nodes:
                found.append((f"{where}: target_filter: {node!r} is not a node template",
                              body, "target_filter"))
        found += _condition(where, body)
        found += _action(where, body, [nodes[n] for n in own if n in nodes], workflows)
    return found


def _condition(where: str, body: t.Mapping[str, t.Any]) -> list[Problem]:
    condition = body.get("condition")
    if condition is None:
        return []
    if isinstance(condition, dict):
        unknown = [k for k in condition if k not in CONDITION_KEYNAMES]
        if unknown:
            return [(f"{where}: condition: unknown keyname {unknown[0]!r} (expected one of "
                     f"{', '.join(sorted(CONDITION_KEYNAMES))})", body, "condition")]
        condition = condition.get("constraint") or condition.get("condition") or []
    return [(f"{where}: condition: {why}", body, "condition")
            for why in conditions.shape_problems(condition)]


def _action(where: str, body: t.Mapping[str, t.Any], nodes: t.Sequence[Node],
            workflows: t.Collection[str]) -> list[Problem]:
    activities = body.get("action")
    if not isinstance(activities, list) or not activities:
        return [(f"{where}: an action is a list of activities", body, "action")]
    found: list[Problem] = []
    for activity in activities:
        if not isinstance(activity, dict) or len(activity) != 1 or \
                next(iter(activity)) not in ACTIVITIES:
            found.append((f"{where}: an activity is one of {', '.join(ACTIVITIES)}", body,
                          "action"))
            continue
        ((kind, argument),) = activity.items()
        if kind == "call_operation":
            operation = argument.get("operation") if isinstance(argument, dict) else argument
            for node in nodes:
                if node.operation(str(operation)) is None:
                    found.append((f"{where}: call_operation: {node.name} has no operation "
                                  f"{operation}", body, "action"))
        elif kind in ("inline", "delegate"):
            flow = argument.get("workflow") if isinstance(argument, dict) else argument
            if flow not in workflows:
                found.append((f"{where}: {kind}: unknown workflow {flow!r}", body, "action"))
        elif not _SIZE.match(str(argument).strip()):
            found.append((f"{where}: scale: {argument!r} is not a size (N) or a change "
                          "(+N, -N)", body, "action"))
    return found
