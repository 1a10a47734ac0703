"""How the engine reaches an agent: the ``AgentTransport`` protocol and its fake.

``AgentClient`` (HTTP, ``laguna.agent.client``) is the real transport;
``RecordingAgent`` stands in for it in unit tests and dry runs.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, runtime_checkable

from laguna.agent.plan import is_v1
from laguna.agent.results import ResultFactory, v1_result


class Track(NamedTuple):
    """Whose plan it is: what it leaves on the host is recorded as ``component``'s,
    with ``files`` (paths where the plan puts files, absolute or from the host's
    home) beside what it is seen to write (docs/AGENT.md, "Drift")."""

    component: str
    files: tuple[str, ...] = ()


@runtime_checkable
class AgentTransport(Protocol):
    def health(self) -> dict[str, Any]:
        """``{"name": ..., "status": "ready"}`` once the agent takes plans."""
        ...

    def execute(self, plan: dict[str, Any], timeout: float, *,
                track: Track | None = None) -> dict[str, Any]:
        """Run ``plan`` within ``timeout`` seconds and return murano-agent's result document.

        Raises ``AgentTimeout``, ``AgentUnreachable`` or ``AgentPlanRejected``.
        """
        ...

    def drift(self) -> dict[str, Any]:
        """Per component tracked on the host: ``{"tracked": {...}, "drift": [...]}``."""
        ...


Answer = dict[str, Any] | Exception


class RecordingAgent:
    """A fake agent: keeps every plan it gets, in order, and answers without running anything.

    Answers come from ``then(...)`` (in order; an exception is raised), else from
    ``answer(plan, timeout)`` when given, else an empty success: a v2 result whose
    ``Body`` is ``None`` (``ID`` ``result-1``, ``result-2``..., ``Time``
    1970-01-01 00:00:00) or, for a v1 plan, ``{"IsException": false, "Result": []}``.
    """

    def __init__(self, name: str = "fake",
                 answer: Callable[[dict[str, Any], float], dict[str, Any]] | None = None) -> None:
        self.name = name
        self.plans: list[dict[str, Any]] = []
        self.timeouts: list[float] = []
        self.tracks: list[Track | None] = []
        self._answer = answer
        self._queued: list[Answer] = []
        counter = iter(range(1, 1 << 62))
        self._results = ResultFactory(clock=lambda: datetime.datetime(1970, 1, 1),
                                      new_id=lambda: f"result-{next(counter)}")

    def then(self, *answers: Answer) -> RecordingAgent:
        """Queue answers for the next plans: a result is returned, an exception raised."""
        self._queued.extend(answers)
        return self

    def health(self) -> dict[str, Any]:
        return {"name": self.name, "status": "ready"}

    def drift(self) -> dict[str, Any]:
        """Nothing ran: nothing is tracked."""
        return {}

    def execute(self, plan: dict[str, Any], timeout: float, *,
                track: Track | None = None) -> dict[str, Any]:
        self.plans.append(copy.deepcopy(plan))
        self.timeouts.append(timeout)
        self.tracks.append(track)
        if self._queued:
            answer = self._queued.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer
        if self._answer is not None:
            return self._answer(plan, timeout)
        if is_v1(plan):
            return v1_result([])
        return self._results.success(plan.get("ID"), None)
