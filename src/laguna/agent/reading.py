"""What a result document means to the engine, read as Murano's engine read it.

``result_value`` returns the value of a successful result and raises
``AgentResultError`` for a failed one; ``AgentResultError.info`` is exactly the
dict the original engine put into its MuranoPL ``AgentException``
(``murano/engine/system/agent.py``: ``_process_v2_result``, ``_process_v1_result``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from laguna.agent.errors import AgentResultError


def result_value(result: dict[str, Any] | None,
                 now: Callable[[], datetime.datetime] = datetime.datetime.now) -> Any:
    """The value of a result: v2 ``Body``, or the last v1 command's ``Result``."""
    if not result:
        return None
    if str(result.get("FormatVersion", "1.0.0")).startswith("1."):
        return _v1_value(result, now)
    return _v2_value(result)


def _v2_value(result: dict[str, Any]) -> Any:
    error_code = result.get("ErrorCode", 0)
    if not error_code:
        return result.get("Body")
    body = dict(result.get("Body") or {})
    info = {
        "message": body.pop("Message", None),
        "details": body.pop("AdditionalInfo", None),
        "errorCode": error_code,
        "time": result.get("Time"),
        "extra": body or None,
    }
    raise AgentResultError(info)


def _v1_value(result: dict[str, Any], now: Callable[[], datetime.datetime]) -> Any:
    if result.get("IsException"):
        raise AgentResultError(_v1_info(result.get("Result"), "execution_plan", now))
    commands = result.get("Result") or []
    # The original indexed the last command even when there was none (an IndexError).
    if not commands:
        return None
    last = commands[-1]
    if last.get("IsException"):
        raise AgentResultError(_v1_info(last.get("Result"), "command", now))
    return last.get("Result")


def _v1_info(data: Any, source: str,
             now: Callable[[], datetime.datetime]) -> dict[str, Any]:
    items = list(data) if isinstance(data, list) else []
    items += [None] * (4 - len(items))
    return {"type": items[0], "message": items[1], "command": items[2], "details": items[3],
            "timestamp": now().isoformat(), "source": source}
