"""The engine's task queue: a table of the store, worked by threads of this process.

Routes add a ``queued`` :class:`~laguna.store.models.TaskRecord` in their own
transaction (so the work is never lost between the answer and the engine),
then :meth:`TaskQueue.notify` wakes a worker. A worker claims a task with a
conditional UPDATE, so two workers (or two processes on one store) never run
one task, and runs the handler of its kind.

:class:`TaskQueue` is the interface a distributed engine (Dramatiq over
RabbitMQ, say) implements to take over: ``notify`` would send the task's id
to the broker, and the broker's workers would call :meth:`StoreTaskQueue.run`.
"""

from __future__ import annotations

import datetime
import logging
import threading
import typing as t

import sqlalchemy as sa

from laguna.deploy.owner import Liveness, ProcessLiveness, ProcessOwner, current_owner
from laguna.store.db import Database
from laguna.store.models import TaskRecord

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"

Clock = t.Callable[[], datetime.datetime]


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class Handler(t.Protocol):
    """Runs one kind of task; its return value becomes the task's result."""

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        ...

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        """The worker running the task died: leave what it worked on recoverable."""
        ...


class TaskQueue(t.Protocol):
    def notify(self, task_id: str) -> None:
        """Task ``task_id`` was queued (its record committed): have it run."""
        ...

    def start(self) -> None:
        ...

    def stop(self) -> None:
        ...


def owner_text(owner: ProcessOwner) -> str:
    return f"{owner.host}|{owner.pid}|{owner.started}"


def owner_of(text: str) -> ProcessOwner | None:
    host, _, rest = text.partition("|")
    pid, _, started = rest.partition("|")
    return ProcessOwner(host, int(pid), started) if pid.isdigit() else None


class StoreTaskQueue:
    """Worker threads of this process over the store's ``tasks`` table."""

    def __init__(self, database: Database, handlers: t.Mapping[str, Handler], *,
                 workers: int = 2, poll: float = 1.0, clock: Clock = utcnow,
                 owner: ProcessOwner | None = None, liveness: Liveness | None = None) -> None:
        self.database = database
        self.handlers = dict(handlers)
        self.workers = workers
        self.poll = poll
        self.clock = clock
        self.owner = owner or current_owner()
        self.liveness = liveness or ProcessLiveness()
        self._wake = threading.Condition()
        self._pending = 0
        self._stopping = False
        self._threads: list[threading.Thread] = []

    # -- the queue's interface ------------------------------------------------------
    def notify(self, task_id: str) -> None:
        with self._wake:
            self._pending += 1
            self._wake.notify()

    def start(self) -> None:
        self.recover()
        self._stopping = False
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"laguna-engine-{number}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        """Let the running tasks finish (up to ``timeout``), then return."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    # -- claiming and running ---------------------------------------------------------
    def claim(self) -> TaskRecord | None:
        """The oldest queued task, now ours; None when none is queued."""
        while True:
            with self.database.session() as session:
                task_id = session.scalar(
                    sa.select(TaskRecord.id).where(TaskRecord.state == QUEUED)
                    .order_by(TaskRecord.created, TaskRecord.id).limit(1))
                if task_id is None:
                    return None
                result = session.execute(
                    sa.update(TaskRecord)
                    .where(TaskRecord.id == task_id, TaskRecord.state == QUEUED)
                    .values(state=RUNNING, claimed_by=owner_text(self.owner),
                            started=self.clock())
                    .execution_options(synchronize_session=False))
                if t.cast(sa.CursorResult[t.Any], result).rowcount == 1:
                    return session.get(TaskRecord, task_id, populate_existing=True)
            # another worker took it first: look again

    def run(self, task: TaskRecord) -> None:
        """Run a claimed task and record how it ended."""
        handler = self.handlers.get(task.kind)
        result: dict[str, t.Any] | None
        try:
            if handler is None:
                raise LookupError(f"no handler for tasks of kind {task.kind!r}")
            result = handler.run(task.id, task.payload)
            state = DONE
        except Exception as error:  # a handler bug must not kill the worker
            log.exception("task %s (%s) failed", task.id, task.kind)
            result, state = {"error": f"{type(error).__name__}: {error}"}, FAILED
        with self.database.session() as session:
            record = session.get(TaskRecord, task.id)
            if record is not None:
                record.state, record.result, record.finished = state, result, self.clock()

    def run_pending(self) -> int:
        """Run queued tasks in this thread until none is left; how many ran (tests)."""
        count = 0
        while (task := self.claim()) is not None:
            self.run(task)
            count += 1
        return count

    def recover(self) -> list[str]:
        """Fail the running tasks whose worker process died; their ids."""
        lost = []
        with self.database.session() as session:
            for record in session.scalars(sa.select(TaskRecord).where(
                    TaskRecord.state == RUNNING)):
                owner = owner_of(record.claimed_by or "")
                if owner is not None and self.liveness.alive(owner):
                    continue
                record.state, record.finished = FAILED, self.clock()
                record.result = {"error": "the engine worker running the task ended "
                                          "before it finished"}
                lost.append(record)
        for record in lost:
            handler = self.handlers.get(record.kind)
            if handler is not None:
                try:
                    handler.lost(record.id, record.payload)
                except Exception:  # recovery of one task must not stop the others
                    log.exception("recovering task %s failed", record.id)
        return [record.id for record in lost]

    def _work(self) -> None:
        while True:
            with self._wake:
                if self._stopping:
                    return
            try:
                task = self.claim()
            except Exception:  # the store may be briefly unreachable: try again later
                log.exception("claiming a task failed")
                task = None
            if task is not None:
                self.run(task)
                continue
            with self._wake:
                if self._stopping:
                    return
                if self._pending == 0:
                    self._wake.wait(self.poll)
                self._pending = max(0, self._pending - 1)
