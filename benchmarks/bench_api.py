"""The API under load: requests per second and p50/p99 latency on loopback.

One command: makes a store (a scratch SQLite file; a private schema of the
PostgreSQL database of ``--db URL`` or ``LAGUNA_TEST_PG_URL``), fills it with
``--environments`` environments and ``--packages`` public packages, starts
``laguna serve --processes N`` on it, and loads each kind of request for
``--seconds`` with ``--clients`` connections: list environments, show an
environment, list packages (the catalog's first page of 100, as
python-muranoclient asks with ``limit``). The load generator is Debian's
``wrk`` (C, two threads): a Python one would take the CPU the server needs.
Everything it started is stopped at the end, the schema dropped::

    python3 benchmarks/bench_api.py [--processes 1,2,3] [--db URL] [--ceiling]

``--ceiling`` also loads a bare uvicorn hello-world (``hello_asgi.py``) with
the same processes, loop, parser and load generator: what this machine can
answer at most.

``--in-process`` loads nothing over HTTP: it calls the API's ASGI application
in a loop in this process and prints the CPU time of one request of each kind,
answered from memory (the store unchanged) and from the store (the answers
kept in memory turned off). CPU time, not wall time: it is steady on a busy
machine, where the load figures are not.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import typing as t
import uuid
import zipfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.servers import free_port  # noqa: E402 - the tests' helper

from laguna.config import sqlite_url  # noqa: E402
from laguna.deploy.workdir import Workdir, open_store  # noqa: E402
from laguna.packages.package import load_archive  # noqa: E402
from laguna.store.identity import issue_token  # noqa: E402
from laguna.store.models import EnvironmentRecord  # noqa: E402
from laguna.store.packages import import_package  # noqa: E402

WRK = shutil.which("wrk") or "/usr/bin/wrk"
#: prints the figures wrk measured on one line, in microseconds (wrk's unit)
WRK_SCRIPT = """
wrk.headers["X-Auth-Token"] = "{token}"
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d %d %d\\n", summary.requests,
    summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
"""


def package_zip(index: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.yaml", (
            f"Format: 1.4\nType: Application\nFullName: org.bench.App{index:04d}\n"
            f"Name: Bench app {index}\nVersion: 1.0.{index % 7}\nTags: [bench]\n"
            f"Description: Benchmark application number {index}\n"
            f"Classes:\n  org.bench.App{index:04d}: App.yaml\n"))
        archive.writestr("Classes/App.yaml", (
            f"Namespaces: {{=: org.bench, std: io.murano}}\nName: App{index:04d}\n"
            "Extends: std:Application\nMethods:\n  deploy:\n    Body: []\n"))
    return buffer.getvalue()


def populate(url: str, packages: int, environments: int) -> tuple[str, str]:
    """Fill the store; the token of project ``bench`` and one environment's id."""
    database = open_store(url)
    now = datetime.datetime.now(datetime.timezone.utc)
    with database.session() as session:
        token = issue_token(session, "bench", "bench", False, now, datetime.timedelta(hours=2))
        for index in range(packages):
            record = import_package(session, load_archive(package_zip(index),
                                                          origin=f"bench {index}"))
            record.owner_id, record.is_public = "bench", True
        first = ""
        for index in range(environments):
            record = EnvironmentRecord(project_id="bench", name=f"env-{index:03d}",
                                       status="ready", version=0, outputs={}, components={},
                                       created=now, updated=now, description={
                                           "Objects": {"?": {"id": f"o{index}",
                                                             "type": "io.murano.Environment"},
                                                       "name": f"env-{index:03d}",
                                                       "services": []}})
            session.add(record)
            session.flush()
            first = first or record.id
    database.dispose()
    return token, first


@contextlib.contextmanager
def postgresql_schema(url: str) -> t.Iterator[str]:
    """A private schema of the database at ``url`` (dropped at the end): its URL."""
    import sqlalchemy as sa

    schema = f"laguna_bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield sa.make_url(url).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def tree_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) of ``pid`` and its live descendants so far."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as children:
            for child in children.read().split():
                total += tree_cpu_seconds(int(child))
    except FileNotFoundError:
        pass   # ended meanwhile
    return total


@contextlib.contextmanager
def running(command: list[str], probe: str) -> t.Iterator[int]:
    """``command`` running until the block ends, once ``probe`` answers: its pid."""
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(probe, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"{command[:6]} did not start: "
                                       f"{server.stderr.read() if server.stderr else ''!r}")
            time.sleep(0.2)
        yield server.pid
    finally:
        # the supervisor stops its children on SIGTERM; the group, in case it could not
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, 9)   # no child outlives the benchmark


