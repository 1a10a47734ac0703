"""``laguna worker``: a process that runs the engine's tasks from RabbitMQ.

Each message names a task record. :class:`TaskRunner` runs it at most once
at a time per environment and only if it has not ended:

1. a task that has ended (done or failed) is dropped: the message was a
   duplicate;
2. the environment's lock is taken (:mod:`laguna.engine.locks`), waiting while
   another worker runs that environment;
3. read again under the lock: a task left ``running`` belongs to a worker that
   died (a live one would hold the lock). A resumable task (a deploy) runs
   again, and the deployment layer recovers the dead run first, as a redeploy
   after an interruption does; any other (an action) fails as interrupted;
4. the handler runs and the task's end is recorded; only then does the
   message's handler return and Dramatiq acknowledge it.

Periodic work runs beside it (:mod:`laguna.engine.periodic`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import signal
import threading
import typing as t
from pathlib import Path

import dramatiq

from laguna.deploy.owner import ProcessOwner, current_owner
from laguna.engine.broker import ACTOR, QUEUE, open_broker
from laguna.engine.locks import HeldLock, environment_lock
from laguna.engine.tasks import (
    ENDED,
    RUNNING,
    Clock,
    Handler,
    interrupted,
    owner_text,
    run_claimed,
    utcnow,
)
from laguna.store.db import Database
from laguna.store.models import TaskRecord

log = logging.getLogger(__name__)


class TaskRunner:
    """Runs the task a message names (see the module's steps)."""

    def __init__(self, database: Database, handlers: t.Mapping[str, Handler], *,
                 owner: ProcessOwner | None = None, clock: Clock = utcnow) -> None:
        self.database = database
        self.handlers = handlers
        self.owner = owner or current_owner()
        self.clock = clock

    def __call__(self, task_id: str) -> None:
        task = self._load(task_id)
        if task is None or task.state in ENDED:
            return
        lock = environment_lock(self.database, task.environment_id) \
            if task.environment_id is not None else contextlib.nullcontext()
        with lock:
            task = self._load(task_id)
            if task is None or task.state in ENDED:
                return
            handler = self.handlers.get(task.kind)
            if task.state == RUNNING:
                if handler is None or not handler.resumable:
                    log.warning("task %s (%s): its worker (%s) ended before it finished; "
                                "failed as interrupted", task.id, task.kind, task.claimed_by)
                    interrupted(self.database, handler, task, self.clock)
                    return
                log.warning("task %s (%s): its worker (%s) ended before it finished; "
                            "resumed here", task.id, task.kind, task.claimed_by)
            self._claim(task)
            run_claimed(self.database, self.handlers, task, self.clock)

    def _load(self, task_id: str) -> TaskRecord | None:
        with self.database.session() as session:
            task = session.get(TaskRecord, task_id)
            if task is None:
                log.warning("a message named task %s, which the store does not hold", task_id)
                return None
            session.expunge(task)
            return task

    def _claim(self, task: TaskRecord) -> None:
        with self.database.session() as session:
            record = session.get(TaskRecord, task.id)
            if record is not None:
                record.state, record.claimed_by = RUNNING, owner_text(self.owner)
                record.started = self.clock()


@dataclasses.dataclass(frozen=True)
class WorkerSettings:
    #: the working directory: each environment's choice of cloud, the local cloud's state
    workdir: Path
    #: the shared store (PostgreSQL: it holds each environment's lock) and RabbitMQ
    database_url: str
    broker_url: str
    #: tasks this process runs at once
    threads: int = 4
    #: whether this worker takes part in the periodic work
    periodic: bool = True


def serve_worker(settings: WorkerSettings, stop: threading.Event | None = None) -> None:
    """Run tasks until SIGTERM or SIGINT (or ``stop`` is set): the running ones
    are finished first; their messages are acknowledged as each ends."""
    from laguna.deploy.workdir import open_store
    from laguna.engine.handlers import default_wiring, engine_handlers
    from laguna.engine.housekeeping import housekeeping_jobs
    from laguna.engine.periodic import Periodic

    database = open_store(settings.database_url, pool_size=settings.threads + 4,
                          max_overflow=settings.threads)
    handlers = engine_handlers(settings.workdir, database, default_wiring(), HeldLock())
    broker = open_broker(settings.broker_url)
    dramatiq.Actor(TaskRunner(database, handlers), broker=broker, actor_name=ACTOR,
                   queue_name=QUEUE, priority=0, options={})
    worker = dramatiq.Worker(broker, worker_threads=settings.threads, worker_timeout=500)
    # as many messages on hand as threads to run them: a message waiting
    # behind a busy thread here could run at once on an idle worker
    worker.queue_prefetch = settings.threads
    periodic = Periodic(database, housekeeping_jobs(database, broker)) \
        if settings.periodic else None
    stop = stop or threading.Event()
    previous = {number: signal.signal(number, lambda *_: stop.set())
                for number in (signal.SIGTERM, signal.SIGINT)} \
        if threading.current_thread() is threading.main_thread() else {}
    worker.start()
    if periodic is not None:
        periodic.start()
    log.warning("laguna worker: %d threads on queue %s", settings.threads, QUEUE)
    try:
        stop.wait()
    finally:
        if periodic is not None:
            periodic.stop()
        worker.stop()
        broker.close()
        database.dispose()
        for number, handler in previous.items():
            signal.signal(number, handler)
