"""AMP's initializer groups (seed 003: a group of type
``brooklyn.tosca.groups.initializer``, the seed's ``add_brooklyn_types``): the
AMP configuration they attach to their members, checked, and their
``brooklyn.policies`` as entries of the topology's policies.

An initializer group's properties are AMP's, not a TOSCA type's: ``location``
(where its members run, locations.py), ``brooklyn.policies``,
``brooklyn.enrichers``, ``brooklyn.initializers`` (lists of AMP specs, each
with a ``type``) and ``brooklyn.config`` (a map); another property is a
problem. A policy of a type laguna does not know is kept as written (AMP
resolves types at run time); AMP's auto-scaler, restarter and replacer have
their configuration keys checked here.
"""

from __future__ import annotations

import re
import typing as t

from laguna.frontends.tosca import locations
from laguna.frontends.tosca.problems import (
    CONSTRAINT_VIOLATION,
    INVALID_TEMPLATE,
    MISSING_REQUIRED,
    TYPE_MISMATCH,
)
from laguna.frontends.tosca.types import is_function

#: AMP's group type that attaches AMP policies, locations... to its members
AMP_INITIALIZER = "brooklyn.tosca.groups.initializer"
AUTO_SCALER = "org.apache.brooklyn.policy.autoscaling.AutoScalerPolicy"
RESTARTER = "org.apache.brooklyn.policy.ha.ServiceRestarter"
REPLACER = "org.apache.brooklyn.policy.ha.ServiceReplacer"

#: the properties an initializer group takes
PROPERTIES = ("location", "brooklyn.policies", "brooklyn.enrichers",
              "brooklyn.initializers", "brooklyn.config")
#: the keys of one AMP spec in brooklyn.policies, .enrichers, .initializers
SPEC_KEYS = ("type", "name", "id", "brooklyn.config")

#: each known AMP policy's configuration keys and the kind of value each takes (AMP's
#: names; the auto-scaler's also with its ``autoscaler.`` prefix)
_SCALER_KEYS = {
    "metric": "string", "entityWithMetric": "entity", "metricLowerBound": "number",
    "metricUpperBound": "number", "minPoolSize": "integer", "maxPoolSize": "integer",
    "minPeriodBetweenExecs": "duration", "resizeUpStabilizationDelay": "duration",
    "resizeDownStabilizationDelay": "duration", "resizeUpIterationIncrement": "integer",
    "resizeUpIterationMax": "integer", "resizeDownIterationIncrement": "integer",
    "resizeDownIterationMax": "integer", "poolHotSensor": "string",
    "poolColdSensor": "string", "poolOkSensor": "string", "maxSizeReachedSensor": "string",
    "maxReachedNotificationDelay": "duration",
}
POLICY_KEYS: dict[str, dict[str, str]] = {
    AUTO_SCALER: {**_SCALER_KEYS, **{f"autoscaler.{k}": v for k, v in _SCALER_KEYS.items()}},
    RESTARTER: {"failOnRecurringFailuresInThisDuration": "duration",
                "setOnFireOnFailure": "boolean", "failureSensorToMonitor": "string"},
    REPLACER: {"failOnRecurringFailuresInThisDuration": "duration",
               "failOnNumRecurringFailures": "integer", "setOnFireOnFailure": "boolean",
               "failureSensorToMonitor": "string"},
}
#: keys AMP takes as Java objects, which a blueprint cannot give laguna
_JAVA_KEYS = {"resizeOperator", "currentSizeOperator", "autoscaler.resizeOperator",
              "autoscaler.currentSizeOperator", "ticker"}

_DURATION = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*(?:ms|millis|milliseconds?|s|secs?|seconds?"
                       r"|m|mins?|minutes?|h|hours?|d|days?)\s*)+$")

#: a problem: (kind, message, the map holding the key, the key)
Finding = tuple[str, str, object, object]


def initializer_policies(group: str, body: t.Mapping[str, t.Any]
                         ) -> dict[str, dict[str, t.Any]]:
    """The policies an initializer group attaches to its members, as entries of
    ``Topology.policies``: the ``i``-th of ``brooklyn.policies`` is named
    ``<group>.<i>`` (from 0) with ``{"type": <the AMP type as written>,
    "properties": <its brooklyn.config>, "targets": <the group's members>}``.
    ``body`` is the group as ``Topology.groups`` keeps it (type, members,
    properties); a group of another type gives none."""
    if body.get("type") != AMP_INITIALIZER:
        return {}
    specs = (body.get("properties") or {}).get("brooklyn.policies")
    if not isinstance(specs, list):
        return {}
    found: dict[str, dict[str, t.Any]] = {}
    for index, spec in enumerate(specs):
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            continue
        config = spec.get("brooklyn.config")
        found[f"{group}.{index}"] = {
            "type": str(spec["type"]),
            "properties": dict(config) if isinstance(config, dict) else {},
            "targets": list(body.get("members") or [])}
    return found


