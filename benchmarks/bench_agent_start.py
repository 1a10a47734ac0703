"""The start of one ``laguna-agent``: spawned as the local cloud spawns it, until its ready file.

Each run starts ``python -m laguna.agent --name bench --listen 127.0.0.1:0
--root DIR --ready-file FILE --secret-file KEY`` (the command of ``cloud/local/driver.py``
``_spawn``), waits for the ready file, reads the CPU time the agent used so far
(``/proc/PID/schedstat``, nanoseconds) and stops it. Prints the median, minimum
and maximum of the time from spawn to ready file and of that CPU time, then
the agent's own imports under ``-X importtime -m laguna.agent --help`` (every
top-level import after ``site``: laguna's modules and the standard library
they need; the median of five runs).

``--plan`` also sends each agent one plan (a script that echoes ``ok``) once
it is ready and reports the CPU time of the agent and its script from spawn
to stop: what a host of the local cloud costs in a deploy, the plan machinery
included.

``--no-site`` runs the agent with ``-S``: this sandbox's ``site`` imports
certifi through a ``.pth`` file, which loads pathlib, re, typing, zipfile and
tempfile before the agent starts; without it the figures are those of an
interpreter that has not (the agent needs nothing from site-packages).

    python benchmarks/bench_agent_start.py [--runs 10] [--plan] [--no-site]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from laguna.agent import signing

READY_TIMEOUT = 20.0
SECRET = secrets.token_hex(32)
PLAN = {"FormatVersion": "2.0.0", "ID": "bench", "Body": "return deploy().stdout",
        "Files": {"f": {"Name": "run.sh", "BodyType": "Text", "Body": "#!/bin/sh\necho ok\n"}},
        "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "f"}}}
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)$")


def agent_command(flags: list[str], root: Path, ready: Path, key: Path) -> list[str]:
    return [sys.executable, *flags, "-m", "laguna.agent", "--name", "bench",
            "--listen", "127.0.0.1:0", "--root", str(root), "--ready-file", str(ready),
            "--secret-file", str(key)]


def cpu_seconds(pid: int) -> float:
    """CPU time of the agent's main thread, which does everything until it is ready."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def send_plan(url: str) -> None:
    host, _, port = url.removeprefix("http://").rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps({"plan": PLAN, "timeout": 30}).encode()
    headers = signing.request_headers(SECRET.encode(), "POST", "/v1/plans", body,
                                      secrets.token_hex(16), int(time.time()))
    try:
        connection.request("POST", "/v1/plans", body,
                           {"Content-Type": "application/json", **headers})
        answer = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    if answer.get("Body") != "ok":
        raise SystemExit(f"the plan failed: {answer}")


def one_start(flags: list[str], plan: bool) -> tuple[float, float]:
    """(seconds from spawn to ready file, CPU seconds of the agent by then, or with
    ``plan`` from spawn to stop, its script included)."""
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as folder:
        root, ready = Path(folder) / "host", Path(folder) / "run" / "ready.json"
        key = Path(folder) / "agent.key"
        key.write_text(SECRET)
        key.chmod(0o600)
        started = time.perf_counter()
        process = subprocess.Popen(agent_command(flags, root, ready, key),
                                   stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        try:
            deadline = time.monotonic() + READY_TIMEOUT
            while not ready.exists():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the agent did not become ready (exit {process.poll()})")
                time.sleep(0.0005)
            elapsed = time.perf_counter() - started
            if not plan:
                return elapsed, cpu_seconds(process.pid)
            send_plan(json.loads(ready.read_text())["url"])
            process.terminate()
            # wait4: the agent's own CPU and that of its reaped children (the script)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            return elapsed, usage.ru_utime + usage.ru_stime
        finally:
            if process.returncode is None:  # measured by schedstat, or failed: not needed more
                process.kill()
                process.wait()


def agent_imports(flags: list[str]) -> tuple[float, int, list[tuple[float, str]]]:
    """(ms of the agent's imports, how many modules, the largest top-level ones)."""
    output = subprocess.run([sys.executable, *flags, "-X", "importtime", "-m", "laguna.agent",
                             "--help"], capture_output=True, text=True, timeout=60,
                            check=True).stderr
    lines = [m for m in map(_IMPORT_LINE.match, output.splitlines()) if m is not None]
    names = [m.group(4) for m in lines]
    after_site = lines[names.index("site") + 1:] if "site" in names else lines
    top = [(int(m.group(2)) / 1000, m.group(4)) for m in after_site if not m.group(3)]
    return sum(ms for ms, _ in top), len(after_site), sorted(top, reverse=True)[:8]


def summary(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"{label}: median {statistics.median(ms):.1f} ms "
            f"(min {min(ms):.1f}, max {max(ms):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--plan", action="store_true",
                        help="send each agent one plan; CPU from spawn to stop")
    parser.add_argument("--no-site", action="store_true", help="run the agent with -S")
    args = parser.parse_args()
    flags = ["-S"] if args.no_site else []
    one_start(flags, args.plan)  # warm the page cache; not counted
    starts = [one_start(flags, args.plan) for _ in range(args.runs)]
    bytecode = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"{args.runs} starts, {'-S, ' if args.no_site else ''}bytecode of laguna's "
          f"modules {bytecode}, load {os.getloadavg()[0]:.2f}")
    print(summary("spawn to ready file", [wall for wall, _ in starts]))
    print(summary("CPU of the agent and its script, spawn to stop, one plan" if args.plan
                  else "CPU of the agent until ready", [cpu for _, cpu in starts]))
    imports = sorted((agent_imports(flags) for _ in range(5)), key=lambda found: found[0])
    total, count, largest = imports[len(imports) // 2]
    print(f"imports after site (median of 5): {total:.1f} ms, {count} modules; largest: "
          + ", ".join(f"{name} {ms:.1f}" for ms, name in largest))


if __name__ == "__main__":
    main()
