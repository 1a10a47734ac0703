"""Watching a deployed assembly: each Active instance's Integrity check, run
every period, and the heal of what it finds broken when the assembly asks.

The seed names ``Broken`` as a state relationships may want but says nothing
of monitoring; the spec page runs ``Integrity`` after Start. laguna's rule
(docs/DESCRIPTORS.md, "Watching"): one pass (``laguna watch``, the worker's
``watch`` job) runs the ``Integrity`` script of every Active resource
instance whose resource declares it and whose check is due. A check that
exits non-zero moves the instance to Broken as a failed Integrity after Start
does (its relationships cease, those wanting it Broken are created), reports
it with the check's output, and, when the assembly's ``autoHeal`` property is
true, heals it as ``laguna intent NAME heal INSTANCE`` does (its resource's
``Heal``, else a reinstall). The period is the assembly's ``integrityPeriod``
property (seconds), else :data:`DEFAULT_PERIOD`.

What a failed check found is kept on the instance (``integrity``: time,
exit code, output) and shown while it is Broken; when each check is next due
is kept in the model's ``watch`` entry.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t

from laguna.frontends.assembly import errors as e
from laguna.deploy.context import Reporter
from laguna.deploy.result import iso
from laguna.frontends.assembly.engine import ACTIVE, BROKEN, Engine
from laguna.frontends.assembly.topology import Node

#: the assembly property that asks for broken instances to be healed
AUTO_HEAL = "autoHeal"
#: the assembly property that sets how often each instance is checked (seconds)
PERIOD = "integrityPeriod"
#: the period when the assembly sets none: the TOSCA front end's check_running
#: default (seed 003's 1m), so both languages watch at the same pace
DEFAULT_PERIOD = 60.0
INTEGRITY = "Integrity"
#: the lines of a failed check's output kept on the instance
OUTPUT_LINES = 5


@dataclasses.dataclass(frozen=True)
class Settings:
    """What an assembly asks of watching."""

    auto_heal: bool = False
    period: float = DEFAULT_PERIOD


def settings_of(properties: t.Mapping[str, t.Any]) -> Settings:
    """The assembly's watch settings from its resolved properties; ValueError
    (its message names the property) when one has a value watching cannot use."""
    auto = properties.get(AUTO_HEAL)
    if auto is None:
        auto = False
    elif isinstance(auto, str) and auto.strip().lower() in ("true", "false"):
        auto = auto.strip().lower() == "true"
    elif not isinstance(auto, bool):
        raise ValueError(f"property {AUTO_HEAL} must be true or false, not {auto!r}")
    period = properties.get(PERIOD)
    if period is None:
        return Settings(auto, DEFAULT_PERIOD)
    try:
        seconds = float(period) if not isinstance(period, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    if seconds <= 0:
        raise ValueError(f"property {PERIOD} must be a number of seconds above 0, "
                         f"not {period!r}")
    return Settings(auto, seconds)


def _stamp(moment: datetime.datetime) -> str:
    # the reports' own format (UTC, with a Z), so a condition reads like a report
    return str(iso(moment))


def _due(memory: t.Mapping[str, str], name: str) -> datetime.datetime | None:
    """When ``name``'s check is next due, as the last pass kept it (None: now)."""
    try:
        return datetime.datetime.fromisoformat(memory[name])
    except (KeyError, TypeError, ValueError):
        return None


@dataclasses.dataclass
class Pass:
    """One watch pass over an assembly."""

    now: datetime.datetime
    settings: Settings
    #: ``laguna watch --period``: replaces the assembly's period
    period: float | None = None
    #: when checks are due again
    dues: list[datetime.datetime] = dataclasses.field(default_factory=list)
    #: whether the pass changed something worth a deployment in the history
    changed: bool = False
    #: instances healed in this pass
    healed: list[str] = dataclasses.field(default_factory=list)

    def next_due(self) -> datetime.datetime:
        seconds = self.period if self.period is not None else self.settings.period
        due = self.now + datetime.timedelta(seconds=seconds)
        self.dues.append(due)
        return due