def check(properties: t.Mapping[str, t.Any], nodes: t.Collection[str]) -> list[Finding]:
    """Every problem of an initializer group's properties; ``nodes`` are the node
    templates (an ``entityWithMetric`` names one)."""
    found: list[Finding] = []
    for key, value in properties.items():
        if key not in PROPERTIES:
            found.append((INVALID_TEMPLATE, f"unknown property {key!r} of an initializer "
                          f"group (expected one of {', '.join(PROPERTIES)})", properties, key))
        elif key == "location" and locations.check(value) is not None:
            found.append((INVALID_TEMPLATE, str(locations.check(value)), properties, key))
        elif key == "brooklyn.config" and not isinstance(value, dict):
            found.append((TYPE_MISMATCH, "brooklyn.config is a map of AMP configuration",
                          properties, key))
        elif key.startswith("brooklyn.") and key != "brooklyn.config":
            found += _specs(key, value, properties, nodes)
    return found


def _specs(key: str, specs: object, holder: t.Mapping[str, t.Any],
           nodes: t.Collection[str]) -> list[Finding]:
    if not isinstance(specs, list):
        return [(TYPE_MISMATCH, f"{key} is a list of AMP specs ({{type: ..., "
                 "brooklyn.config: {...}})", holder, key)]
    found: list[Finding] = []
    for index, spec in enumerate(specs):
        where = f"{key}[{index}]"
        if not isinstance(spec, dict):
            found.append((TYPE_MISMATCH, f"{where} is a map with a type", holder, key))
            continue
        for name in spec:
            if name not in SPEC_KEYS:
                found.append((INVALID_TEMPLATE, f"{where}: unknown keyname {name!r} "
                              f"(expected one of {', '.join(SPEC_KEYS)})", spec, name))
        type_name = spec.get("type")
        if not isinstance(type_name, str):
            found.append((MISSING_REQUIRED, f"{where} needs a type", spec,
                          "type" if "type" in spec else None))
            continue
        config = spec.get("brooklyn.config")
        if config is not None and not isinstance(config, dict):
            found.append((TYPE_MISMATCH, f"{where}: brooklyn.config is a map", spec,
                          "brooklyn.config"))
        elif key == "brooklyn.policies" and type_name in POLICY_KEYS:
            found += _policy_config(type_name, config or {}, where, nodes)
    return found


def _policy_config(type_name: str, config: t.Mapping[str, t.Any], where: str,
                   nodes: t.Collection[str]) -> list[Finding]:
    keys = POLICY_KEYS[type_name]
    short = type_name.rsplit(".", 1)[-1]
    found: list[Finding] = []
    for key, value in config.items():
        if key in _JAVA_KEYS:
            found.append((INVALID_TEMPLATE, f"{where}: {short} {key} is a Java object, "
                          "which laguna cannot take", config, key))
            continue
        kind = keys.get(str(key))
        if kind is None:
            shown = sorted(k for k in keys if not k.startswith("autoscaler."))
            found.append((INVALID_TEMPLATE, f"{where}: {short} has no configuration key "
                          f"{key!r} (its keys: {', '.join(shown)})", config, key))
            continue
        if is_function(value):
            continue
        why = _kind_problem(kind, value, nodes)
        if why is not None:
            found.append((TYPE_MISMATCH, f"{where}: {short} {key}: {why}", config, key))
    found += _bounds(config, where, short)
    return found


def _kind_problem(kind: str, value: object, nodes: t.Collection[str]) -> str | None:
    if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{value!r} is not an integer"
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"{value!r} is not a number"
    if kind == "boolean" and not isinstance(value, bool):
        return f"{value!r} is not a boolean"
    if kind == "string" and not isinstance(value, str):
        return f"{value!r} is not a string"
    if kind == "duration" and not (
            (isinstance(value, int) and not isinstance(value, bool))
            or (isinstance(value, str) and _DURATION.match(value))):
        return f"{value!r} is not a duration (10s, 1m, 2h, or milliseconds)"
    if kind == "entity" and value not in nodes:
        return f"{value!r} is not a node template"
    return None


def _bounds(config: t.Mapping[str, t.Any], where: str, short: str) -> list[Finding]:
    """AMP refuses a lower bound above its upper bound."""
    found: list[Finding] = []
    for low, high in (("minPoolSize", "maxPoolSize"), ("metricLowerBound", "metricUpperBound")):
        a = config.get(low, config.get(f"autoscaler.{low}"))
        b = config.get(high, config.get(f"autoscaler.{high}"))
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool) and a > b:
            found.append((CONSTRAINT_VIOLATION, f"{where}: {short} {low} {a} is above "
                          f"{high} {b}", config, low if low in config else f"autoscaler.{low}"))
    return found
