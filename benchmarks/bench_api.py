"""The API under load: requests per second and p50/p99 latency on loopback.

Starts ``laguna serve`` (SQLite store of a scratch working directory) with
``--environments`` environments and ``--packages`` packages in its catalog,
then ``--clients`` concurrent clients (httpx, asyncio) send ``--requests``
requests each to: list environments, show an environment, and list packages
(the catalog's first page, as the client asks it). One command::

    python3 benchmarks/bench_api.py [--clients 50] [--requests 40]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.compat.conftest import free_port  # noqa: E402 - the tests' helper

from laguna.deploy.workdir import Workdir  # noqa: E402
from laguna.packages.package import load_archive  # noqa: E402
from laguna.store.identity import issue_token  # noqa: E402
from laguna.store.models import EnvironmentRecord  # noqa: E402
from laguna.store.packages import import_package  # noqa: E402


def package_zip(index: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.yaml", (
            f"Format: 1.4\nType: Application\nFullName: org.bench.App{index:04d}\n"
            f"Name: Bench app {index}\nVersion: 1.0.{index % 7}\nTags: [bench]\n"
            f"Classes:\n  org.bench.App{index:04d}: App.yaml\n"))
        archive.writestr("Classes/App.yaml", (
            f"Namespaces: {{=: org.bench, std: io.murano}}\nName: App{index:04d}\n"
            "Extends: std:Application\nMethods:\n  deploy:\n    Body: []\n"))
    return buffer.getvalue()


def populate(workdir: Path, packages: int, environments: int) -> tuple[str, str]:
    import datetime
    database = Workdir(workdir).open_store()
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


async def load(url: str, token: str, clients: int, requests: int
               ) -> tuple[list[float], float, int]:
    latencies: list[float] = []
    failures = 0
    headers = {"X-Auth-Token": token, "Content-Type": "application/json"}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(headers=headers, limits=limits, timeout=60) as client:
        async def one_client() -> None:
            nonlocal failures
            for _ in range(requests):
                began = time.perf_counter()
                try:
                    response = await client.get(url)
                except httpx.TransportError:
                    # a connection the server dropped under load: counted, not timed
                    failures += 1
                    continue
                latencies.append(time.perf_counter() - began)
                if response.status_code != 200:
                    raise RuntimeError(f"{url}: {response.status_code} {response.text[:200]}")
        began = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(clients)))
        return latencies, time.perf_counter() - began, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=40, help="per client, per route")
    parser.add_argument("--packages", type=int, default=1000)
    parser.add_argument("--environments", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="laguna-bench-api-") as scratch:
        workdir = Path(scratch)
        token, environment_id = populate(workdir, args.packages, args.environments)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "laguna.cli", "--workdir", scratch,
                                   "serve", "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(base + "/", timeout=1).status_code == 300:
                        break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise
                time.sleep(0.2)
            print(f"{args.clients} clients x {args.requests} requests; {args.packages} "
                  f"packages, {args.environments} environments")
            for label, path in (("list environments", "/v1/environments"),
                                ("show environment", f"/v1/environments/{environment_id}"),
                                ("list packages", "/v1/catalog/packages")):
                latencies, seconds, failures = asyncio.run(load(base + path, token, args.clients,
                                                      args.requests))
                latencies.sort()
                p50 = statistics.median(latencies) * 1000
                p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
                print(f"{label:<20} {len(latencies) / seconds:8.1f} req/s   p50 {p50:7.1f} ms"
                      f"   p99 {p99:7.1f} ms   dropped {failures}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
