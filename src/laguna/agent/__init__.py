"""laguna's agent: runs murano-agent execution plans on a host, and the engine's client.

The agent side (``laguna-agent``: ``main``, ``server``, ``executor``, ``plan``,
``body``, ``process``, ``workspace``, ``results``) uses only the standard
library and knows nothing of MuranoPL. The engine side is ``AgentClient`` (HTTP,
imported lazily because it needs httpx), the ``AgentTransport`` protocol and its
fake ``RecordingAgent``. See docs/AGENT.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from laguna.agent.errors import (
    AgentClientError,
    AgentError,
    AgentPlanRejected,
    AgentResultError,
    AgentTimeout,
    AgentUnreachable,
)
from laguna.agent.reading import result_value
from laguna.agent.transport import AgentTransport, RecordingAgent

if TYPE_CHECKING:
    from laguna.agent.client import AgentClient

__all__ = [
    "AgentClient",
    "AgentClientError",
    "AgentError",
    "AgentPlanRejected",
    "AgentResultError",
    "AgentTimeout",
    "AgentTransport",
    "AgentUnreachable",
    "RecordingAgent",
    "result_value",
]


def __getattr__(name: str) -> Any:
    if name == "AgentClient":
        from laguna.agent.client import AgentClient

        return AgentClient
    raise AttributeError(f"module 'laguna.agent' has no attribute {name!r}")
