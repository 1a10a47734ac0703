"""Periodic work of the workers, once per period across all of them.

Every worker runs APScheduler with the same jobs. When a job fires, the
worker first claims the job's current period: a row (job, period number) of
``periodic_runs``, whose primary key lets exactly one insert succeed however
many workers, on however many machines, try at once. Only the winner runs
the job; the others let the period go. A period nobody was alive to claim is
simply missed (the jobs are sweeps, so the next period catches up).

Claims older than a day are pruned by the same mechanism (:data:`PRUNE`).
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import typing as t

import sqlalchemy as sa
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy.exc import IntegrityError

from laguna.deploy.owner import ProcessOwner, current_owner
from laguna.engine.tasks import Clock, owner_text, utcnow
from laguna.store.db import Database
from laguna.store.models import PeriodicRun

log = logging.getLogger(__name__)

#: how long a claim is kept (then pruned)
KEEP_CLAIMS = datetime.timedelta(days=1)


@dataclasses.dataclass(frozen=True)
class Job:
    """Work to run once per ``period`` across every worker sharing the store."""

    name: str
    period: datetime.timedelta
    run: t.Callable[[], None]


def slot_of(period: datetime.timedelta, now: datetime.datetime) -> int:
    """The number of the period ``now`` falls in (periods count from the epoch,
    so every worker numbers them alike whatever its start time)."""
    return int(now.timestamp() // period.total_seconds())


class Periodic:
    """The periodic jobs of one worker process."""

    def __init__(self, database: Database, jobs: t.Sequence[Job], *,
                 owner: ProcessOwner | None = None, clock: Clock = utcnow) -> None:
        self.database = database
        self.jobs = [*jobs, Job("prune-periodic-claims", KEEP_CLAIMS / 24, self.prune)]
        self.owner = owner or current_owner()
        self.clock = clock
        self._scheduler: BackgroundScheduler | None = None

    def claim(self, job: Job, now: datetime.datetime | None = None) -> bool:
        """Whether this worker won ``job``'s current period."""
        now = now or self.clock()
        try:
            with self.database.session() as session:
                session.add(PeriodicRun(job=job.name, slot=slot_of(job.period, now),
                                        claimed_by=owner_text(self.owner), claimed=now))
        except IntegrityError:  # another worker has this period
            return False
        return True

    def tick(self, job: Job) -> bool:
        """Run ``job`` if this worker wins its period; whether it ran."""
        try:
            if not self.claim(job):
                return False
            job.run()
        except Exception:  # one failed run must not stop the schedule
            log.exception("periodic job %s failed", job.name)
        return True

    def prune(self) -> None:
        with self.database.session() as session:
            session.execute(sa.delete(PeriodicRun).where(
                PeriodicRun.claimed < self.clock() - KEEP_CLAIMS))

    def start(self) -> None:
        scheduler = BackgroundScheduler(daemon=True, timezone=datetime.timezone.utc)
        for job in self.jobs:
            # coalesce: a worker that was busy or asleep runs a missed period
            # once, not once per missed period
            scheduler.add_job(self.tick, IntervalTrigger(seconds=job.period.total_seconds()),
                              args=[job], id=job.name, coalesce=True, max_instances=1,
                              next_run_time=self.clock())
        scheduler.start()
        self._scheduler = scheduler

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=True)
            self._scheduler = None
