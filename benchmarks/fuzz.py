"""A longer fuzzing run of the sandbox: `python3 benchmarks/fuzz.py [EXAMPLES]`.

Runs issue 11's attacks, then EXAMPLES (default 2000) MuranoPL bodies drawn at
random from laguna.testing.fuzz's grammar, in a subprocess bounded to 1.5 GB of
address space and an hour, and prints how many inputs it tried, how they ended
(a result, a MuranoPL error, a load error), the slowest call, the peak memory,
and every finding (an input that ended in a Python error, outlived its time
limit by more than fuzz.TIME_SLACK, or ran the process out of memory) with the
class file that produced it. The CI runs a short derandomized version
(tests/unit/lang/test_fuzz.py).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def main(examples: int = 2000) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parent / "src") + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-m", "laguna.testing.fuzz", "--random",
                           "--examples", str(examples), "--memory-mb", "1536"],
                          capture_output=True, text=True, timeout=3600, env=env, check=False)
    if done.returncode != 0:
        print(f"the fuzzing process failed ({done.returncode}):\n{done.stderr[-5000:]}")
        return 1
    summary = json.loads(done.stdout)
    print(f"inputs tried: {summary['tried']}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items())))
    print(f"slowest call: {summary['slowest_seconds']} s; "
          f"peak memory: {summary['maxrss_kib'] // 1024} MiB")
    print(f"findings: {len(summary['findings'])}")
    for finding in summary["findings"]:
        print(f"\n- {finding['detail']} ({finding['seconds']} s)\n{finding['class']}")
    return 1 if summary["findings"] else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
