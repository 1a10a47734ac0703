"""The engine's tasks: records of what was asked and how it ended, and who runs them.

Routes add a ``queued`` :class:`~laguna.store.models.TaskRecord` in their own
transaction (so the work is never lost between the answer and the engine),
then :meth:`TaskQueue.notify` hands it on. Two queues implement it:

- :class:`StoreTaskQueue`, the embedded default: threads of the API's own
  process claim queued tasks with a conditional UPDATE (two threads, or two
  processes on one store, never run one task) and run the handler of their
  kind;
- :class:`~laguna.engine.broker.BrokerQueue`, the distributed mode: the task's
  id travels on RabbitMQ to ``laguna worker`` processes.

Either way :func:`run_claimed` runs a claimed task and records its end.
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
#: the states of a task that has ended: its message, if any comes again, is dropped
ENDED = (DONE, FAILED)

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

    @property
    def resumable(self) -> bool:
        """Whether a task of this kind whose worker died is run again by the
        next worker (a deploy: it resumes as a redeploy does) rather than
        failed (an action, which may not be safe to run twice)."""
        ...


class TaskQueue(t.Protocol):
    #: whether the tasks run in other processes (a route that must answer a
    #: task's result, a static action's, then waits for its record to end)
    remote: bool

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

    remote = False

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
        run_claimed(self.database, self.handlers, task, self.clock)

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
                if owner is None or not self.liveness.alive(owner):
                    session.expunge(record)
                    lost.append(record)
        for record in lost:
            interrupted(self.database, self.handlers.get(record.kind), record, self.clock)
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


def run_claimed(database: Database, handlers: t.Mapping[str, Handler], task: TaskRecord,
                clock: Clock = utcnow) -> None:
    """Run a task claimed by this process with the handler of its kind, and
    record how it ended (a handler's exception is the task's failure)."""
    handler = handlers.get(task.kind)
    result: dict[str, t.Any] | None
    try:
        if handler is None:
            raise LookupError(f"no handler for tasks of kind {task.kind!r}")
        result = handler.run(task.id, task.payload)
        state = DONE
    except Exception as error:  # a handler bug must not kill the worker
        log.exception("task %s (%s) failed", task.id, task.kind)
        result, state = {"error": f"{type(error).__name__}: {error}"}, FAILED
    with database.session() as session:
        record = session.get(TaskRecord, task.id)
        if record is not None:
            record.state, record.result, record.finished = state, result, clock()


def interrupted(database: Database, handler: Handler | None, task: TaskRecord,
                clock: Clock = utcnow) -> None:
    """Fail a task whose worker died, and let its handler leave its environment
    recoverable."""
    with database.session() as session:
        record = session.get(TaskRecord, task.id)
        if record is not None:
            record.state, record.finished = FAILED, clock()
            record.result = {"error": INTERRUPTED}
    if handler is not None:
        try:
            handler.lost(task.id, task.payload)
        except Exception:  # recovery of one task must not stop the others
            log.exception("recovering task %s failed", task.id)


INTERRUPTED = "the engine worker running the task ended before it finished"
