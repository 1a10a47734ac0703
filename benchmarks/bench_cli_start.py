"""How long a `laguna` command takes from start to exit, for the commands a user
types most: `python3 benchmarks/bench_cli_start.py [--runs N]`.

Each command runs N times (default 7) as a new process, in a scratch working
directory holding one deployed environment (a MuranoPL application with no
host, deployed once first); the median wall time of each is printed beside its
goal (issue 22: `--help` and `--version` under 0.15 s, `status` and
`environments` under 0.3 s on the project's machine kind). Run it on an idle
machine: the figures grow with the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {"--help": 0.15, "--version": 0.15, "status quiet": 0.3, "environments": 0.3}

#: an application with no host (the CLI tests' fixture)
QUIET = Path(__file__).parents[1] / "tests" / "fixtures" / "packages" / "quiet"


def laguna() -> str:
    found = shutil.which("laguna")
    if found is None:
        sys.exit("bench_cli_start: no `laguna` on PATH (install the project first)")
    return found


def prepare(scratch: Path) -> None:
    model = scratch / "quiet.yaml"
    model.write_text("- ?: {id: q, type: com.example.Quiet}\n")
    subprocess.run([laguna(), "deploy", str(model), "-l", str(QUIET), "--json"],
                   cwd=scratch, check=True, capture_output=True, timeout=120)


def timed(command: str, scratch: Path) -> float:
    started = time.perf_counter()
    subprocess.run([laguna(), *command.split()], cwd=scratch, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
                   env={**os.environ, "LAGUNA_WORKDIR": str(scratch)})
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    scratch = Path(tempfile.mkdtemp(prefix="laguna-cli-start-"))
    try:
        prepare(scratch)
        print(f"{'command':<22}{'median s':>10}{'min s':>8}{'goal s':>8}  ratio to goal")
        for command, goal in GOALS.items():
            times = [timed(command, scratch) for _ in range(runs)]
            median = statistics.median(times)
            print(f"laguna {command:<15}{median:>10.3f}{min(times):>8.3f}{goal:>8.2f}"
                  f"  {median / goal:.2f}")
        print(f"load average: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
