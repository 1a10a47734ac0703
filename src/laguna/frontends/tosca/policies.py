"""Policies that act on a deployed topology, run by each watch pass after the
checks (:mod:`.watching`):

- AMP's ``org.apache.brooklyn.policy.ha.ServiceRestarter``: an instance of a
  target whose check fails is restarted (``Standard.stop`` then
  ``Standard.start``, then checked); a failure again within
  ``failOnRecurringFailuresInThisDuration`` of the last one is not restarted:
  the instance is ``failed``;
- AMP's ``org.apache.brooklyn.policy.ha.ServiceReplacer``: an instance of a
  target whose check fails is replaced: a new instance (a new index and
  ``tosca_id``) is deployed, then the failed one is stopped and deleted; the
  same failure limit;
- AMP's ``org.apache.brooklyn.policy.autoscaling.AutoScalerPolicy`` and
  ``tosca.policies.Scaling`` with a ``metric`` (the seed's alias): the
  targets are resized between ``minPoolSize`` and ``maxPoolSize`` when the
  metric (an attribute of the target's instances, averaged over them) is
  above ``metricUpperBound`` or below ``metricLowerBound`` for the
  stabilization delay;
- TOSCA's ``triggers`` of any policy: an event, a condition, an action
  (``call_operation``, ``inline`` a workflow, or ``scale``).

A ``tosca.policies.Scaling`` (or auto-scaler) is also resized by hand:
``laguna action NAME POLICY resize --arg size=N`` (:func:`resize_action`).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import typing as t

from laguna.errors import LagunaError
from laguna.frontends.tosca import actions, conditions, scaling
from laguna.frontends.tosca.runtime import DeployFailed, Instance, Runtime
from laguna.frontends.tosca.watching import (FAILED, ON_FIRE, Memory, Pass, check,
                                            check_operation, give_up, iso, parse_time,
                                            seconds)

RESTARTER = "org.apache.brooklyn.policy.ha.ServiceRestarter"
REPLACER = "org.apache.brooklyn.policy.ha.ServiceReplacer"
AUTOSCALER = "org.apache.brooklyn.policy.autoscaling.AutoScalerPolicy"
SCALING = "tosca.policies.Scaling"
#: AMP's default failure limit (3 minutes)
RECURRING = 180.0
#: the object that names a topology's only Scaling policy in ``laguna action``
POLICY_OBJECT = "policy"
RESIZE = "resize"
#: trigger events a check raises; any other event is evaluated every period
FAILURE_EVENTS = ("failed", "on_fire", "on-fire", "service.failed")
RECOVERY_EVENTS = ("recovered", "running", "service.recovered")


class PolicyRefused(LagunaError):
    """A policy's action asked for what the policy cannot do (nothing ran);
    ``laguna action`` shows it as the action's refusal."""

    code = "LAG-E1549"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def run_policies(runtime: Runtime, memory: Memory, now: Pass) -> None:
    """Every policy of the topology, in the order written."""
    for name, body in runtime.topology.policies.items():
        kind = str(body.get("type"))
        mine = memory.policies.setdefault(name, {})
        if kind in (RESTARTER, REPLACER):
            _heal(runtime, name, body, mine, now, replace=kind == REPLACER)
        elif kind == AUTOSCALER or kind == SCALING and "metric" in (body.get("properties")
                                                                      or {}):
            _autoscale(runtime, name, body, mine, now)
        for trigger, definition in (body.get("triggers") or {}).items():
            _trigger(runtime, name, body, str(trigger), definition,
                     mine.setdefault("triggers", {}).setdefault(str(trigger), {}), now)


def _targets(runtime: Runtime, body: t.Mapping[str, t.Any]) -> list[str]:
    return [str(n) for n in body.get("targets") or [] if str(n) in runtime.instances]


# -- healing ---------------------------------------------------------------------------------
def _heal(runtime: Runtime, name: str, body: t.Mapping[str, t.Any], mine: dict[str, t.Any],
          now: Pass, replace: bool) -> None:
    targets = _targets(runtime, body)
    limit = seconds((body.get("properties") or {}).get(
        "failOnRecurringFailuresInThisDuration"), RECURRING)
    failures: dict[str, str] = mine.setdefault("last_failure", {})
    what = "ServiceReplacer" if replace else "ServiceRestarter"
    for instance in list(now.failed):
        if instance.node.name not in targets or instance.id in now.healed:
            continue
        now.healed.add(instance.id)
        # a replacement is a new member: the limit counts failures of the node
        key = instance.node.name if replace else instance.id
        last = parse_time(failures.get(key))
        failures[key] = iso(now.now)
        if last is not None and (now.now - last).total_seconds() < limit:
            give_up(runtime, instance, f"policy {name} ({what}): it failed again "
                    f"{(now.now - last).total_seconds():.0f} s after the last failure, "
                    f"within failOnRecurringFailuresInThisDuration ({limit:g} s)")
            continue
        if replace:
            _replace(runtime, name, instance, now)
        else:
            _restart(runtime, name, instance, now)


