"""What the store keeps of each deployed instance, and a Runtime put back in that state.

A deploy (and every action after it) keeps, per instance, what undeploy needs
(its stop and delete operations with resolved inputs, its process sessions,
its cloud host and the kind of the cloud that made it) and what day-2 operations need: its state, its own attributes
and its operations' outputs. :func:`restore` loads these into a fresh
:class:`~laguna.frontends.tosca.runtime.Runtime` of the same topology, so an
action or a workflow runs on the deployed topology as it was left.
"""

from __future__ import annotations

import json
import typing as t

from laguna.deploy.result import Component
from laguna.frontends.tosca import functions
from laguna.frontends.tosca.runtime import Instance, Resolve, Runtime, Where


def kept_instances(runtime: Runtime) -> dict[str, t.Any]:
    """Each instance, by id, as the environment's model keeps it."""
    kept: dict[str, t.Any] = {}
    for name, group in runtime.instances.items():
        for instance in group:
            executor = runtime.executor(instance)
            kept[instance.id] = {
                "node": name, "type": instance.node.type, "index": instance.index,
                "sessions": list(instance.sessions),
                "host": getattr(executor, "host_name", None),
                "cloud": getattr(executor, "kind", None),
                "operations": _final_ops(runtime, instance),
                "state": instance.state,
                "attributes": json.loads(json.dumps(instance.attributes, default=str)),
                "outputs": {f"{interface}.{operation}": dict(exported)
                            for (interface, operation), exported in instance.outputs.items()}}
    return kept


def _final_ops(runtime: Runtime, instance: Instance) -> dict[str, t.Any]:
    """Standard.stop and Standard.delete with their inputs resolved now (undeploy runs
    them without the blueprint)."""
    runtime.blocking = False
    ops: dict[str, t.Any] = {}
    for name in ("stop", "delete"):
        op = instance.node.interfaces.get("Standard", {}).get(name)
        if op is None or op.primary is None:
            continue
        try:
            inputs = {k: functions.evaluate(v, Resolve(runtime, Where(instance)))
                      for k, v in op.inputs.items()}
        except (LookupError, TypeError):
            inputs = {}
        ops[name] = {"primary": str(op.primary),
                     "dependencies": [str(p) for p in op.dependencies],
                     "inputs": {k: functions.text(v) for k, v in inputs.items()}}
    return ops


def restore(runtime: Runtime, kept: t.Mapping[str, t.Any],
            components: t.Mapping[str, Component]) -> None:
    """Put ``runtime``'s instances back in the state ``kept`` records (an older model
    without states and attributes: the stored components' instances)."""
    shown = {str(entry.get("id")): entry
             for component in components.values()
             for entry in (component.details or {}).get("instances", [])
             if isinstance(entry, dict)}
    _regroup(runtime, kept)
    for group in runtime.instances.values():
        for instance in group:
            record = kept.get(instance.id) or {}
            seen = shown.get(instance.id, {})
            instance.state = str(record.get("state") or seen.get("state") or "initial")
            attributes = record.get("attributes")
            if attributes is None:
                # only what no declared attribute computes: those are evaluated afresh
                attributes = {k: v for k, v in (seen.get("attributes") or {}).items()
                              if k not in instance.node.attributes}
            instance.attributes.update(attributes)
            instance.attributes["state"] = instance.state
            for key, exported in (record.get("outputs") or {}).items():
                interface, _, operation = str(key).rpartition(".")
                instance.outputs[(interface, operation)] = dict(exported)
            instance.sessions[:] = [int(s) for s in record.get("sessions") or []]
            if runtime.machines is not None and \
                    record.get("host") == runtime.machines.resource(instance.id):
                runtime.hosts[instance.id] = str(record["host"])
                if record.get("cloud"):
                    # reached again through the cloud that made it
                    runtime.machines.kinds[instance.id] = str(record["cloud"])



def _regroup(runtime: Runtime, kept: t.Mapping[str, t.Any]) -> None:
    """The instances of each node as the store keeps them: a resize (a Scaling
    policy, an auto-scaler, a replacer) changed their number and ids since the
    topology's count made them."""
    for name, group in runtime.instances.items():
        records = [(key, record) for key, record in kept.items()
                   if isinstance(record, dict) and record.get("node") == name]
        # a model kept before resizing existed holds no index: the topology's count
        if not records or any(not isinstance(r.get("index"), int) for _, r in records) \
                or [key for key, _ in records] == [i.id for i in group]:
            continue
        made = {i.id: i for i in group}
        node = runtime.topology.nodes[name]
        runtime.instances[name] = [made.get(key) or Instance(node, int(record["index"]), key)
                                   for key, record in records]
