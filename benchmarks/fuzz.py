"""A longer fuzzing run of the sandbox:
`python3 benchmarks/fuzz.py [EXAMPLES [BATCH]] [--jobs N]`.

Runs issue 11's and issue 21's attacks, then EXAMPLES (default 2000) MuranoPL
bodies drawn at random from laguna.testing.fuzz's grammar, in subprocesses
of at most BATCH (default 1000) inputs each (every input is a package the
registry keeps and its expressions fill the parse and compile caches, about
0.4 MB an input: a process of 3000 inputs nears the bound, and its full
garbage collections take seconds), each bounded to
1.5 GB of address space and an hour, and prints how many inputs it tried,
how they ended (a result, a MuranoPL error, a load error), the slowest call,
the peak memory, and every finding (an input that ended in a Python error,
took more than fuzz.TIME_SLACK of CPU past its time limit (or fuzz.HANG_SECONDS of wall
time), or ran the process out
of memory) with the class file that produced it. A batch that does not end
(a hang the limits missed) or fails is a finding too. ``--jobs N`` (default 1)
runs N batches at once, each in its own subprocess (N times the memory; the
time limits are wall-clock, so keep N at most the free cores, or slow inputs
may show as findings). While it runs, each batch's findings are printed on
stderr as the batch ends. The CI runs a short derandomized version
(tests/unit/lang/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import typing as t

HERE = pathlib.Path(__file__).parent
BATCH_SECONDS = 3600


def batch(examples: int, env: dict[str, str]) -> dict[str, t.Any]:
    """One subprocess of ``examples`` random inputs: its summary, or a summary
    whose one finding says how the process failed."""
    try:
        done = subprocess.run([sys.executable, "-m", "laguna.testing.fuzz", "--random",
                               "--examples", str(examples), "--memory-mb", "1536"],
                              capture_output=True, text=True, timeout=BATCH_SECONDS, env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        detail = f"the batch did not end within {BATCH_SECONDS} s"
    else:
        if done.returncode == 0:
            return t.cast(dict[str, t.Any], json.loads(done.stdout))
        detail = f"the fuzzing process failed ({done.returncode}):\n{done.stderr[-5000:]}"
    return {"tried": 0, "outcomes": {}, "slowest_seconds": 0.0, "maxrss_kib": 0,
            "findings": [{"detail": detail, "seconds": 0.0, "class": ""}]}


def main(examples: int = 2000, per_batch: int = 1000, jobs: int = 1) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parent / "src") + os.pathsep + env.get("PYTHONPATH", "")
    tried, findings = 0, []
    outcomes: dict[str, int] = {}
    slowest, peak = 0.0, 0
    sizes = [min(per_batch, examples - start) for start in range(0, examples, per_batch)]
    # each batch is a subprocess: the threads only wait for theirs
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        running = [pool.submit(batch, size, env) for size in sizes]
        for done in concurrent.futures.as_completed(running):
            summary = done.result()
            tried += summary["tried"]
            for kind, count in summary["outcomes"].items():
                outcomes[kind] = outcomes.get(kind, 0) + count
            findings += summary["findings"]
            slowest = max(slowest, summary["slowest_seconds"])
            peak = max(peak, summary["maxrss_kib"])
            print(f"... {tried} inputs tried, {len(findings)} findings", file=sys.stderr,
                  flush=True)
            # each batch's findings as they come: a long run stopped early keeps them
            for finding in summary["findings"]:
                print(f"\n- {finding['detail']} ({finding['seconds']} s)\n{finding['class']}",
                      file=sys.stderr, flush=True)
    print(f"inputs tried: {tried}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"slowest call: {slowest} s; peak memory: {peak // 1024} MiB")
    print(f"findings: {len(findings)}")
    for finding in findings:
        print(f"\n- {finding['detail']} ({finding['seconds']} s)\n{finding['class']}")
    return 1 if findings else 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks/fuzz.py",
                                     description="A longer fuzzing run of the sandbox.")
    parser.add_argument("examples", nargs="?", type=int, default=2000,
                        help="random inputs to run (default 2000)")
    parser.add_argument("batch", nargs="?", type=int, default=1000,
                        help="inputs per subprocess (default 1000)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="batches (subprocesses) run at once (default 1)")
    options = parser.parse_args(argv)
    if options.examples < 0 or options.batch < 1 or options.jobs < 1:
        parser.error("EXAMPLES must be at least 0, BATCH and --jobs at least 1")
    return options


if __name__ == "__main__":
    OPTIONS = parse_args(sys.argv[1:])
    sys.exit(main(OPTIONS.examples, OPTIONS.batch, OPTIONS.jobs))