def _restart(runtime: Runtime, name: str, instance: Instance, now: Pass) -> None:
    node = instance.node.name
    runtime.reporter.report("info", f"policy {name} (ServiceRestarter): restarting "
                            f"{instance.id}", node)
    try:
        for operation in ("Standard.stop", "Standard.start"):
            found = instance.node.operation(operation)
            if found is not None and found.primary is not None:
                actions.run(runtime, instance.id, operation, {})
    except actions.ActionFailed as failure:
        give_up(runtime, instance, f"policy {name} (ServiceRestarter): the restart "
                f"failed: {failure.message}")
        return
    checking = check_operation(instance)
    running = check(runtime, instance, checking, now) if checking is not None else True
    if running:
        runtime.set_state(instance, "started")
        runtime.set_attributes(instance, {"service.state": "running", "service.isUp": True})
        runtime.reporter.report("info", f"policy {name} (ServiceRestarter): {instance.id} "
                                "restarted and running", node)
    else:
        give_up(runtime, instance, f"policy {name} (ServiceRestarter): not running after "
                "the restart")


def _replace(runtime: Runtime, name: str, instance: Instance, now: Pass) -> None:
    node = instance.node.name
    try:
        scaling.check_resizable(runtime, node)
        [added] = scaling.grow(runtime, node, 1)
    except scaling.ResizeRefused as refused:
        give_up(runtime, instance, f"policy {name} (ServiceReplacer): {refused.message}")
        return
    except DeployFailed as failure:
        give_up(runtime, instance, f"policy {name} (ServiceReplacer): the replacement "
                f"failed to deploy: {failure.message}")
        return
    runtime.reporter.report("info", f"policy {name} (ServiceReplacer): {instance.id} "
                            f"replaced by {added.id} (tosca_id "
                            f"{added.attributes.get('tosca_id')})", node)
    try:
        scaling.remove(runtime, instance)
    except DeployFailed as failure:
        runtime.reporter.report("error", f"policy {name} (ServiceReplacer): {instance.id} "
                                f"did not stop cleanly: {failure.message}", node)


# -- auto-scaling ----------------------------------------------------------------------------
def _number(value: t.Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip())
    except (TypeError, ValueError):
        return None


def metric_of(runtime: Runtime, node: str, metric: str) -> float | None:
    """The metric over the node's running instances: the mean of their values
    (AMP's per-node metrics); None when none has a number."""
    found = [n for i in runtime.instances[node] if i.state == "started"
             and (n := _number(runtime.attributes(i).get(metric))) is not None]
    return sum(found) / len(found) if found else None


def desired_size(size: int, metric: float, lower: float | None, upper: float | None,
                 low: int, high: int | None) -> int:
    """AMP's rule: above the upper bound, enough instances to bring the total
    (metric x size) under it; below the lower bound, as few as keep it above;
    never outside [low, high]."""
    wanted = size
    total = metric * size
    if upper is not None and metric > upper:
        wanted = max(size + 1, math.ceil(total / upper)) if upper > 0 else size + 1
    elif lower is not None and metric < lower:
        wanted = min(size - 1, math.floor(total / lower)) if lower > 0 else size - 1
    wanted = max(wanted, low)
    return min(wanted, high) if high is not None else wanted


def _autoscale(runtime: Runtime, name: str, body: t.Mapping[str, t.Any],
               mine: dict[str, t.Any], now: Pass) -> None:
    properties = body.get("properties") or {}
    metric = str(properties.get("metric") or "")
    # a node keeps at least one instance (scaling.resize)
    low = max(1, int(_number(properties.get("minPoolSize")) or 0))
    high_value = _number(properties.get("maxPoolSize"))
    high = int(high_value) if high_value is not None else None
    for node in _targets(runtime, body):
        size = len(runtime.instances[node])
        value = metric_of(runtime, node, metric)
        wanted = desired_size(size, value, _number(properties.get("metricLowerBound")),
                              _number(properties.get("metricUpperBound")), low, high) \
            if value is not None else max(low, min(size, high if high is not None else size))
        waiting = mine.setdefault("pending", {})
        if wanted == size:
            waiting.pop(node, None)
            continue
        key = "resizeUpStabilizationDelay" if wanted > size else \
            "resizeDownStabilizationDelay"
        delay = seconds(properties.get(key), 0.0)
        pending = waiting.get(node)
        direction = "up" if wanted > size else "down"
        if not isinstance(pending, dict) or pending.get("direction") != direction:
            pending = waiting[node] = {"direction": direction, "since": iso(now.now)}
        since = parse_time(pending.get("since")) or now.now
        ready = since + datetime.timedelta(seconds=delay)
        if ready > now.now:
            now.dues.append(ready)
            continue
        waiting.pop(node, None)
        runtime.reporter.report("info", f"policy {name} (AutoScalerPolicy): {metric} is "
                                f"{value if value is not None else 'unknown'} over {size} "
                                f"instance(s) of {node}: resizing to {wanted}", node)
        _resize(runtime, name, node, wanted, now)