@dataclasses.dataclass(frozen=True)
class Figures:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    #: the server's CPU time (every process) per request answered
    cpu_ms: float = 0.0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def load(url: str, token: str, clients: int, seconds: int, server: int) -> Figures:
    """wrk on ``url`` with ``clients`` connections for ``seconds``; ``server``: the
    pid whose process tree's CPU time is counted."""
    cpu = tree_cpu_seconds(server)
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(WRK_SCRIPT.format(token=token))
        script.flush()
        done = subprocess.run([WRK, "-t2", f"-c{clients}", f"-d{seconds}s", "--latency",
                               "-s", script.name, url], capture_output=True, text=True,
                              check=True)
    line = next(row for row in done.stdout.splitlines() if row.startswith("RESULT "))
    requests, duration, p50, p99, *errors = (int(value) for value in line.split()[1:])
    spent = tree_cpu_seconds(server) - cpu
    return Figures(requests, duration / 1e6, p50 / 1000, p99 / 1000, sum(errors),
                   1000 * spent / max(requests, 1))


def report(label: str, figures: Figures, processes: int) -> None:
    print(f"{label:<20} {figures.rate:8.1f} req/s   p50 {figures.p50_ms:7.1f} ms   "
          f"p99 {figures.p99_ms:7.1f} ms   errors {figures.errors}   processes {processes}   "
          f"server CPU {figures.cpu_ms:.2f} ms/request", flush=True)


def in_process(url: str, scratch: Path, token: str, environment_id: str) -> None:
    """CPU per request of each hot read, called straight on the ASGI app."""
    import asyncio

    from laguna.api.app import create_app
    from laguna.api.settings import ApiSettings

    app = create_app(ApiSettings(workdir=scratch, database_url=url, workers=0))
    state = app.state.laguna

    async def call(path: str, query: bytes) -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "query_string": query, "root_path": "", "state": {},
                 "headers": [(b"host", b"bench"), (b"x-auth-token", token.encode())],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
        status: list[int] = []

        async def receive() -> dict[str, t.Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: t.MutableMapping[str, t.Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"GET {path}: {status}")

    async def measure() -> None:
        async with app.router.lifespan_context(app):
            for kept in (True, False):
                state.freshness.enabled = kept
                for label, path, query, count in (
                        ("list environments", "/v1/environments", b"", 200),
                        ("show environment", f"/v1/environments/{environment_id}", b"", 2000),
                        ("list packages", "/v1/catalog/packages", b"limit=100", 1000)):
                    for _ in range(20):
                        await call(path, query)
                    began = time.process_time()
                    for _ in range(count):
                        await call(path, query)
                    cpu = (time.process_time() - began) / count * 1000
                    where = "from memory" if kept else "from the store"
                    print(f"{label:<20} {where:<15} {cpu:6.3f} ms of CPU a request "
                          f"({count} requests)", flush=True)

    asyncio.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--processes", default="2",
                        help="server processes; a comma list runs each in turn (1,2,3)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=15, help="of load per kind")
    parser.add_argument("--packages", type=int, default=1000)
    parser.add_argument("--environments", type=int, default=200)
    parser.add_argument("--db", metavar="URL", default=os.environ.get("LAGUNA_TEST_PG_URL"),
                        help="a PostgreSQL database to work in (a private schema); "
                             "default LAGUNA_TEST_PG_URL, else a scratch SQLite file")
    parser.add_argument("--ceiling", action="store_true",
                        help="also load a bare uvicorn hello-world (the machine's limit)")
    parser.add_argument("--in-process", action="store_true",
                        help="no HTTP load: CPU per request, calling the ASGI app in process")
    args = parser.parse_args()
    counts = [int(value) for value in args.processes.split(",")]
    with contextlib.ExitStack() as stack:
        scratch = Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="laguna-bench-api-")))
        if args.db:
            url = stack.enter_context(postgresql_schema(args.db))
        else:
            Workdir(scratch).prepare_store()
            url = Workdir(scratch).url
        began = time.monotonic()
        token, environment_id = populate(url, args.packages, args.environments)
        kind = "PostgreSQL" if args.db else "SQLite"
        load_figures = "in process" if args.in_process else \
            f"{args.clients} clients, {args.seconds} s per kind"
        print(f"{kind} store: {args.packages} packages, {args.environments} environments "
              f"(filled in {time.monotonic() - began:.1f} s); {load_figures}; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)
        if args.in_process:
            in_process(url, scratch, token, environment_id)
            return
        for processes in counts:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            command = [sys.executable, "-m", "laguna.cli", "--workdir", str(scratch), "serve",
                       "--port", str(port), "--db-url", url, "--processes", str(processes)]
            with running(command, base + "/") as server:
                for label, path in (("list environments", "/v1/environments"),
                                    ("show environment", f"/v1/environments/{environment_id}"),
                                    ("list packages", "/v1/catalog/packages?limit=100")):
                    report(label, load(base + path, token, args.clients, args.seconds,
                                       server), processes)
            print(f"  load average after: {os.getloadavg()[0]:.2f}", flush=True)
            if args.ceiling:
                port = free_port()
                command = [sys.executable, "-m", "uvicorn", "--app-dir",
                           str(Path(__file__).parent), "--port", str(port), "--workers",
                           str(processes), "--loop", "uvloop", "--http", "httptools",
                           "--log-level", "warning", "hello_asgi:app"]
                with running(command, f"http://127.0.0.1:{port}/") as server:
                    report("hello world", load(f"http://127.0.0.1:{port}/", token,
                                               args.clients, args.seconds, server), processes)


if __name__ == "__main__":
    main()
