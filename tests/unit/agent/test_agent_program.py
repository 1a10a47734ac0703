"""The real ``laguna-agent`` process on a loopback alias, driven over HTTP by AgentClient."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laguna.agent import AgentClient
from laguna.agent.main import AgentConfig

SRC = Path(__file__).parents[3] / "src"
ADDRESS = "127.77.0.5"
SECRET = "0123456789abcdef" * 4


def wait_for_file(path: Path, process: subprocess.Popen[bytes], seconds: float) -> Any:
    """Polls until the agent wrote its ready file (or died, or ``seconds`` passed)."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"agent exited with {process.returncode}: "
                                 f"{process.stderr.read() if process.stderr else ''!r}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {path} after {seconds} s")
        time.sleep(0.01)
    return json.loads(path.read_text())


def marker(tmp_path: Path) -> str:
    return f"agent-test:{tmp_path.name}"


def marked_processes(value: str) -> list[int]:
    """Processes whose environment carries ``LAGUNA_CLOUD_HOST=value`` (as the cloud scans)."""
    needle = f"LAGUNA_CLOUD_HOST={value}".encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and needle in (entry / "environ").read_bytes() + b"\0":
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@contextlib.contextmanager
def running_agent(tmp_path: Path, *options: str, umask: int = 0o022
                  ) -> Iterator[tuple[dict[str, Any], subprocess.Popen[bytes], Path]]:
    """A real agent (with ``options``) whose secret is :data:`SECRET`, started
    with a loose ``umask`` (the agent's own files must be private anyway):
    its ready file, its process and its host root."""
    ready = tmp_path / "run" / "ready.json"
    root = tmp_path / "host"
    secret = tmp_path / "agent.key"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(SRC), "SECRET": "no",
           "LAGUNA_CLOUD_HOST": marker(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "laguna.agent", "--name", "web-1", "--listen", f"{ADDRESS}:0",
         "--root", str(root), "--ready-file", str(ready), "--secret-file", str(secret),
         *options],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, umask=umask)
    try:
        yield wait_for_file(ready, process, 30), process, root
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        if process.stderr:
            process.stderr.close()


@pytest.fixture()
def agent(tmp_path: Path) -> Iterator[tuple[dict[str, Any], subprocess.Popen[bytes], Path]]:
    with running_agent(tmp_path) as started:
        yield started


def test_agent_runs_v1_and_v2_plans_and_stops_cleanly(
        agent: tuple[dict[str, Any], subprocess.Popen[bytes], Path], tmp_path: Path) -> None:
    ready, process, root = agent
    assert (ready["name"], ready["pid"], ready["url"].rpartition(":")[0]) == (
        "web-1", process.pid, f"http://{ADDRESS}")
    v2 = {"FormatVersion": "2.1.0", "ID": "plan-2", "Parameters": {"who": "world"},
          "Body": "r = hello(args.who)\nreturn [r.stdout, r.exitCode]",
          "Files": {"h": {"Name": "bin/hello.sh", "BodyType": "Base64",
                          "Body": base64.b64encode(b'echo "hi $1 from $HOME $SECRET"').decode()}},
          "Scripts": {"hello": {"Type": "Application", "EntryPoint": "h"}}}
    v1 = {"Scripts": [base64.b64encode(b"twice() { echo $1; echo $1; }").decode()],
          "Commands": [{"Name": "twice", "Arguments": {"word": "ok"}}]}
    with AgentClient(ready["url"], SECRET) as client:
        assert client.health() == {"name": "web-1", "status": "ready"}
        result = client.execute(v2, 30)
        assert (result["SourceID"], result["ErrorCode"], result["Body"]) == (
            "plan-2", 0, [f"hi world from {root}", 0])
        assert client.execute(v1, 30) == {"IsException": False, "Result": [
            {"IsException": False, "Result": ["ok", "ok"]}]}
    assert marked_processes(marker(tmp_path)) == [process.pid]
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0
    assert not (tmp_path / "run" / "ready.json").exists()
    assert marked_processes(marker(tmp_path)) == []
    assert json.loads((root / "agent" / "plans" / "plan-2" / "result.json").read_text()) == result


def test_config_from_arguments_and_environ(tmp_path: Path) -> None:
    config = AgentConfig.from_args(
        ["--name", "db", "--listen", "127.42.0.7:0", "--root", str(tmp_path)],
        {"PATH": "/bin", "LAGUNA_AGENT_TOKEN": SECRET, "AWS_SECRET": "x",
         "LAGUNA_CLOUD_HOST": "c1:s:web:ab12"})
    assert config == AgentConfig(
        name="db", host="127.42.0.7", port=0, root=tmp_path, ready_file=None, secret=SECRET,
        max_request=64 * 1024 * 1024,
        script_env={"PATH": "/bin", "LANG": "C.UTF-8", "HOME": str(tmp_path),
                    "LAGUNA_CLOUD_HOST": "c1:s:web:ab12"})
    # the secret stays out of logs and tracebacks
    assert "secret=..., max_request=67108864" in repr(config)
    assert SECRET not in repr(config)