def _resize(runtime: Runtime, name: str, node: str, size: int, now: Pass) -> None:
    now.changed = True
    try:
        added, removed = scaling.resize(runtime, node, size)
    except scaling.ResizeRefused as refused:
        runtime.reporter.report("error", f"policy {name}: {refused.message}", node)
        return
    except DeployFailed as failure:
        runtime.reporter.report("error", f"policy {name}: resizing {node} to {size} "
                                f"failed: {failure.message}", node)
        return
    runtime.reporter.report("info", f"policy {name}: {node} resized to {size} (added: "
                            f"{', '.join(added) or '-'}; removed: {', '.join(removed) or '-'})",
                            node)


# -- resize by hand --------------------------------------------------------------------------
def scaling_policy(runtime: Runtime, object_id: str,
                   arguments: t.Mapping[str, str]) -> str | None:
    """The Scaling policy ``action OBJECT resize`` names (OBJECT: the policy, or
    ``policy`` for the only one, or ``--arg policy=NAME``); None when OBJECT names
    no policy."""
    resizable = [name for name, body in runtime.topology.policies.items()
                 if body.get("type") in (SCALING, AUTOSCALER)]
    if object_id in runtime.topology.policies:
        if object_id not in resizable:
            raise PolicyRefused(f"policy {object_id} is a "
                                f"{runtime.topology.policies[object_id].get('type')}, not a "
                                f"{SCALING} or an AutoScalerPolicy: it has no resize")
        return object_id
    if object_id != POLICY_OBJECT or object_id in runtime.instances:
        return None
    named = arguments.get("policy")
    if named is not None:
        if named not in resizable:
            raise PolicyRefused(f"--arg policy={named}: no Scaling policy of that name "
                                f"(Scaling policies: {', '.join(resizable) or 'none'})")
        return named
    if len(resizable) != 1:
        raise PolicyRefused(f"topology {runtime.topology.name} has "
                            f"{len(resizable) or 'no'} Scaling policies "
                            f"({', '.join(resizable) or 'none'}): name one with "
                            "--arg policy=NAME" if resizable else
                            f"topology {runtime.topology.name} has no Scaling policy")
    return resizable[0]


def resize_size(runtime: Runtime, policy: str, method: str,
                arguments: t.Mapping[str, str]) -> int:
    """The size ``--arg size=N`` asks for, checked against the policy's bounds."""
    if method != RESIZE:
        raise PolicyRefused(f"policy {policy} has no action {method!r} (actions: resize)")
    text = arguments.get("size")
    if text is None:
        raise PolicyRefused(f"policy {policy}: resize needs --arg size=N")
    try:
        size = int(text)
    except ValueError:
        raise PolicyRefused(f"policy {policy}: --arg size={text}: not a whole number") \
            from None
    properties = runtime.topology.policies[policy].get("properties") or {}
    low = _number(properties.get("minPoolSize", properties.get("min_instances")))
    high = _number(properties.get("maxPoolSize", properties.get("max_instances")))
    low = max(low or 1, 1)
    if size < low or high is not None and size > high:
        bounds = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise PolicyRefused(f"policy {policy}: size {size} is out of bounds ({bounds})")
    return size


def resize_action(runtime: Runtime, policy: str, size: int) -> dict[str, t.Any]:
    """Resize every target of ``policy`` to ``size``; what was added and removed."""
    result: dict[str, t.Any] = {}
    for node in _targets(runtime, runtime.topology.policies[policy]):
        added, removed = scaling.resize(runtime, node, size)
        runtime.reporter.report("info", f"policy {policy}: {node} resized to {size} "
                                f"(added: {', '.join(added) or '-'}; removed: "
                                f"{', '.join(removed) or '-'})", node)
        result[node] = {"size": size, "added": added, "removed": removed}
    return result


# -- triggers --------------------------------------------------------------------------------
def _event(definition: t.Mapping[str, t.Any]) -> str:
    event = definition.get("event")
    if isinstance(event, dict):
        event = event.get("type")
    return str(event or "")


