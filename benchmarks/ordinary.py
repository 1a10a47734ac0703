"""The workloads of issue 15 as a package author writes them:
`python3 benchmarks/ordinary.py [REPEAT]`.

The package benchmarks/packages/ordinary holds one TestFixture whose tests are
the workloads, written the ordinary way (contracts on arguments and
properties, dicts built with dict(), ordering with thenBy). They run:

- through `laguna test` itself, in a fresh process, REPEAT times: the time of
  each test method read from the JUnit report (the runner's own time per test
  included), and the whole command's wall time;
- in-process, REPEAT times: the method call alone (a fresh executor and
  fixture each time, not timed).

What the runner adds to each test is the time of ``testEmpty`` (an empty
body) as the runner's ``run_one`` reports it, warm; what the `laguna test`
process adds is its wall time less the sum of its tests' times (start-up:
imports, yaql's parser tables, reading the core library's classes).

Each prints the median and its ratio to the original Murano engine's time on
this machine kind (issue 15). The pipeline is also written in plain Python
(:func:`pipeline_python`) and its ratio to that is printed.
"""

from __future__ import annotations

import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
import xml.etree.ElementTree as ET

from laguna import process
from laguna.lang.executor import Executor
from laguna.testing.runner import TestRunner

HERE = pathlib.Path(__file__).parent
PACKAGE = HERE / "packages" / "ordinary"
FIXTURE = "laguna.bench.ordinary.Workloads"
# test method -> the original engine's seconds (issue 15)
MURANO_SECONDS = {"testRecursion": 12.2, "testObjects": 26.0, "testPipeline": 62.8,
                  "testLoops": 80.4}


def pipeline_python() -> list[dict[str, t.Any]]:
    """testPipeline written in plain Python, step for step."""
    results: list[dict[str, t.Any]] = []
    for round_ in range(10):
        rows: list[dict[str, t.Any]] = [
            {"id": round_ * 1000 + i, "name": "item-" + str(i), "group": i % 17,
             "value": (i * 7 + round_) % 101} for i in range(1000)]
        kept = [row for row in rows if row["value"] > 10]
        groups: dict[int, list[int]] = {}
        for row in kept:
            groups.setdefault(row["group"], []).append(row["value"])
        sums = sorted(([key, sum(values)] for key, values in groups.items()),
                      key=lambda pair: pair[1])
        best = sorted(kept, key=lambda row: (-row["value"], row["name"]))[0]
        results.append({"round": round_, "count": len(kept),
                        "total": sum(row["value"] for row in kept),
                        "low": sums[0][0], "best": best["name"]})
    return results


def median_time(fn: t.Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def through_cli(repeat: int) -> tuple[dict[str, float], float]:
    """Median seconds of each test from `laguna test`'s JUnit report, and of
    the command's wall time."""
    per_test: dict[str, list[float]] = {name: [] for name in MURANO_SECONDS}
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "junit.xml"
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "laguna.cli", "test", str(PACKAGE),
                            "--junit-xml", str(report)], check=True, stdout=subprocess.DEVNULL)
            walls.append(time.perf_counter() - started)
            for case in ET.parse(report).getroot().iter("testcase"):
                per_test.setdefault(case.get("name", ""), []).append(
                    float(case.get("time", "nan")))
    return ({name: statistics.median(times) for name, times in per_test.items()},
            statistics.median(walls))


def in_process(repeat: int) -> tuple[dict[str, float], float]:
    """Median seconds of each test method's call alone, and of the runner's
    run_one of the empty test (fresh executor, fixture, setUp, tearDown)."""
    runner = TestRunner(PACKAGE)
    cls = runner.registry.find(FIXTURE)
    calls: dict[str, float] = {}
    for name in MURANO_SECONDS:
        times = []
        for _ in range(repeat):
            executor = Executor(runner.registry, runner.limits)
            fixture = executor.new_object(cls, None, {})
            started = time.perf_counter()
            executor.call(fixture, name)
            times.append(time.perf_counter() - started)
        calls[name] = statistics.median(times)
    runs = []
    for _ in range(max(repeat, 100)):
        result = runner.run_one(cls, "testEmpty")
        assert result.passed, (result.message, result.trace)
        runs.append(result.seconds)
    return calls, statistics.median(runs)


def main(repeat: int = 3) -> None:
    print(f"issue 15 workloads (benchmarks/packages/ordinary), median of {repeat}")
    cli, wall = through_cli(repeat)
    calls, empty = in_process(repeat)
    print(f"{'test':<14} {'laguna test s':>13} {'speed-up':>9} {'call s':>8} {'speed-up':>9} "
          f"{'murano s':>9}")
    for name, murano in MURANO_SECONDS.items():
        print(f"{name:<14} {cli[name]:>13.4f} {murano / cli[name]:>8.0f}x {calls[name]:>8.4f} "
              f"{murano / calls[name]:>8.0f}x {murano:>9.1f}")
    tests = sum(cli.values())
    print(f"the runner's own time per test (testEmpty, warm): {empty * 1000:.2f} ms; "
          f"`laguna test` wall time {wall:.2f} s for {tests:.2f} s of tests")
    assert pipeline_python()[9] == {"round": 9, "count": 891, "total": 49338, "low": 14,
                                    "best": "item-114"}   # what testPipeline asserts
    python = median_time(pipeline_python, max(repeat, 5))
    print(f"pipeline in plain Python: {python * 1000:.2f} ms; testPipeline is "
          f"{cli['testPipeline'] / python:.1f}x that through `laguna test`, "
          f"{calls['testPipeline'] / python:.1f}x in-process")


if __name__ == "__main__":
    process.prepare()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
