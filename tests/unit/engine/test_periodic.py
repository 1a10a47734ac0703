"""Periodic work: once per period across every worker sharing the store."""

from __future__ import annotations

import datetime
import threading

import sqlalchemy as sa

from laguna.deploy.owner import ProcessOwner
from laguna.engine.periodic import KEEP_CLAIMS, Job, Periodic, slot_of
from laguna.store.db import Database
from laguna.store.models import PeriodicRun

NOW = datetime.datetime(2026, 11, 27, 12, 0, 30, tzinfo=datetime.timezone.utc)
MINUTE = datetime.timedelta(minutes=1)


def workers(database: Database, job: Job, count: int) -> list[Periodic]:
    return [Periodic(database, [job], owner=ProcessOwner(f"host{n}", n, "1"),
                     clock=lambda: NOW) for n in range(count)]


def test_periods_are_numbered_from_the_epoch() -> None:
    assert slot_of(MINUTE, NOW) == int(NOW.timestamp()) // 60
    assert slot_of(MINUTE, NOW + datetime.timedelta(seconds=29)) == slot_of(MINUTE, NOW)
    assert slot_of(MINUTE, NOW + datetime.timedelta(seconds=30)) == slot_of(MINUTE, NOW) + 1


def test_of_many_workers_one_runs_a_period(pg: Database) -> None:
    runs: list[int] = []
    job = Job("sweep", MINUTE, lambda: runs.append(1))
    periodics = workers(pg, job, 5)
    threads = [threading.Thread(target=periodic.tick, args=(job,)) for periodic in periodics]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert runs == [1]
    with pg.session() as session:
        [claim] = session.scalars(sa.select(PeriodicRun))
        assert (claim.job, claim.slot) == ("sweep", slot_of(MINUTE, NOW))
    # the next period is a new claim
    later = NOW + MINUTE
    assert periodics[3].claim(job, later)
    assert not periodics[1].claim(job, later)


def test_a_job_that_raises_does_not_stop_the_worker(pg: Database) -> None:
    def broken() -> None:
        raise RuntimeError("boom")

    job = Job("broken", MINUTE, broken)
    [periodic] = workers(pg, job, 1)
    assert periodic.tick(job) is True


def test_old_claims_are_pruned(pg: Database) -> None:
    job = Job("sweep", MINUTE, lambda: None)
    [periodic] = workers(pg, job, 1)
    assert periodic.claim(job, NOW - KEEP_CLAIMS - MINUTE)
    assert periodic.claim(job, NOW)
    periodic.prune()
    with pg.session() as session:
        assert [c.slot for c in session.scalars(sa.select(PeriodicRun))] == \
            [slot_of(MINUTE, NOW)]


def test_the_scheduler_runs_each_job_when_started(pg: Database) -> None:
    ran = threading.Event()
    job = Job("now", datetime.timedelta(hours=1), ran.set)
    periodic = Periodic(pg, [job])
    periodic.start()
    try:
        assert ran.wait(10)
    finally:
        periodic.stop()
