"""One file per stack, changed under an fcntl lock: a snapshot and what changed since.

A push adds a server to a stack of N resources; writing the whole state twice
a push (before the agents start and at the end) made a deployment of N
servers write N² bytes. The file is a journal of JSON lines instead::

    {"format": 2, "stack": ..., "template": ..., "parameters": ..., "outputs": ...,
     "records": [...]}                                  the snapshot
    {"template": {"resources": {"web": {...}, "old": null}}, "outputs": {...},
     "deleted": ["old"], "records": [{...}]}           what one save changed

A save appends one line with what differs from the last one written (new,
changed and removed resources of the template, outputs and records); once the
lines appended outweigh the snapshot, the next save writes a new snapshot
(tempfile + ``os.replace``), so the bytes written stay proportional to the
stack. A record's ``definition`` is left out when it is the template's
resource of the same name (as after every complete push), and its
``properties`` when they are the definition's own (no function in them): the
template is stored once.

A crash in the middle of an append leaves a last line without its newline,
which loading ignores (the state of the save before); the next save then
writes a snapshot. A file of the first format (one JSON object, every record
whole) loads as a snapshot and is rewritten in this one at the next save.

The state of the last save is kept in memory by the process that holds the
lock (``load(stack, cached=True)``); the file's inode, size and mtime tell
whether another process wrote since, and then it is read again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import tempfile
import typing as t
from pathlib import Path

from laguna.cloud.errors import CloudError
from laguna.cloud.stacks import copy_data
from laguna.cloud.state import Records, ResourceRecord, StackState

STACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
FORMAT = 2
#: appended lines are folded into a new snapshot once they outweigh it, or this
COMPACT_BYTES = 64 * 1024

_Signature = tuple[int, int, int]
_SECTIONS = ("resources", "outputs")     # template sections diffed by name


@dataclasses.dataclass(slots=True)
class _Written:
    """What the file holds, as of the last save or load of this process."""

    state: StackState
    signature: _Signature
    snapshot_bytes: int
    appended_bytes: int
    template: dict[str, t.Any] | None
    parameters: dict[str, t.Any]
    outputs: dict[str, t.Any]
    order: list[str]                                   # record names, in order
    #: name -> (id, type, status, definition, properties, copy of data)
    records: dict[str, tuple[t.Any, ...]]
    fresh: bool = True          # False: the next save writes a snapshot


def _same(a: t.Any, b: t.Any) -> bool:
    return a is b or a == b


def _signature(stat: os.stat_result) -> _Signature:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _written_record(record: ResourceRecord) -> tuple[t.Any, ...]:
    return (record.id, record.type, record.status, record.definition, record.properties,
            copy_data(record.data))


def _record_unchanged(record: ResourceRecord, written: tuple[t.Any, ...]) -> bool:
    rid, rtype, status, definition, properties, data = written
    return (record.id == rid and record.type == rtype and record.status == status
            and _same(record.definition, definition) and _same(record.properties, properties)
            and record.data == data)


def _resource(template: t.Mapping[str, t.Any] | None, name: str) -> t.Any:
    resources = template.get("resources") if isinstance(template, dict) else None
    return resources.get(name) if isinstance(resources, dict) else None


def record_json(record: ResourceRecord, template: t.Mapping[str, t.Any] | None
                ) -> dict[str, t.Any]:
    """A record as stored: without what the template already holds."""
    data = record.to_json()
    definition = record.definition
    if _same(definition, _resource(template, record.name)):
        del data["definition"]
    own = definition.get("properties") if isinstance(definition, dict) else None
    if _same(record.properties, own or {}):
        del data["properties"]
    return data


def record_from_json(data: t.Mapping[str, t.Any], template: t.Mapping[str, t.Any] | None
                     ) -> ResourceRecord:
    fields = dict(data)
    if "definition" not in fields:
        definition = _resource(template, fields["name"])
        if not isinstance(definition, dict):
            raise CloudError(f"the state of resource {fields['name']!r} lost its definition",
                             resource=fields["name"])
        fields["definition"] = definition
    if "properties" not in fields:
        fields["properties"] = copy_data(fields["definition"].get("properties") or {})
    return ResourceRecord.from_json(fields)


def _section_diff(new: t.Mapping[str, t.Any], old: t.Mapping[str, t.Any]
                  ) -> dict[str, t.Any] | None:
    """``{"-": removed names, "+": {name: value}}`` (entries new or changed),
    each part only if not empty; None if ``new`` also reorders what ``old``
    had (a snapshot says it then)."""
    survivors = [name for name in old if name in new]
    names = list(new)
    if names[:len(survivors)] != survivors:
        return None
    diff: dict[str, t.Any] = {}
    removed = [name for name in old if name not in new]
    if removed:
        diff["-"] = removed
    changed = {name: new[name] for name in names
               if name not in old or not _same(new[name], old[name])}
    if changed:
        diff["+"] = changed
    return diff


def _apply_section(section: dict[str, t.Any], diff: t.Mapping[str, t.Any]) -> None:
    for name in diff.get("-", []):
        section.pop(name, None)
    section.update(diff.get("+", {}))


class StateFiles:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self._written: dict[str, _Written] = {}

    def path(self, stack: str) -> Path:
        if not STACK_NAME.match(stack):
            raise CloudError("a stack name is letters, digits, '_', '.' and '-'",
                             stack=stack)
        return self.directory / f"{stack}.json"

    @contextlib.contextmanager
    def locked(self, stack: str) -> t.Iterator[None]:
        with open(self.path(stack).with_suffix(".lock"), "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    def begin(self, stack: str) -> bool:
        """Mark an operation on ``stack`` as running; True if the last one never
        ended (the engine died), so that the caller looks for what it left."""
        busy = self.path(stack).with_suffix(".busy")
        unfinished = busy.exists()
        busy.touch()
        return unfinished

    def end(self, stack: str) -> None:
        self.path(stack).with_suffix(".busy").unlink(missing_ok=True)

    # -- reading --------------------------------------------------------------------

    def load(self, stack: str, *, cached: bool = False) -> StackState | None:
        """The stack's state, None if it has none.

        ``cached`` (only under :meth:`locked`, by the one operation that will
        change and save it): the state this process saved last, if no other
        process wrote the file since; otherwise a state of its own."""
        path = self.path(stack)
        if not cached:
            try:
                return self._read(path, stack)[0].state
            except FileNotFoundError:
                return None
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            self._written.pop(stack, None)
            return None
        written = self._written.get(stack)
        if written is not None and written.signature == _signature(stat):
            return written.state
        try:
            written, _ = self._read(path, stack)
        except FileNotFoundError:
            self._written.pop(stack, None)
            return None
        self._written[stack] = written
        return written.state

    def _read(self, path: Path, stack: str) -> tuple[_Written, bytes]:
        with open(path, "rb") as f:
            raw = f.read()
            signature = _signature(os.fstat(f.fileno()))
        lines = raw.split(b"\n")
        # a first line with no "format" is a file of the first format, written
        # without a newline; a last line without one is an append cut short
        first = json.loads(lines[0])
        template = first.get("template")
        records = Records(record_from_json(r, template) for r in first.get("records", []))
        state = StackState(stack=first.get("stack", stack), template=template,
                           parameters=dict(first.get("parameters") or {}),
                           outputs=dict(first.get("outputs") or {}), records=records)
        complete = lines[1:-1]          # each followed by a newline
        torn = bool(lines[-1]) and len(lines) > 1
        for line in complete:
            if line:
                self._replay(state, json.loads(line))
        snapshot_bytes = len(lines[0]) + 1
        written = _Written(
            state=state, signature=signature, snapshot_bytes=snapshot_bytes,
            appended_bytes=len(raw) - snapshot_bytes, template=state.template,
            parameters=state.parameters, outputs=dict(state.outputs),
            order=list(state.records),
            records={r.name: _written_record(r) for r in state.records.values()},
            fresh="format" in first and not torn)
        return written, raw

    @staticmethod
    def _replay(state: StackState, change: t.Mapping[str, t.Any]) -> None:
        if "template" in change:
            template_change = change["template"]
            if template_change is None or "=" in template_change:
                state.template = None if template_change is None else template_change["="]
            else:
                template = dict(state.template or {})
                for key in template_change.get("-", []):
                    template.pop(key, None)
                for key, value in template_change.get("+", {}).items():
                    template[key] = value
                for key in _SECTIONS:
                    if key in template_change:
                        section = dict(template.get(key) or {})
                        _apply_section(section, template_change[key])
                        template[key] = section
                state.template = template
        if "parameters" in change:
            state.parameters = dict(change["parameters"])
        if "outputs" in change:
            outputs = dict(state.outputs)
            _apply_section(outputs, change["outputs"])
            state.outputs = outputs
        for name in change.get("deleted", []):
            state.records.pop(name, None)
        for data in change.get("records", []):
            state.records[data["name"]] = record_from_json(data, state.template)

    # -- writing --------------------------------------------------------------------

    def save(self, state: StackState) -> None:
        path = self.path(state.stack)
        written = self._written.get(state.stack)
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            stat = None
        try:
            if (written is None or written.state is not state or not written.fresh
                    or stat is None or written.signature != _signature(stat)
                    or written.appended_bytes > max(written.snapshot_bytes, COMPACT_BYTES)):
                self._snapshot(path, state)
                return
            change = self._change(state, written)
            if change is None:
                self._snapshot(path, state)
            elif change:
                self._append(path, state, written, change)
        except BaseException:
            # what the file holds is no longer known for sure: read it next time
            self._written.pop(state.stack, None)
            raise

    def _change(self, state: StackState, written: _Written) -> dict[str, t.Any] | None:
        """What ``state`` changed since ``written`` (empty: nothing), None if a
        snapshot says it better."""
        change: dict[str, t.Any] = {}
        if state.template is not written.template:
            template_change = self._template_change(state.template, written.template)
            if template_change is None:
                return None
            if template_change:
                change["template"] = template_change
        if not _same(state.parameters, written.parameters):
            change["parameters"] = state.parameters
        if state.outputs is not written.outputs:
            outputs = _section_diff(state.outputs, written.outputs)
            if outputs is None:
                return None
            if outputs:
                change["outputs"] = outputs
        order = list(state.records)
        deleted = [name for name in written.order if name not in state.records]
        survivors = [name for name in written.order if name in state.records]
        if order[:len(survivors)] != survivors:
            return None         # a record made again under its name: at the end now
        records = []
        for name in order:
            record = state.records[name]
            before = written.records.get(name)
            if before is None or not _record_unchanged(record, before):
                records.append(record_json(record, state.template))
        if deleted:
            change["deleted"] = deleted
        if records:
            change["records"] = records
        return change

    @staticmethod
    def _template_change(new: dict[str, t.Any] | None, old: dict[str, t.Any] | None
                         ) -> dict[str, t.Any] | None:
        if new is None or old is None:
            return {"=": new}
        change: dict[str, t.Any] = {}
        removed = [key for key in old if key not in new]
        if removed:
            change["-"] = removed
        plain = {}
        for key, value in new.items():
            before = old.get(key)
            if key in _SECTIONS and isinstance(value, dict) and isinstance(before, dict):
                diff = _section_diff(value, before)
                if diff is None:
                    return {"=": new}
                if diff:
                    change[key] = diff
            elif key not in old or not _same(value, before):
                plain[key] = value
        if plain:
            change["+"] = plain
        if list(new) != [key for key in old if key in new] + [k for k in new if k not in old]:
            return {"=": new}   # the sections' order changed
        return change

    def _remember(self, state: StackState, signature: _Signature, snapshot_bytes: int,
                  appended_bytes: int) -> None:
        self._written[state.stack] = _Written(
            state=state, signature=signature, snapshot_bytes=snapshot_bytes,
            appended_bytes=appended_bytes, template=state.template,
            parameters=state.parameters, outputs=state.outputs, order=list(state.records),
            records={r.name: _written_record(r) for r in state.records.values()})

    def _snapshot(self, path: Path, state: StackState) -> None:
        data = {"format": FORMAT, "stack": state.stack, "template": state.template,
                "parameters": state.parameters, "outputs": state.outputs,
                "records": [record_json(r, state.template) for r in state.records.values()]}
        text = (json.dumps(data, separators=(",", ":")) + "\n").encode()
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{state.stack}.")
        with os.fdopen(fd, "wb") as f:
            f.write(text)
            f.flush()
            signature = _signature(os.fstat(f.fileno()))
        os.replace(tmp, path)
        self._remember(state, signature, len(text), 0)

    def _append(self, path: Path, state: StackState, written: _Written,
                change: dict[str, t.Any]) -> None:
        text = (json.dumps(change, separators=(",", ":")) + "\n").encode()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            view = memoryview(text)
            while view:
                view = view[os.write(fd, view):]
            signature = _signature(os.fstat(fd))
        finally:
            os.close(fd)
        # the records' written forms are updated in place: a save touches few
        written.signature = signature
        written.appended_bytes += len(text)
        written.template = state.template
        written.parameters = state.parameters
        written.outputs = state.outputs
        for name in change.get("deleted", []):
            written.records.pop(name, None)
        for data in change.get("records", []):
            record = state.records[data["name"]]
            written.records[record.name] = _written_record(record)
        written.order = list(state.records)

    def remove(self, stack: str) -> None:
        # The lock file stays: another process may be waiting on it.
        self._written.pop(stack, None)
        self.path(stack).unlink(missing_ok=True)

    def stacks(self) -> list[str]:
        return sorted(p.stem for p in self.directory.glob("*.json"))
