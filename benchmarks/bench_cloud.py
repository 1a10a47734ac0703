"""Local cloud benchmark: push a stack of N servers, push it again, delete it.

The agent is a tiny shell script that writes its ready file and sleeps, so the
numbers are the driver's own cost (state, addresses, directories, process
start and containment) plus a shell's start, not a Python agent's. Prints the
time per instance of each operation and the part of the first push spent
waiting for ready files; compare runs on the same machine.

    python benchmarks/bench_cloud.py [--servers 50] [--isolation loopback|netns]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import typing as t
from pathlib import Path

from laguna.cloud.local import driver, processes

AGENT = r"""#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --ready-file) F="$2"; shift;; --listen) L="$2"; shift;; esac; shift
done
printf '{"name": "x", "url": "http://%s", "pid": %s}' "$L" $$ > "$F.tmp" && mv "$F.tmp" "$F"
exec sleep 100000
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--isolation", default="loopback", choices=["loopback", "netns"])
    args = parser.parse_args()
    waited = 0.0
    real_wait = processes.wait_ready

    def timed_wait(*a: t.Any, **kw: t.Any) -> dict[str, t.Any] | None:
        nonlocal waited
        start = time.perf_counter()
        try:
            return real_wait(*a, **kw)
        finally:
            waited += time.perf_counter() - start

    processes.wait_ready = timed_wait
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "agent.sh"
        agent.write_text(AGENT)
        agent.chmod(0o755)
        cloud = driver.LocalCloud(Path(tmp) / ".laguna" / "cloud",
                                  isolation=args.isolation, agent_command=[str(agent)])
        template = {"resources": {f"vm{i}": {"type": "OS::Nova::Server"}
                                  for i in range(args.servers)}}
        n = args.servers
        try:
            start = time.perf_counter()
            cloud.push_stack("bench", template)
            push = time.perf_counter() - start
            start = time.perf_counter()
            cloud.push_stack("bench", template)
            again = time.perf_counter() - start
        finally:
            start = time.perf_counter()
            cloud.delete_stack("bench")
            delete = time.perf_counter() - start
    print(f"push    {push / n * 1000:7.2f} ms/instance "
          f"({waited / n * 1000:.2f} of it waiting for ready files)")
    print(f"re-push {again / n * 1000:7.2f} ms/instance")
    print(f"delete  {delete / n * 1000:7.2f} ms/instance")


if __name__ == "__main__":
    main()
