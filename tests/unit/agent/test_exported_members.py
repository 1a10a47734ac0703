"""The public API of laguna.agent, and what the agent program may import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import laguna.agent

SRC = Path(__file__).parents[3] / "src"


def test_public_api_is_pinned() -> None:
    assert laguna.agent.__all__ == [
        "AgentClient", "AgentClientError", "AgentError", "AgentForgedAnswer", "AgentPlanRejected",
        "AgentResultError", "AgentTimeout", "AgentTransport", "AgentUnreachable",
        "RecordingAgent", "Track", "result_value",
    ]
    for name in laguna.agent.__all__:
        assert getattr(laguna.agent, name).__name__ == name


# The agent's start as ``python3 -m laguna.agent`` runs it, stopped where it
# would serve: the modules loaded by then. ``-S``: no site-packages' .pth files,
# which import modules of their own (typing, zipfile...) before anything of ours.
START_PROBE = """
import json, sys
import laguna.agent.main as main
def report(server, poll_interval):
    with open(sys.argv[2]) as ready:
        print(json.dumps([sorted(sys.modules), json.load(ready)]))
main.AgentServer.serve_forever = report
main.main(["--name", "probe", "--listen", "127.0.0.1:0", "--root", sys.argv[1],
           "--ready-file", sys.argv[2], "--secret-file", sys.argv[3]])
"""

# What only a plan needs, the engine's side, or typing-only helpers; bringing
# one back onto the start path costs every host of the local cloud its import.
# hmac (with OpenSSL's libcrypto, ~5 ms) waits for the first request to check.
NOT_AT_START = [
    "ast", "dataclasses", "hmac", "httpx", "inspect", "shlex", "subprocess", "tempfile",
    "typing", "zipfile",
]


def started_agent(tmp_path: Path) -> tuple[list[str], dict[str, object]]:
    """The modules the agent had loaded when ready, and its ready file."""
    secret = tmp_path / "agent.key"
    secret.write_text("0123456789abcdef" * 4)
    secret.chmod(0o600)
    output = subprocess.run(
        [sys.executable, "-S", "-c", START_PROBE, str(tmp_path / "host"),
         str(tmp_path / "ready.json"), str(secret)], env={"PYTHONPATH": str(SRC)},
        capture_output=True, check=True, text=True, timeout=60).stdout
    modules, ready = json.loads(output)
    return modules, ready


def test_agent_start_loads_only_the_server(tmp_path: Path) -> None:
    modules, ready = started_agent(tmp_path)
    # laguna.privacy: the rule for private files, which the cloud shares (os only)
    assert [m for m in modules if m.startswith("laguna")] == [
        "laguna", "laguna.agent", "laguna.agent.main", "laguna.agent.protocol",
        "laguna.agent.server", "laguna.privacy",
    ]
    assert [m for m in NOT_AT_START if m in modules] == []
    assert (ready["name"], str(ready["url"]).rpartition(":")[0]) == (
        "probe", "http://127.0.0.1")


def test_agent_loads_the_plan_machinery_with_its_first_plan(tmp_path: Path) -> None:
    probe = ("import json, sys; from pathlib import Path; "
             "from laguna.agent.main import DeferredExecutor; "
             "outcome = DeferredExecutor(Path(sys.argv[1]), {}).execute("
             "{'FormatVersion': '3.0.0', 'ID': 'p'}, 5); "
             "print(json.dumps([outcome.status, outcome.error_code, "
             "sorted(m for m in sys.modules if m.startswith(('laguna', 'httpx')) "
             "or m in ('dataclasses', 'inspect'))]))")
    output = subprocess.run([sys.executable, "-S", "-c", probe, str(tmp_path)],
                            env={"PYTHONPATH": str(SRC)}, capture_output=True, check=True,
                            text=True, timeout=60).stdout
    assert json.loads(output) == ["rejected", 9, [
        "laguna", "laguna.agent", "laguna.agent.body", "laguna.agent.errors",
        "laguna.agent.executor", "laguna.agent.main", "laguna.agent.plan",
        "laguna.agent.process", "laguna.agent.protocol", "laguna.agent.results",
        "laguna.agent.server", "laguna.agent.tracking", "laguna.agent.workspace",
        "laguna.errors", "laguna.privacy",
    ]]
