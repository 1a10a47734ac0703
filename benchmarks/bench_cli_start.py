"""How long a `laguna` command takes from start to exit, for the commands a user
types most: `python3 benchmarks/bench_cli_start.py [--runs N]`.

Each command runs N times (default 7) as a new process, in a scratch working
directory holding one deployed environment (a MuranoPL application with no
host, deployed once first); the median wall time of each is printed beside its
goal (issue 22: `--help` and `--version` under 0.15 s, `status` and
`environments` under 0.3 s on the project's machine kind), their human and
JSON outputs both. Run it on an idle machine: the figures grow with the load.
Beside the wall time, the median CPU time (user + system) of the command's
process, which grows much less with the load of other jobs.

``--src DIR`` times a source tree (its ``src`` folder on ``PYTHONPATH``, run by
this interpreter as the installed ``laguna`` script runs it) instead of the
``laguna`` on ``PATH``: two trees compared on one machine at one moment. The
tree's modules are compiled first (``compileall``), as installing them does:
with ``PYTHONDONTWRITEBYTECODE`` set, every run would compile them again.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
from pathlib import Path

GOALS = {"--help": 0.15, "--version": 0.15, "status quiet": 0.3, "status quiet --json": 0.3,
         "environments": 0.3, "environments -o json": 0.3}

#: an application with no host (the CLI tests' fixture)
QUIET = Path(__file__).parents[1] / "tests" / "fixtures" / "packages" / "quiet"


#: a source tree's `laguna`, as its console script starts it
SCRIPT = "from laguna.cli.main import main; main()"


class Laguna:
    """The command line that starts `laguna`, and its environment."""

    def __init__(self, src: Path | None) -> None:
        self.env = dict(os.environ)
        if src is None:
            found = shutil.which("laguna")
            if found is None:
                sys.exit("bench_cli_start: no `laguna` on PATH (install the project first)")
            self.argv = [found]
        else:
            self.argv = [sys.executable, "-c", SCRIPT]
            self.env["PYTHONPATH"] = str((src / "src").resolve())
            subprocess.run([sys.executable, "-m", "compileall", "-q", self.env["PYTHONPATH"]],
                           check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})

    def run(self, args: list[str], scratch: Path, **options: t.Any) -> None:
        subprocess.run([*self.argv, *args], cwd=scratch, check=True,
                       env={**self.env, "LAGUNA_WORKDIR": str(scratch)}, **options)


def prepare(laguna: Laguna, scratch: Path) -> None:
    model = scratch / "quiet.yaml"
    model.write_text("- ?: {id: q, type: com.example.Quiet}\n")
    laguna.run(["deploy", str(model), "-l", str(QUIET), "--json"], scratch,
               capture_output=True, timeout=120)


def timed(laguna: Laguna, command: str, scratch: Path) -> tuple[float, float]:
    """The wall time of one run and its process's CPU time (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    laguna.run(command.split(), scratch, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, timeout=60)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--src", type=Path, metavar="DIR",
                        help="time this source tree's laguna (default: the one on PATH)")
    options = parser.parse_args()
    runs = options.runs
    laguna = Laguna(options.src)
    scratch = Path(tempfile.mkdtemp(prefix="laguna-cli-start-"))
    try:
        prepare(laguna, scratch)
        print(f"{'command':<28}{'median s':>10}{'min s':>8}{'CPU s':>8}{'goal s':>8}"
              "  ratio to goal")
        for command, goal in GOALS.items():
            runs_made = [timed(laguna, command, scratch) for _ in range(runs)]
            times = [wall for wall, _cpu in runs_made]
            median = statistics.median(times)
            cpu = statistics.median(cpu for _wall, cpu in runs_made)
            print(f"laguna {command:<21}{median:>10.3f}{min(times):>8.3f}{cpu:>8.3f}"
                  f"{goal:>8.2f}  {median / goal:.2f}")
        print(f"load average: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
