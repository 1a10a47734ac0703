"""Benchmarks of the MuranoPL engine: `python3 benchmarks/run.py`.

Runs four workloads, five times each, and prints the median time of the method
call and its ratio to the original Murano engine's time on the same machine kind
(12 s, 80 s, 26 s, 63 s; measured for issue 2). Then compares calls made through
reflection (`$method.invoke($, i)`) with direct calls (`$.step(i)`).

Then the per-call workloads: each makes CALLS calls of one kind in a MuranoPL
loop and prints microseconds per call and the ratio to a plain instance call.

Last, the workloads of issue 15 written the ordinary way, through `laguna test`
and in-process (benchmarks/ordinary.py, which also runs alone).

The other benchmarks (catalog, local cloud, deploying N instances) are listed in
benchmarks/README.md.
"""

from __future__ import annotations

import pathlib
import statistics
import sys
import time
import typing as t

import ordinary

from laguna import process
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir

HERE = pathlib.Path(__file__).parent
MURANO_SECONDS = {"recursion": 12.0, "loops": 80.0, "objects": 26.0, "pipeline": 63.0}
CALLS = 20_000
# method of laguna.bench.calls.Calls -> what one iteration calls
PER_CALL = {
    "instance": "$.add($total)",
    "staticOnType": ":Calls.addStatic($total)",
    "staticOnInstance": "$.addStatic($total)",
    "extension": "$total.plusOne() (imported extension)",
}


def main(repeat: int = 5) -> None:
    registry = core_registry()
    registry.add(read_package_dir(HERE / "packages" / "bench"))
    rows = [{"a": i % 17, "b": i, "c": str(i)} for i in range(10_000)]
    print(f"{'workload':<12} {'median s':>10} {'murano s':>9} {'speed-up':>9}  result")
    for name in MURANO_SECONDS:
        times = []
        result = None
        for _ in range(repeat):
            executor = Executor(registry)
            cls = registry.find("laguna.bench.Workloads")
            obj = executor.new_object(cls, None, {})
            args = (rows,) if name == "pipeline" else ()
            started = time.perf_counter()
            result = executor.call(obj, name, *args)
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        shown = str(result)[:40]
        print(f"{name:<12} {median:>10.4f} {MURANO_SECONDS[name]:>9.1f} "
              f"{MURANO_SECONDS[name] / median:>8.0f}x  {shown}")
    reflection(registry, repeat)


REFLECTION_CALLS = 20_000  # calls of each kind in laguna.bench.ReflectionWorkloads


def reflection(registry: t.Any, repeat: int = 5) -> None:
    """Reflection-driven invoke against direct calls of the same method: the
    median time per call of each and its ratio to the direct call."""
    cls = registry.find("laguna.bench.ReflectionWorkloads")
    micros: dict[str, float] = {}
    print(f"\n{'reflection':<12} {'us/call':>10} {'vs direct':>9}  ({REFLECTION_CALLS} calls)")
    for name in ("direct", "reflected", "lookedUp"):
        times = []
        for _ in range(repeat):
            executor = Executor(registry)
            obj = executor.new_object(cls, None, {})
            started = time.perf_counter()
            result = executor.call(obj, name, REFLECTION_CALLS)
            times.append(time.perf_counter() - started)
            assert result == REFLECTION_CALLS * (REFLECTION_CALLS + 1) // 2, (name, result)
        micros[name] = statistics.median(times) / REFLECTION_CALLS * 1e6
        print(f"{name:<12} {micros[name]:>10.2f} {micros[name] / micros['direct']:>8.2f}x")


def per_call(repeat: int = 5) -> None:
    registry = core_registry()
    registry.add(read_package_dir(HERE / "packages" / "calls"))
    print(f"\n{'per call':<17} {'us/call':>8} {'vs instance':>11}  call")
    baseline = None
    for name, what in PER_CALL.items():
        times = []
        for _ in range(repeat):
            executor = Executor(registry)
            obj = executor.new_object(registry.find("laguna.bench.calls.Calls"), None, {})
            started = time.perf_counter()
            result = executor.call(obj, name, CALLS)
            times.append(time.perf_counter() - started)
            assert result == CALLS, (name, result)
        micros = statistics.median(times) / CALLS * 1e6
        baseline = baseline or micros
        print(f"{name:<17} {micros:>8.2f} {micros / baseline:>10.2f}x  {what}")


if __name__ == "__main__":
    process.prepare()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    per_call(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    print()
    ordinary.main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
