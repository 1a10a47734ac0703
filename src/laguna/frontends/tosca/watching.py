"""Watching a deployed topology: seed 003's "check_running ... will be invoked
with frequency as determined by the period input (a time interval, defaulting
to 1m) whenever the service is expected to be running".

One pass (``laguna watch``, the worker's ``watch`` job) runs the check of every
instance whose check is due (an instance ``started``, or in ``error`` after a
failed check, is expected to run), then the policies (:mod:`.policies`). What
a check finds is kept on the instance as AMP's sensors are:

- ``service.isUp`` (true or false) and ``service.state``: ``running``;
  ``on-fire`` when the check says not running (AMP's ON_FIRE; the instance's
  TOSCA state is then ``error``, the seed's table); ``failed`` when no policy
  heals it, or its policy gave up;
- ``check_running.time``, ``check_running.exit_code`` and
  ``check_running.output`` (the last lines it printed): the last check.

The pass remembers when each check is next due (``Memory``, kept in the
environment's model), and says when the next pass is due: the earliest check,
or a policy waiting for its stabilization delay.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t

from laguna.frontends.tosca import values
from laguna.frontends.tosca.actions import CHECK_RUNNING, EXPECTED_RUNNING
from laguna.frontends.tosca.model import Operation
from laguna.frontends.tosca.runtime import DeployFailed, Instance, Reporter, Runtime, tail

#: seed 003: the period input's default
DEFAULT_PERIOD = 60.0
RUNNING, ON_FIRE, FAILED = "running", "on-fire", "failed"


def iso(moment: datetime.datetime) -> str:
    return moment.isoformat()


def parse_time(text: object) -> datetime.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None


def seconds(value: object, default: float) -> float:
    """A TOSCA time (``"1 s"``, ``"1m"``) or a number of seconds, in seconds."""
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)):
        return float(value)
    found = values.scalar("scalar-unit.time", str(value)) if value is not None else None
    return found if found is not None else default


@dataclasses.dataclass
class Memory:
    """What watching keeps between passes (JSON in the environment's model)."""

    #: instance id -> when its check is next due (ISO time)
    due: dict[str, str] = dataclasses.field(default_factory=dict)
    #: policy name -> its own memory (failures seen, a resize waiting...)
    policies: dict[str, dict[str, t.Any]] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, data: object) -> Memory:
        data = data if isinstance(data, dict) else {}
        return cls(dict(data.get("due") or {}), dict(data.get("policies") or {}))

    def to_json(self) -> dict[str, t.Any]:
        return {"due": dict(self.due), "policies": dict(self.policies)}


@dataclasses.dataclass
class Pass:
    """One watch pass: what it found and did."""

    now: datetime.datetime
    #: replaces every check's own period (``laguna watch --period``)
    period: float | None = None
    #: instances whose check failed in this pass (they were running before)
    failed: list[Instance] = dataclasses.field(default_factory=list)
    #: instances found running again in this pass
    recovered: list[Instance] = dataclasses.field(default_factory=list)
    #: instances checked in this pass
    checked: list[Instance] = dataclasses.field(default_factory=list)
    #: instances a policy took care of in this pass (restarted, replaced)
    healed: set[str] = dataclasses.field(default_factory=set)
    #: (policy, trigger, node) scaled by a trigger in this pass
    scaled: set[tuple[str, str, str]] = dataclasses.field(default_factory=set)
    #: when something is due again (checks, policies waiting)
    dues: list[datetime.datetime] = dataclasses.field(default_factory=list)
    #: whether the pass changed something worth a deployment in the history
    changed: bool = False

    def due_in(self, seconds_from_now: float) -> datetime.datetime:
        due = self.now + datetime.timedelta(seconds=seconds_from_now)
        self.dues.append(due)
        return due


def check_operation(instance: Instance) -> Operation | None:
    """The instance's check_running, when it has a script to run."""
    operation = instance.node.interfaces.get("CheckRunning", {}).get("check_running")
    return operation if operation is not None and operation.primary is not None else None


def period_of(operation: Operation, override: float | None) -> float:
    if override is not None:
        return override
    return seconds(operation.inputs.get("period", "1m"), DEFAULT_PERIOD)


