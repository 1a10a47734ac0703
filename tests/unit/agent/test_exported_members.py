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
        "AgentClient", "AgentClientError", "AgentError", "AgentPlanRejected",
        "AgentResultError", "AgentTimeout", "AgentTransport", "AgentUnreachable",
        "RecordingAgent", "result_value",
    ]
    for name in laguna.agent.__all__:
        assert getattr(laguna.agent, name).__name__ == name


def test_agent_program_loads_neither_muranopl_nor_httpx() -> None:
    probe = ("import json, sys; import laguna.agent.main; "
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('laguna', 'httpx')))))")
    output = subprocess.run([sys.executable, "-c", probe], env={"PYTHONPATH": str(SRC)},
                            capture_output=True, check=True, text=True, timeout=60).stdout
    assert json.loads(output) == [
        "laguna", "laguna.agent", "laguna.agent.body", "laguna.agent.errors",
        "laguna.agent.executor", "laguna.agent.main", "laguna.agent.plan",
        "laguna.agent.process", "laguna.agent.reading", "laguna.agent.results", "laguna.agent.server",
        "laguna.agent.transport", "laguna.agent.workspace", "laguna.errors", "laguna.source",
    ]
