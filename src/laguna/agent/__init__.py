"""laguna's agent: runs murano-agent execution plans on a host, and the engine's client.

The agent side (``laguna-agent``: ``main``, ``server``, ``executor``, ``plan``,
``body``, ``process``, ``workspace``, ``results``) uses only the standard
library and knows nothing of MuranoPL. The engine side is ``AgentClient``
(HTTP, needs httpx), the ``AgentTransport`` protocol and its fake
``RecordingAgent``. See docs/AGENT.md.

Every name below is imported when first asked for: the agent's program
imports this package before ``laguna.agent.main``, and its start must not pay
for the engine's side (errors, plans, http.client through httpx...).
"""

from __future__ import annotations

import importlib

# typing itself costs the agent's start ~20 ms; mypy reads any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from laguna.agent.client import AgentClient
    from laguna.agent.errors import (
        AgentClientError,
        AgentError,
        AgentForgedAnswer,
        AgentPlanRejected,
        AgentResultError,
        AgentTimeout,
        AgentUnreachable,
    )
    from laguna.agent.reading import result_value
    from laguna.agent.transport import AgentTransport, RecordingAgent, Track

__all__ = [
    "AgentClient",
    "AgentClientError",
    "AgentError",
    "AgentForgedAnswer",
    "AgentPlanRejected",
    "AgentResultError",
    "AgentTimeout",
    "AgentTransport",
    "AgentUnreachable",
    "RecordingAgent",
    "Track",
    "result_value",
]

_HOMES = {
    "AgentClient": "client", "AgentClientError": "errors", "AgentError": "errors",
    "AgentForgedAnswer": "errors",
    "AgentPlanRejected": "errors", "AgentResultError": "errors", "AgentTimeout": "errors",
    "AgentTransport": "transport", "AgentUnreachable": "errors",
    "RecordingAgent": "transport", "Track": "transport", "result_value": "reading",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'laguna.agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"laguna.agent.{home}"), name)
    globals()[name] = value  # asked once, then an ordinary attribute
    return value
