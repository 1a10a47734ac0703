"""Hosts of each cloud: the time and memory to start N of them, and what one
operation on a host costs beyond its script's own run.

    python3 benchmarks/bench_hosts.py [--clouds local,containers,ssh] [--counts 20,100] [--ops 20]

For each cloud and count: one push of a stack of N servers into a fresh state
folder (every host's agent ready when it returns), timed, and the memory the
machine lost meanwhile (MemAvailable before and after: agents, containers,
podman's own processes); then ``--ops`` plans that run ``true`` on the first
host, one after another through its signed agent (the median and the fastest,
in ms: the cost of an operation beyond its script, since ``true`` costs next to
nothing); then the delete, timed. The container cloud needs podman, runc and its
image (``laguna image build``); the goal there is 100 hosts in under 30 s on a
2-core machine. ``ssh`` reaches existing servers: here the three machines the
ssh cloud's tests make (tests/unit/cloud/sshd.py: Debian's sshd in network
namespaces, root needed), so its counts are capped at three; its start is the
agent copied and started over SSH.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
import typing as t
from pathlib import Path

from laguna.agent import AgentClient
from laguna.cloud.base import Cloud, Host

TRUE_PLAN: dict[str, t.Any] = {
    "FormatVersion": "2.0.0", "ID": "bench", "Body": "return run().stdout",
    "Files": {"f": {"Name": "true.sh", "BodyType": "Text", "Body": "true\n"}},
    "Scripts": {"run": {"Type": "Application", "EntryPoint": "f"}}}


def open_cloud(kind: str, state_dir: Path, inventory: Path | None) -> Cloud:
    if kind == "local":
        from laguna.cloud.factory import local_cloud
        return local_cloud(state_dir)
    if kind == "containers":
        from laguna.cloud.containers import open_cloud as containers
        return containers(state_dir)
    if kind == "ssh":
        from laguna.cloud.ssh import open_cloud as ssh
        return ssh(state_dir, inventory, progress=lambda text: None)
    raise SystemExit(f"unknown cloud {kind!r}: local, containers or ssh")


@contextlib.contextmanager
def ssh_machines(folder: Path) -> t.Iterator[tuple[Path, int]]:
    """The ssh cloud's test machines and an inventory of them, removed after."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from unit.cloud import sshd  # type: ignore[import-not-found]  # the tests folder
    made = sshd.machines(folder)
    machines = next(made)
    try:
        yield machines.inventory(folder / "inventory.yaml"), len(machines.servers)
    finally:
        made.close()


def available_kib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def operation_ms(host: Host, count: int) -> list[float]:
    assert host.agent_url is not None and host.agent_secret is not None
    times = []
    with AgentClient(host.agent_url, host.agent_secret) as client:
        for _ in range(count):
            started = time.perf_counter()
            result = client.execute(TRUE_PLAN, 60)
            times.append((time.perf_counter() - started) * 1000)
            if result["ErrorCode"] != 0:
                raise RuntimeError(f"the plan failed on {host.name}: {result}")
    return times


def measure(kind: str, count: int, ops: int, inventory: Path | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="laguna-bench-hosts-") as folder:
        cloud = open_cloud(kind, Path(folder) / ".laguna" / "cloud", inventory)
        template = {"heat_template_version": "2013-05-23", "resources": {
            f"s{number}": {"type": "OS::Nova::Server", "properties": {"name": f"s{number}"}}
            for number in range(count)}}
        before = available_kib()
        started = time.perf_counter()
        try:
            result = cloud.push_stack("bench", template)
            push = time.perf_counter() - started
            used_mib = (before - available_kib()) / 1024
            times = operation_ms(result.hosts[0], ops)
        finally:
            started = time.perf_counter()
            cloud.delete_stack("bench")
            delete = time.perf_counter() - started
    print(f"{kind:<11} {count:>4} hosts: start {push:6.2f} s ({push / count * 1000:6.1f} ms a "
          f"host), {used_mib:7.1f} MiB ({used_mib / count:5.1f} MiB a host), "
          f"operation median {statistics.median(times):6.1f} ms (min {min(times):.1f}), "
          f"delete {delete:6.2f} s")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clouds", default="local,containers,ssh")
    parser.add_argument("--counts", default="20,100")
    parser.add_argument("--ops", type=int, default=20)
    options = parser.parse_args()
    counts = [int(c) for c in options.counts.split(",")]
    for kind in options.clouds.split(","):
        if kind != "ssh":
            for count in counts:
                measure(kind, count, options.ops)
            continue
        with tempfile.TemporaryDirectory(prefix="laguna-bench-machines-") as folder, \
                ssh_machines(Path(folder)) as (inventory, machines):
            for count in sorted({min(count, machines) for count in counts}):
                measure(kind, count, options.ops, inventory)


if __name__ == "__main__":
    main()
