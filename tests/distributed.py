"""The distributed mode on one machine, for the end-to-end tests: API processes
(``laguna serve --broker``) and engine workers (``laguna worker``) over a
private PostgreSQL schema and a private RabbitMQ node, sharing one working
directory (the local cloud's hosts live on this machine)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import sqlalchemy as sa

from laguna.store.db import Database
from laguna.store.models import TaskRecord
from tests.rabbitmq import RabbitMQ
from tests.servers import Server, serve


@dataclasses.dataclass
class Worker:
    number: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def owner_text_prefix(self) -> str:
        """How its task claims begin (laguna.engine.tasks.owner_text)."""
        import socket
        return f"{socket.gethostname()}|{self.pid}|"


@dataclasses.dataclass
class Cluster:
    workdir: Path
    database_url: str
    broker: RabbitMQ
    apis: list[Server]
    workers: list[Worker]
    stack: contextlib.ExitStack

    def laguna(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "laguna.cli", "--workdir",
                               str(self.workdir), *args], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"laguna {' '.join(args)}: {done.stderr}")
        return done.stdout

    def token(self, project: str = "demo", user: str = "alice") -> str:
        output = self.laguna("token", "create", "--db-url", self.database_url,
                             "--project", project, "--user", user)
        return output.strip().splitlines()[-1]

    def start_worker(self, threads: int = 2) -> Worker:
        number = len(self.workers)
        log = self.workdir.parent / f"worker-{number}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "laguna.cli", "--workdir", str(self.workdir), "worker",
                 "--db", self.database_url, "--broker", self.broker.url,
                 "--threads", str(threads)],
                stdout=output, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        worker = Worker(number, process, log)
        self.workers.append(worker)
        return worker

    def kill_worker(self, worker: Worker) -> None:
        worker.process.send_signal(signal.SIGKILL)
        worker.process.wait(30)

    def tasks(self) -> list[TaskRecord]:
        database = Database(self.database_url)
        try:
            with database.session() as session:
                records = list(session.scalars(sa.select(TaskRecord)
                                               .order_by(TaskRecord.created)))
                for record in records:
                    session.expunge(record)
                return records
        finally:
            database.dispose()

    def stop(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                worker.process.terminate()
        for worker in self.workers:
            try:
                worker.process.wait(60)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
        self.stack.close()
        # a failed test leaves its deployments' hosts: they end with the test
        from laguna.cloud.local import processes
        from laguna.cloud.local.driver import LocalCloud
        cloud = self.workdir / ".laguna" / "cloud"
        if cloud.is_dir():
            for pid in processes.marked(LocalCloud(cloud).id):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def cluster(workdir: Path, database_url: str, broker: RabbitMQ, *, apis: int = 2,
            workers: int = 3) -> t.Iterator[Cluster]:
    stack = contextlib.ExitStack()
    workdir.mkdir(parents=True, exist_ok=True)
    made = Cluster(workdir, database_url, broker, [], [], stack)
    try:
        for _ in range(apis):
            made.apis.append(stack.enter_context(serve(
                workdir, "--db-url", database_url, "--broker", broker.url)))
        for _ in range(workers):
            made.start_worker()
        yield made
    finally:
        made.stop()


def wait_for(check: t.Callable[[], t.Any], seconds: float = 240, every: float = 0.5) -> t.Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {seconds} s waiting for {check}")