def run_checks(runtime: Runtime, memory: Memory, now: Pass) -> None:
    """Every due check of an instance expected to run."""
    present = {i.id for group in runtime.instances.values() for i in group}
    for gone in [key for key in memory.due if key not in present]:
        del memory.due[gone]    # removed by a resize or a replacement
    for group in runtime.instances.values():
        for instance in list(group):
            operation = check_operation(instance)
            if operation is None or instance.state not in EXPECTED_RUNNING:
                memory.due.pop(instance.id, None)
                continue
            due = parse_time(memory.due.get(instance.id))
            if due is not None and due > now.now:
                now.dues.append(due)
                continue
            check(runtime, instance, operation, now)
            memory.due[instance.id] = iso(now.due_in(period_of(operation, now.period)))


def check(runtime: Runtime, instance: Instance, operation: Operation, now: Pass) -> bool:
    """One check of ``instance``; whether it runs. A change (running -> not, and
    back) is reported and moves its state."""
    log = runtime.logs / f"{instance.id}.{operation.interface}.{operation.name}.log"
    before = log.stat().st_size if log.exists() else 0
    try:
        code, exported = runtime.run_operation(instance, operation, check=False)
    except DeployFailed as failure:     # the check could not run at all
        code, exported = -1, {}
        output = failure.message
    else:
        output = tail(log, before, lines=5)
    running = code == 0 and exported.get("IS_RUNNING", "true").strip().lower() != "false"
    now.checked.append(instance)
    was_up = instance.state == "started" and \
        instance.attributes.get("service.isUp", True) is not False
    runtime.set_attributes(instance, {
        "check_running.time": iso(now.now), "check_running.exit_code": code,
        "check_running.output": output, "service.isUp": running})
    node = instance.node.name
    if running:
        if not was_up:
            runtime.set_state(instance, "started")
            runtime.set_attributes(instance, {"service.state": RUNNING})
            runtime.reporter.report("info", f"node {instance.id}: {CHECK_NAME} passed: "
                                    "running again", node)
            now.recovered.append(instance)
            now.changed = True
        elif instance.attributes.get("service.state") != RUNNING:
            runtime.set_attributes(instance, {"service.state": RUNNING})
        return True
    if was_up:
        why = f"exited with {code}" if code != 0 else "reported IS_RUNNING=false"
        shown = f": {output.strip().splitlines()[-1]}" if output.strip() else ""
        runtime.set_state(instance, "error")
        runtime.set_attributes(instance, {"service.state": ON_FIRE})
        runtime.reporter.report("error", f"node {instance.id}: {CHECK_NAME} {why}: not "
                                f"running (on fire){shown}", node)
        now.failed.append(instance)
        now.changed = True
    return False


CHECK_NAME = "CheckRunning.check_running"


def give_up(runtime: Runtime, instance: Instance, why: str) -> None:
    """``instance`` is failed for good (until a check finds it running again)."""
    runtime.set_attributes(instance, {"service.state": FAILED})
    runtime.reporter.report("error", f"node {instance.id} failed: {why}", instance.node.name)


def unhealed(runtime: Runtime, now: Pass) -> None:
    """What failed in this pass and no policy took care of is failed."""
    for instance in now.failed:
        if instance.id in now.healed or instance.attributes.get("service.state") != ON_FIRE:
            continue
        if any(instance is i for group in runtime.instances.values() for i in group):
            give_up(runtime, instance, "no policy restarts or replaces it")





class Held:
    """The reporter of a watch pass: reports and states are held, and passed on
    only when the pass changed something (a quiet pass, one check every second,
    writes nothing to the environment's history)."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.held: list[t.Callable[[], None]] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self.held.append(lambda: self.reporter.report(level, text, object_id))

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        self.held.append(lambda: self.reporter.component(object_id, type, name, state))

    def release(self) -> None:
        for call in self.held:
            call()
        self.held.clear()


def watched_condition(instances: t.Sequence[Instance]) -> dict[str, str] | None:
    """What watching last found wrong with a node's instances (its time: the latest
    failed check), as ``laguna status`` shows it; None when nothing."""
    wrong = [i for i in instances if i.attributes.get("service.state") in (ON_FIRE, FAILED)]
    if not wrong:
        return None
    texts = []
    for instance in wrong:
        output = str(instance.attributes.get("check_running.output") or "").strip()
        last = output.splitlines()[-1] if output else "no output"
        code = instance.attributes.get("check_running.exit_code")
        why = "reported IS_RUNNING=false" if code == 0 else f"exited with {code}"
        texts.append(f"{instance.id} {instance.attributes['service.state']}: "
                     f"{CHECK_NAME} {why}: {last}")
    return {"time": max(str(i.attributes.get("check_running.time") or "") for i in wrong),
            "text": "; ".join(texts)}