def _trigger(runtime: Runtime, policy: str, body: t.Mapping[str, t.Any], name: str,
             definition: t.Any, mine: dict[str, t.Any], now: Pass) -> None:
    if not isinstance(definition, dict):
        return
    event = _event(definition)
    target_filter = definition.get("target_filter") or {}
    nodes = [str(target_filter["node"])] if isinstance(target_filter, dict) and \
        target_filter.get("node") else _targets(runtime, body)
    condition = definition.get("condition") or []
    period: float | None = None
    evaluations = 1
    if isinstance(condition, dict):
        period = seconds(condition.get("period"), 0.0) or None
        evaluations = int(_number(condition.get("evaluations")) or 1)
        condition = condition.get("constraint") or condition.get("condition") or []
    if event in FAILURE_EVENTS:
        candidates = [i for i in now.failed if i.node.name in nodes]
    elif event in RECOVERY_EVENTS:
        candidates = [i for i in now.recovered if i.node.name in nodes]
    else:
        # evaluated every period (default: with each check of a target)
        if period is not None:
            due = parse_time(mine.get("due"))
            if due is not None and due > now.now:
                now.dues.append(due)
                return
            mine["due"] = iso(now.due_in(period))
            candidates = [i for n in nodes for i in runtime.instances.get(n, [])]
        else:
            candidates = [i for i in now.checked if i.node.name in nodes]
    streaks: dict[str, int] = mine.setdefault("streak", {})
    for instance in candidates:
        if not any(instance is i for group in runtime.instances.values() for i in group):
            continue
        # attributes as get_attribute sees them: the declared ones evaluated
        seen = dataclasses.replace(instance, attributes=runtime.attributes(instance))
        why = conditions.unmet(condition, seen) if isinstance(condition, list) else None
        if why is not None:
            streaks.pop(instance.id, None)
            continue
        streaks[instance.id] = streaks.get(instance.id, 0) + 1
        if streaks[instance.id] < evaluations:
            continue
        streaks.pop(instance.id, None)
        _fire(runtime, policy, name, event, definition.get("action") or [], instance, now)


def _fire(runtime: Runtime, policy: str, trigger: str, event: str, activities: t.Any,
          instance: Instance, now: Pass) -> None:
    now.changed = True
    node = instance.node.name
    runtime.reporter.report("info", f"policy {policy}: trigger {trigger} fired on "
                            f"{instance.id} (event {event or '-'})", node)
    if instance.id in (i.id for i in now.failed):
        now.healed.add(instance.id)
    for activity in activities if isinstance(activities, list) else [activities]:
        if not isinstance(activity, dict) or len(activity) != 1:
            continue
        ((kind, argument),) = activity.items()
        try:
            if kind == "call_operation":
                operation = argument.get("operation") if isinstance(argument, dict) \
                    else argument
                inputs = argument.get("inputs") or {} if isinstance(argument, dict) else {}
                actions.run(runtime, instance.id, str(operation),
                            {str(k): str(v) for k, v in inputs.items()})
                _after_operation(runtime, instance, now)
            elif kind in ("inline", "delegate"):
                from laguna.frontends.tosca.workflows import WorkflowRun
                flow = argument.get("workflow") if isinstance(argument, dict) else argument
                WorkflowRun(runtime).run(str(flow), {})
                _after_operation(runtime, instance, now)
            elif kind == "scale":
                if (policy, trigger, node) in now.scaled:
                    continue    # once a pass for the node, however many instances fire
                now.scaled.add((policy, trigger, node))
                size = len(runtime.instances[node])
                text = str(argument).strip()
                wanted = size + int(text) if text[:1] in "+-" else int(text)
                _resize(runtime, policy, node, wanted, now)
            else:
                runtime.reporter.report("error", f"policy {policy}: trigger {trigger}: "
                                        f"activity {kind} is not one laguna runs "
                                        "(call_operation, inline, scale)", node)
                continue
        except (actions.ActionFailed, actions.ActionRefused) as failure:
            runtime.reporter.report("error", f"policy {policy}: trigger {trigger}: {kind} "
                                    f"failed: {failure.message}", node)
            return
        except Exception as failure:     # a workflow's own failure (StepFailed...)
            runtime.reporter.report("error", f"policy {policy}: trigger {trigger}: {kind} "
                                    f"failed: {failure}", node)
            return
        runtime.reporter.report("info", f"policy {policy}: trigger {trigger}: {kind} "
                                f"{argument} done", node)


def _after_operation(runtime: Runtime, instance: Instance, now: Pass) -> None:
    """An instance on fire that an action started again is checked at once."""
    if instance.attributes.get("service.state") not in (ON_FIRE, FAILED):
        return
    operation = check_operation(instance)
    if operation is not None and instance.state == "started":
        check(runtime, instance, operation, now)
