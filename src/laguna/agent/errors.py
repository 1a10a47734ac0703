"""Errors of the agent and of its client.

::

    LagunaError
     +-- AgentError                 root of this package
          +-- PlanError             the agent refuses a plan (murano-agent's IncorrectFormat)
          +-- PlanFailed            a plan ran and failed; carries the original's error code
          |    +-- ScriptFailed     a script exited non-zero under verifyExitcode
          |    +-- PlanTimeout      the plan's time ran out; its script was killed
          +-- AgentClientError      raised by AgentClient / RecordingAgent on the engine side
               +-- AgentTimeout     no result within the plan's timeout
               +-- AgentUnreachable the agent cannot be reached, or refused the request
               +-- AgentForgedAnswer an answer not signed with the host's secret
               +-- AgentPlanRejected the agent answered 400 (a PlanError on its side)
               +-- AgentResultError the plan ran and its result reports a failure

``PlanError.error_code`` and ``PlanFailed.error_code`` are murano-agent's
numbers (2: malformed plan, 9: unsupported format version, 100 + n: a script
failed, 1: anything else); they end up as ``ErrorCode`` of a result.
"""

from __future__ import annotations

from typing import Any

from laguna.agent.protocol import FORMAT_UNSUPPORTED, GENERIC_FAILURE, PLAN_MALFORMED
from laguna.errors import LagunaError


class AgentError(LagunaError):
    """Base class of the agent's errors."""

    code = "LAG-E1100"


class PlanError(AgentError):
    """A plan the agent will not run: malformed, unsupported or escaping its directory."""

    code = "LAG-E1101"

    def __init__(self, message: str, error_code: int = PLAN_MALFORMED) -> None:
        super().__init__(message)
        self.message = message
        self.error_code = error_code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, error_code={self.error_code})"


class PlanFailed(AgentError):
    """A plan that ran and failed; ``additional_info`` becomes ``Body.AdditionalInfo``."""

    code = "LAG-E1102"

    def __init__(self, message: str, error_code: int = GENERIC_FAILURE,
                 additional_info: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.error_code = error_code
        self.additional_info = additional_info

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, error_code={self.error_code})"


class ScriptFailed(PlanFailed):
    """A script returned a non-zero exit code and its plan asked to verify it."""

    code = "LAG-E1103"


class PlanTimeout(PlanFailed):
    """The plan's timeout passed while a script ran; the script was killed."""

    code = "LAG-E1104"

    def __init__(self, message: str, seconds: float, additional_info: Any = None) -> None:
        super().__init__(message, GENERIC_FAILURE, additional_info)
        self.seconds = seconds


class AgentClientError(AgentError):
    """Base class of what the engine side sees when talking to an agent."""

    code = "LAG-E1110"


class AgentTimeout(AgentClientError):
    """The agent gave no result within the plan's timeout."""

    code = "LAG-E1111"

    def __init__(self, plan_id: str | None, seconds: float) -> None:
        self.plan_id = plan_id
        self.seconds = seconds
        self.message = f"The agent did not respond within {seconds:g} seconds" + (
            f" (plan {plan_id})" if plan_id is not None else "")
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"AgentTimeout(plan_id={self.plan_id!r}, seconds={self.seconds!r})"


class AgentUnreachable(AgentClientError):
    """The agent's address does not answer (not started, gone, wrong token)."""

    code = "LAG-E1112"

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        self.message = f"The agent at {url} is unreachable: {reason}"
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"AgentUnreachable(url={self.url!r}, reason={self.reason!r})"


class AgentForgedAnswer(AgentClientError):
    """An answer whose signature is missing or wrong: not from the host's agent, or
    altered on the way. Nothing of it is used."""

    code = "LAG-E1115"

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        self.message = (f"The answer from {url} is not signed with the host's secret "
                        f"({reason}); it was not used")
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"AgentForgedAnswer(url={self.url!r}, reason={self.reason!r})"


class AgentPlanRejected(AgentClientError):
    """The agent refused a plan (HTTP 400); ``result`` is the original's error result."""

    code = "LAG-E1113"

    def __init__(self, message: str, error_code: int,
                 result: dict[str, Any] | None = None) -> None:
        self.message = message
        self.error_code = error_code
        self.result = result
        super().__init__(message)

    def __repr__(self) -> str:
        return f"AgentPlanRejected({self.message!r}, error_code={self.error_code})"


class AgentResultError(AgentClientError):
    """A result reporting a failure; ``info`` is the original engine's AgentException data.

    v2: ``{message, details, errorCode, time, extra}``; v1: ``{type, message,
    command, details, timestamp, source}`` (see laguna.agent.reading).
    """

    code = "LAG-E1114"

    def __init__(self, info: dict[str, Any]) -> None:
        self.info = info
        message = info.get("message")
        self.message = str(message) if message is not None else "the agent reported an error"
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"AgentResultError({self.info!r})"
