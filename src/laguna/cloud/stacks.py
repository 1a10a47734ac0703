"""Bringing a stack's records in line with a template, for any :class:`Realm`.

:func:`apply` parses the template, then removes the resources the template no
longer has (newest first), creates the new ones in dependency order and
updates in place those whose evaluated properties changed. Records not
``complete`` at the start (a push that died halfway) are removed and created
again. The realm saves its state before it starts anything (a host) and at
the end; addresses and processes it made meanwhile carry their owner, so a
crash in between leaves nothing the next operation cannot find.
"""

from __future__ import annotations

import copy
import dataclasses
import typing as t
from pathlib import Path

from laguna.cloud import hot
from laguna.cloud.base import Host
from laguna.cloud.resources import TYPES, Realm
from laguna.cloud.state import COMPLETE, ResourceRecord


class _Resolver:
    def __init__(self, realm: Realm) -> None:
        self.realm = realm

    def resource_id(self, name: str) -> str:
        return self.realm.state.records[name].id

    def attribute(self, name: str, attribute: str) -> t.Any:
        record = self.realm.state.records[name]
        attrs = TYPES[record.type].attributes(self.realm, record)
        if attribute not in attrs:
            raise KeyError(attribute)
        return attrs[attribute]


class _Evaluator(hot.Evaluator):
    def _fn_get_attr(self, arg: t.Any, path: hot.Location) -> t.Any:
        try:
            return super()._fn_get_attr(arg, path)
        except KeyError as exc:
            self.fail(path, f"resource {arg[0]!r} of type "
                      f"{self.template.resources[arg[0]].type!r} has no attribute {exc.args[0]!r}")


def copy_data(value: t.Any) -> t.Any:
    """A deep copy of JSON-like data (dicts, lists, tuples, scalars) at a
    fraction of :func:`copy.deepcopy`'s cost; anything else goes to deepcopy."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else copy_data(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else copy_data(v) for v in value]
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return tuple(copy_data(v) for v in value)
    return copy.deepcopy(value)


_ATOMS = frozenset({str, int, float, bool, type(None)})


def delete_record(realm: Realm, record: ResourceRecord) -> None:
    """Undo a resource and forget it (the caller saves)."""
    TYPES[record.type].delete(realm, record)
    del realm.state.records[record.name]


def delete_all(realm: Realm) -> None:
    for record in reversed(list(realm.state.records.values())):
        delete_record(realm, record)
    realm.save()


def share_copy(value: t.Any, old: t.Any) -> t.Any:
    """A copy of JSON-like ``value`` like :func:`copy_data`, except that a part
    equal to the same part of ``old`` is ``old``'s own, not a copy (``old`` is
    a copy kept earlier, which nothing changes). A stack's template grows by a
    few resources a push: they alone are copied, and the rest stays the same
    objects, which tells :func:`hot.parse` and :func:`apply` what is unchanged."""
    if old is not None and type(value) is type(old) and value == old:
        return old
    if type(value) is dict and type(old) is dict:
        return {k: share_copy(v, old.get(k)) if type(v) is dict else copy_data(v)
                for k, v in value.items()}
    return copy_data(value)


@dataclasses.dataclass(slots=True)
class Memo:
    """What the last successful :func:`apply` of a stack computed, kept with its
    state in memory only (``StackState.memo``), so that the next one skips what
    did not change."""

    parsed: hot.Template
    values: dict[str, t.Any]
    files: dict[str, str]


def apply(realm: Realm, template: t.Mapping[str, t.Any],
          parameters: t.Mapping[str, t.Any], files: t.Mapping[str, str],
          settle: t.Callable[[], None] = lambda: None) -> hot.Diff:
    """Realise ``template``; ``settle`` waits for what creation started.

    A resource is evaluated again only if its definition changed, it calls
    get_attr, something it refers to was created or changed in this push, or
    the parameters or files changed; the same holds for outputs. So a push
    costs what changed, not the size of the stack (a template equal to the
    last one does nothing)."""
    state = realm.state
    memo = t.cast("Memo | None", state.memo)
    # Until this push ends: a push that fails halfway leaves records the memo
    # no longer describes, and the next one evaluates everything.
    state.memo = None
    # A copy: the caller may change its template in place before the next push,
    # and the records must keep what was realised to see what changed.
    own = share_copy(dict(template), state.template)
    parsed = hot.parse(own, state.stack, known_types=TYPES,
                       previous=memo.parsed if memo is not None else None)
    values = hot.resolve_parameters(parsed, parameters)
    same_inputs = memo is not None and values == memo.values and files == memo.files
    unfinished = [r for r in state.records.values() if r.status != COMPLETE]
    if same_inputs and own is state.template and not unfinished:
        settle()        # hosts the realm restarted, if any
        state.memo = memo
        realm.save()
        return hot.Diff((), (), ())
    evaluator = _Evaluator(parsed, values, _Resolver(realm), files)

    removed = [r for r in state.records.values()
               if r.status == COMPLETE and (r.name not in parsed.resources
                                            or r.type != parsed.resources[r.name].type)]
    doomed = {r.name for r in [*unfinished, *removed]}
    for old in reversed([r for r in state.records.values() if r.name in doomed]):
        delete_record(realm, old)

    added: list[str] = []
    changed: list[str] = []
    dirty: set[str] = set()     # created or changed in this push
    for name in parsed.order():
        resource = parsed.resources[name]
        record = state.records.get(name)
        if (same_inputs and record is not None and record.definition is resource.definition
                and name not in parsed.attribute_users
                and parsed.references[name].isdisjoint(dirty)):
            continue
        path = f"resources.{name}.properties"
        properties = evaluator.evaluate(dict(resource.properties), path)
        rtype = TYPES[resource.type]
        # the template's own object (parse checked it is a dict), not a copy
        definition = t.cast("dict[str, t.Any]", resource.definition)
        if record is None:
            new = ResourceRecord(name, resource.type, realm.new_id(name),
                                 definition, properties)
            state.records[name] = new
            rtype.create(realm, new)
            new.status = COMPLETE
            added.append(name)
            dirty.add(name)
        elif record.properties != properties or record.definition != resource.definition:
            rtype.update(realm, record, properties)
            record.definition = definition
            changed.append(name)
            dirty.add(name)
        else:
            record.definition = definition      # the same object from now on
    settle()

    outputs: dict[str, t.Any] = {}
    for name, output in parsed.outputs.items():
        if (same_inputs and name in state.outputs and memo is not None
                and memo.parsed.outputs.get(name) is output
                and name not in parsed.attribute_outputs
                and parsed.output_references[name].isdisjoint(dirty)):
            outputs[name] = state.outputs[name]
        else:
            outputs[name] = evaluator.evaluate(output.value, f"outputs.{name}.value")
    state.template = own
    state.parameters = dict(parameters)
    state.outputs = outputs
    state.memo = Memo(parsed, values, dict(files))
    realm.save()
    return hot.Diff(tuple(added), tuple(r.name for r in removed), tuple(changed))


def host(stack: str, record: ResourceRecord, root: Path | None,
         agent_secret: str | None = None) -> Host:
    """The engine's view of a server record."""
    return Host(stack=stack, name=record.name, agent_secret=agent_secret,
                server_name=str(record.properties.get("name") or record.name),
                addresses=tuple(a["addr"] for a in record.data.get("addresses", [])),
                agent_url=record.data.get("url"), root=root,
                user_data=record.data.get("user_data"),
                metadata=record.properties.get("metadata") or {}, resource_id=record.id)
