"""What a worker does with a message: a task runs once, one at a time per
environment; a task whose worker died resumes (a deploy) or fails (an action)."""

from __future__ import annotations

import threading
import time
import typing as t

from laguna.deploy.owner import ProcessOwner
from laguna.engine.tasks import DONE, FAILED, INTERRUPTED, QUEUED, RUNNING
from laguna.engine.worker import TaskRunner
from laguna.store.db import Database
from laguna.store.models import TaskRecord

DEAD = ProcessOwner("elsewhere", 4242, "1")


class Recording:
    """A handler that records its runs and how many ran at once."""

    def __init__(self, resumable: bool = True, seconds: float = 0.0) -> None:
        self.resumable = resumable
        self.seconds = seconds
        self.runs: list[str] = []
        self.lost_tasks: list[str] = []
        self.running = 0
        self.most = 0
        self._guard = threading.Lock()

    def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
        with self._guard:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.seconds)
        with self._guard:
            self.running -= 1
            self.runs.append(task_id)
        return {"ran": payload.get("n")}

    def lost(self, task_id: str, payload: t.Mapping[str, t.Any]) -> None:
        self.lost_tasks.append(task_id)


def add_task(database: Database, kind: str = "deploy", environment: str | None = "env-1",
             state: str = QUEUED, claimed_by: str | None = None, n: int = 0) -> str:
    with database.session() as session:
        task = TaskRecord(kind=kind, project_id="p", environment_id=environment,
                          payload={"n": n}, state=state, claimed_by=claimed_by)
        session.add(task)
        session.flush()
        return task.id


def task(database: Database, task_id: str) -> TaskRecord:
    with database.session() as session:
        record = session.get(TaskRecord, task_id)
        assert record is not None
        session.expunge(record)
        return record


def test_a_queued_task_runs_and_its_end_is_recorded(pg: Database) -> None:
    handler = Recording()
    task_id = add_task(pg, n=7)
    TaskRunner(pg, {"deploy": handler}, owner=ProcessOwner("here", 1, "9"))(task_id)
    record = task(pg, task_id)
    assert (record.state, record.result, record.claimed_by) == (DONE, {"ran": 7}, "here|1|9")
    assert handler.runs == [task_id]


def test_a_task_that_ended_is_not_run_again(pg: Database) -> None:
    handler = Recording()
    runner = TaskRunner(pg, {"deploy": handler})
    task_id = add_task(pg)
    runner(task_id)
    runner(task_id)   # the message came twice
    assert handler.runs == [task_id]
    runner("no-such-task")
    assert handler.runs == [task_id]


def test_a_deploy_left_running_by_a_dead_worker_runs_again(pg: Database) -> None:
    handler = Recording(resumable=True)
    task_id = add_task(pg, state=RUNNING, claimed_by="elsewhere|4242|1", n=3)
    TaskRunner(pg, {"deploy": handler})(task_id)
    assert handler.runs == [task_id]
    assert handler.lost_tasks == []
    assert (task(pg, task_id).state, task(pg, task_id).result) == (DONE, {"ran": 3})


def test_an_action_left_running_by_a_dead_worker_fails_as_interrupted(pg: Database) -> None:
    handler = Recording(resumable=False)
    task_id = add_task(pg, kind="action", state=RUNNING, claimed_by="elsewhere|4242|1")
    TaskRunner(pg, {"action": handler})(task_id)
    assert handler.runs == []
    assert handler.lost_tasks == [task_id]
    record = task(pg, task_id)
    assert (record.state, record.result) == (FAILED, {"error": INTERRUPTED})


def test_one_environment_is_worked_by_one_runner_at_a_time(pg: Database) -> None:
    handler = Recording(seconds=0.3)
    same = [add_task(pg, environment="env-1", n=n) for n in range(3)]
    other = add_task(pg, environment="env-2")
    runners = [TaskRunner(pg, {"deploy": handler}) for _ in range(4)]
    threads = [threading.Thread(target=runner, args=(task_id,))
               for runner, task_id in zip(runners, [*same, other])]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(handler.runs) == sorted([*same, other])
    # env-2 ran beside env-1, never two of env-1 together
    assert handler.most == 2
    assert time.monotonic() - began >= 0.9


def test_a_handler_that_raises_fails_its_task(pg: Database) -> None:
    class Broken(Recording):
        def run(self, task_id: str, payload: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
            raise RuntimeError("boom")

    task_id = add_task(pg)
    TaskRunner(pg, {"deploy": Broken()})(task_id)
    record = task(pg, task_id)
    assert (record.state, record.result) == (FAILED, {"error": "RuntimeError: boom"})
