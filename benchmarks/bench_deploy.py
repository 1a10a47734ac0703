"""Deploy benchmark: an environment of N instances, one tiny script each.

Builds an object model of ``--instances`` applications of the fixture package
``benchmarks/packages/echo`` (each creates a LinuxMuranoInstance, then sends
its agent one plan whose script is ``echo ok``) and deploys it on the local
cloud in a temporary working directory, through the deployment service the
CLI uses (``Service`` with the CLI's default wiring: store, reports, MuranoPL
front end, local cloud, ``AgentClient``). Then undeploys it and checks that
no process, address or host folder is left.

What is measured, per run:

- ``total``: the wall time of ``Service.deploy``;
- ``scripts``: the time the engine waited for agents' answers, i.e. every
  ``execute`` of the agent transport (HTTP exchange, the agent's handling of
  the plan, the shell and its script); the agent is another process, so all
  of it is outside the engine;
- ``hosts``: the local cloud starting the hosts' agents and waiting for
  their ready files (``_Realm.settle``): starting N Python processes is the
  cloud's cost, not the engine's;
- ``waiting``: the time during which at least one of those waits was under
  way: the applications deploy at once (as the core Environment's pselect
  does), so scripts and hosts of several overlap, and the engine works on
  some while others wait (``scripts`` and ``hosts`` add up each call);
- ``overhead``: (total - waiting) / N, per instance the time the deploy
  waited for nothing but the engine: MuranoPL, stack templates and the cloud
  driver's bookkeeping, the store and its reports, when no agent or host
  start was under way. (With applications deployed one by one this was
  (total - scripts - hosts) / N.);
- ``cpu``: the CPU time of this process during the deploy, per instance
  (the engine's, plus the cloud's forks; agents and scripts are other
  processes): steadier than wall time on a busy machine.

Then the same model as a dry run (recording cloud and agents: nothing
starts), whose time per instance is the engine's alone.

    python3 benchmarks/bench_deploy.py [--instances 50] [--runs 3]

Figures before and after the work of issue 10, and where the time goes:
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import typing as t
import uuid
from pathlib import Path

from laguna import process
from laguna.cli.workdirs import default_wiring
from laguna.cloud.local import driver, processes
from laguna.deploy.context import Resources
from laguna.deploy.frontend import PrepareOptions
from laguna.deploy.result import Result
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.hosts.factory import host_resources

HERE = Path(__file__).parent
PACKAGE = HERE / "packages" / "echo"
ENVIRONMENT = "bench"


class Clock:
    """The intervals some calls took (from several threads at once)."""

    def __init__(self) -> None:
        self.intervals: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        return len(self.intervals)

    @property
    def seconds(self) -> float:
        """The calls' time added up (overlapping calls each count)."""
        return sum(end - start for start, end in self.intervals)

    def reset(self) -> None:
        with self._lock:
            self.intervals.clear()

    def timed(self, function: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        def run(*args: t.Any, **kwargs: t.Any) -> t.Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                with self._lock:
                    self.intervals.append((started, time.perf_counter()))
        return run


def covered(*clocks: Clock) -> float:
    """The seconds during which at least one of the clocks' calls was under way."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(i for clock in clocks for i in clock.intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


class TimedAgent:
    """An agent transport whose ``execute`` calls are timed."""

    def __init__(self, transport: t.Any, clock: Clock) -> None:
        self._transport = transport
        self.execute = clock.timed(transport.execute)

    def __getattr__(self, name: str) -> t.Any:
        return getattr(self._transport, name)


def model(instances: int) -> list[dict[str, t.Any]]:
    """``instances`` applications, each with its own LinuxMuranoInstance."""
    return [{"?": {"id": uuid.uuid4().hex, "type": "laguna.bench.Echo"},
             "name": f"echo{i}",
             "instance": {"?": {"id": uuid.uuid4().hex,
                                "type": "io.murano.resources.LinuxMuranoInstance"},
                          "name": f"echo{i}", "image": "ubuntu", "flavor": "m1.small"}}
            for i in range(instances)]


def service(root: Path, scripts: Clock) -> Service:
    def resources(state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
        made = host_resources(state_dir, environment_id, dry_run)
        agents = t.cast(t.Callable[[t.Any], t.Any], made.agents)
        return Resources(cloud=made.cloud,
                         agents=lambda host: TimedAgent(agents(host), scripts))
    return Service(Workdir(root), default_wiring().frontends, resources=resources)


def check(result: Result, what: str) -> None:
    if result.status != "ok":
        raise SystemExit(f"{what} failed: {json.dumps(result.to_json()['error'])}")


def leftovers(root: Path) -> list[str]:
    """Processes, addresses and host folders the working directory's cloud still has."""
    cloud = driver.LocalCloud(Workdir(root).cloud_dir)
    found = [f"process {pid}" for pid in processes.marked(cloud.id)]
    found += [f"address {p.name}" for p in cloud.registry.iterdir()
              if p.is_file() and not p.name.startswith(".")
              and json.loads(p.read_text()).get("owner") == str(cloud.directory)]
    hosts = cloud.directory / "hosts"
    found += [f"host {p}" for p in hosts.glob("*/*")] if hosts.is_dir() else []
    return found


def real_run(instances: int, hosts: Clock) -> dict[str, float]:
    """One deploy and undeploy on the local cloud; the seconds of each part."""
    scripts = Clock()
    with tempfile.TemporaryDirectory(prefix="laguna-bench-") as tmp:
        root = Path(tmp)
        path = root / "bench.json"
        path.write_text(json.dumps(model(instances)))
        laguna = service(root, scripts)
        hosts.reset()
        undeploy = 0.0
        try:
            started, cpu = time.perf_counter(), time.process_time()
            result = laguna.deploy(path, PrepareOptions(libs=(PACKAGE,), name=ENVIRONMENT))
            total, cpu = time.perf_counter() - started, time.process_time() - cpu
            check(result, "the deploy")
            assert scripts.calls == instances, scripts.calls
        finally:
            started = time.perf_counter()
            check(laguna.undeploy(ENVIRONMENT), "the undeploy")
            undeploy = time.perf_counter() - started
            left = leftovers(root)
            if left:
                cloud = driver.LocalCloud(Workdir(root).cloud_dir)
                processes.kill([], cloud.id)
                raise SystemExit(f"the undeploy left: {', '.join(left)}")
    return {"total": total, "scripts": scripts.seconds, "hosts": hosts.seconds,
            "waiting": covered(scripts, hosts), "undeploy": undeploy, "cpu": cpu}


def dry_run(instances: int) -> float:
    with tempfile.TemporaryDirectory(prefix="laguna-bench-") as tmp:
        root = Path(tmp)
        path = root / "bench.json"
        path.write_text(json.dumps(model(instances)))
        started = time.perf_counter()
        result = service(root, Clock()).deploy(
            path, PrepareOptions(libs=(PACKAGE,), name=ENVIRONMENT), dry_run=True)
        seconds = time.perf_counter() - started
        check(result, "the dry run")
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = args.instances
    hosts = Clock()
    driver._Realm.settle = hosts.timed(driver._Realm.settle)  # type: ignore[method-assign]

    print(f"deploy of {n} instances on the local cloud (the first run is the "
          "CLI's case: a fresh process)")
    print(f"{'run':>4} {'total s':>8} {'scripts s':>10} {'hosts s':>8} {'waiting s':>10} "
          f"{'overhead ms/instance':>21} {'cpu ms/instance':>16} "
          f"{'undeploy ms/instance':>21}")
    overheads = []
    for run in range(1, args.runs + 1):
        figures = real_run(n, hosts)
        overhead = (figures["total"] - figures["waiting"]) / n
        overheads.append(overhead)
        print(f"{run:>4} {figures['total']:>8.2f} {figures['scripts']:>10.2f} "
              f"{figures['hosts']:>8.2f} {figures['waiting']:>10.2f} {overhead * 1000:>21.1f} "
              f"{figures['cpu'] / n * 1000:>16.1f} {figures['undeploy'] / n * 1000:>21.1f}")
    print(f"engine overhead: {statistics.median(overheads) * 1000:.1f} ms/instance "
          "(median; goal: under 20)")
    dry = [dry_run(n) for _ in range(args.runs)]
    print(f"dry run: {statistics.median(dry) / n * 1000:.1f} ms/instance "
          f"(median of {args.runs}; runs: "
          f"{', '.join(f'{s / n * 1000:.1f}' for s in dry)})")


if __name__ == "__main__":
    process.prepare()
    main()
