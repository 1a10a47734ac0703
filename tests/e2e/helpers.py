"""What the end-to-end tests share: running `laguna` as users do, waiting on
HTTP with a deadline, and finding what a working directory left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import typing as t
import urllib.error
import urllib.request
from pathlib import Path

from laguna.cloud.local import processes
from laguna.cloud.local.driver import LocalCloud

ROOT = Path(__file__).parents[2]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
PACKAGES = Path(__file__).with_name("packages")
#: one deploy starts agents and runs scripts; nothing here should take longer
COMMAND_TIMEOUT = 240


def command(workdir: Path, *args: str) -> list[str]:
    return [sys.executable, "-c", "from laguna.cli.main import main; main()", *args,
            "--workdir", str(workdir)]


def environ() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def laguna(workdir: Path, *args: str) -> tuple[int, t.Any]:
    """Run `laguna ARGS --json --workdir DIR`; the exit status and the JSON printed."""
    done = subprocess.run(command(workdir, *args, "--json"), capture_output=True, text=True,
                          env=environ(), timeout=COMMAND_TIMEOUT, check=False)
    try:
        data = json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"not JSON (exit {done.returncode}):\n{done.stdout}\n"
                             f"{done.stderr}") from None
    return done.returncode, data


def get(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return str(answer.read().decode("utf-8"))


def wait_for_page(url: str, text: str, deadline: float = 30.0) -> str:
    """The page at ``url`` once it contains ``text`` (bounded retries)."""
    end = time.monotonic() + deadline
    last: str | Exception = ""
    delay = 0.02
    while time.monotonic() < end:
        try:
            last = get(url)
            if text in last:
                return last
        except (OSError, urllib.error.URLError) as error:
            last = error
        time.sleep(delay)
        delay = min(delay * 2, 0.5)
    raise AssertionError(f"{url} never showed {text!r}; last: {last!r}")


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is no zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def unreachable(url: str) -> bool:
    try:
        get(url, timeout=2)
    except (OSError, urllib.error.URLError):
        return True
    return False


def leftovers(workdir: Path) -> tuple[dict[int, str], list[str], list[str]]:
    """Processes of the working directory's cloud, its addresses in the
    registry, and the host folders it still has."""
    cloud = LocalCloud(workdir / ".laguna" / "cloud")
    owned = [p.name for p in cloud.registry.iterdir()
             if not p.name.startswith(".") and p.is_file()
             and json.loads(p.read_text()).get("owner") == str(cloud.directory)]
    hosts = cloud.directory / "hosts"
    folders = sorted(str(p.relative_to(hosts)) for p in hosts.glob("*/*")) \
        if hosts.is_dir() else []
    return processes.marked(cloud.id), owned, folders


def nothing_left(workdir: Path) -> None:
    marked, addresses, folders = leftovers(workdir)
    assert marked == {}, f"processes left: {marked}"
    assert addresses == [], f"addresses left: {addresses}"
    assert folders == [], f"hosts left: {folders}"
