"""Helpers of the local cloud tests: the stand-in agent, waits, leftovers."""

from __future__ import annotations

import json
import sys
import time
import typing as t
import urllib.request
from pathlib import Path

from laguna.cloud.local import processes
from laguna.cloud.local.driver import LocalCloud

STANDIN = str(Path(__file__).with_name("standin_agent.py"))
AGENT = (sys.executable, STANDIN)


def health(url: str) -> dict[str, t.Any]:
    with urllib.request.urlopen(f"{url}/v1/health", timeout=10) as response:
        data = json.load(response)
    assert isinstance(data, dict)
    return data


def wait_for(predicate: t.Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait for a condition another process brings about, with a bound."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def leftovers(cloud: LocalCloud) -> tuple[dict[int, str], list[str]]:
    """Processes carrying the cloud's marker, and its addresses in the registry."""
    owned = [p.name for p in cloud.registry.iterdir()
             if not p.name.startswith(".")
             and json.loads(p.read_text()).get("owner") == str(cloud.directory)]
    return processes.marked(cloud.id), owned


def pid_alive(pid: int) -> bool:
    return processes.alive(pid)


def stack_state(cloud: LocalCloud, stack: str) -> dict[str, t.Any]:
    """The stack's state file as the cloud reads it (records whole)."""
    state = cloud.files.load(stack)
    assert state is not None
    return state.to_json()