def watched(root: Node) -> list[Node]:
    """The resource instances whose resource declares an Integrity check."""
    return [n for n in root.walk()
            if not n.is_assembly and INTEGRITY in n.descriptor.lifecycle]


def run_pass(engine: Engine, root: Node, memory: dict[str, str], now: Pass) -> None:
    """Every due check of an Active instance; a failed one breaks the instance,
    which is healed when the assembly asks. ``memory``: instance -> next due."""
    nodes = watched(root)
    names = {n.name for n in nodes}
    for gone in [k for k in memory if k not in names]:
        del memory[gone]     # scaled in, deleted, no longer declaring Integrity
    for node in nodes:
        if engine.state(node) != ACTIVE:
            # Broken waits for its heal; other states are not expected to run
            memory.pop(node.name, None)
            continue
        due = _due(memory, node.name)
        if due is not None and due > now.now:
            now.dues.append(due)
            continue
        memory.pop(node.name, None)
        if not check(engine, node, now):
            if now.settings.auto_heal:
                heal(engine, node, now)
            else:
                engine.reporter.report("warning", f"{node.name} stays {BROKEN}: the "
                                       f"assembly does not ask for it to be healed "
                                       f"({AUTO_HEAL} is not true)", node.name)
        if engine.state(node) == ACTIVE:    # (a Broken one is not checked until healed)
            memory[node.name] = _stamp(now.next_due())


def check(engine: Engine, node: Node, now: Pass) -> bool:
    """One Integrity check of ``node``; whether it passed. A failure moves the
    instance to Broken and is reported with the check's output."""
    engine.bind(node)
    record = engine.record(node)
    try:
        engine.run(node, INTEGRITY)
    except e.TransitionFailed as failed:
        output = "\n".join(failed.output.strip().splitlines()[-OUTPUT_LINES:])
        record["integrity"] = {"time": _stamp(now.now), "message": failed.message,
                               "output": output}
        engine.break_down(node)
        shown = f": {output.splitlines()[-1]}" if output else ""
        engine.reporter.report("error", f"{failed.message}: {node.name} is "
                               f"{BROKEN}{shown}", node.name)
        now.changed = True
        return False
    record.pop("integrity", None)
    return True


def heal(engine: Engine, node: Node, now: Pass) -> None:
    """The heal intent on a Broken instance; a failed heal leaves it Broken, reported."""
    engine.reporter.report("info", f"{node.name}: healing ({AUTO_HEAL})", node.name)
    try:
        engine.heal(node)
    except e.TransitionFailed as failed:
        engine.reporter.report("error", f"heal of {node.name} failed: {failed.message}",
                               node.name)
        if engine.state(node) == BROKEN:    # status shows why it is still Broken
            engine.record(node)["integrity"] = {
                "time": _stamp(now.now), "message": f"heal failed: {failed.message}",
                "output": "\n".join(failed.output.strip().splitlines()[-OUTPUT_LINES:])}
        return
    now.healed.append(node.name)
    engine.reporter.report("info", f"{node.name} healed: {engine.state(node)}", node.name)


def condition(record: t.Mapping[str, t.Any]) -> dict[str, str] | None:
    """What the last failed check found of a Broken instance (``laguna status``);
    None when it is not Broken by a check."""
    found = record.get("integrity")
    if record.get("state") != BROKEN or not isinstance(found, dict):
        return None
    return {"time": str(found.get("time")), "text": str(found.get("message")),
            "output": str(found.get("output") or "")}


class Held:
    """A watch pass's reporter: reports and states wait, and reach the
    environment's history only when the pass changed something (a quiet pass
    writes nothing)."""

    def __init__(self, reporter: Reporter) -> None:
        self._reporter = reporter
        self._waiting: list[t.Callable[[], None]] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self._waiting.append(lambda: self._reporter.report(level, text, object_id))

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        self._waiting.append(lambda: self._reporter.component(object_id, type, name, state))

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        self._waiting.append(lambda: self._reporter.track(object_id, kind, type_name, title,
                                                          unit_count))

    def untrack(self, object_id: str) -> None:
        self._waiting.append(lambda: self._reporter.untrack(object_id))

    def release(self) -> None:
        for call in self._waiting:
            call()
        self._waiting.clear()
