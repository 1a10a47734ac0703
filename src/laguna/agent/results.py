"""The result documents murano-agent sent back, built with an injectable clock and ids.

v2 (what ``Agent._process_v2_result`` of the original engine reads)::

    {"FormatVersion": "2.0.0", "ID": <new hex id>, "SourceID": <plan ID>,
     "Action": "Execution:Result", "ErrorCode": 0, "Body": <what Body returned>,
     "Time": "2026-11-23 08:00:00.000001"}

an error has ``ErrorCode`` > 0 and ``Body`` ``{"Message": ..., "AdditionalInfo": ...}``.

v1 (the Windows agent's, read by ``_process_v1_result``)::

    {"IsException": false, "Result": [{"IsException": false, "Result": [...]}, ...]}

a failed command is ``{"IsException": true, "Result": [type, message, command, details]}``.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from typing import Any


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def hex_id() -> str:
    """32 random hex digits, the shape of ``uuid.uuid4().hex`` the original used."""
    return os.urandom(16).hex()


class ResultFactory:
    def __init__(self, clock: Callable[[], datetime.datetime] = _utcnow,
                 new_id: Callable[[], str] = hex_id) -> None:
        self.clock = clock
        self.new_id = new_id

    def success(self, plan_id: str | None, body: Any) -> dict[str, Any]:
        return self._result(plan_id, 0, body)

    def error(self, plan_id: str | None, error_code: int, message: str,
              additional_info: Any = None) -> dict[str, Any]:
        return self._result(plan_id, error_code,
                            {"Message": message, "AdditionalInfo": additional_info})

    def _result(self, plan_id: str | None, error_code: int, body: Any) -> dict[str, Any]:
        return {
            "FormatVersion": "2.0.0",
            "ID": self.new_id(),
            "SourceID": plan_id,
            "Action": "Execution:Result",
            "ErrorCode": error_code,
            "Body": body,
            "Time": str(self.clock()),
        }


def v1_result(commands: list[dict[str, Any]]) -> dict[str, Any]:
    return {"IsException": False, "Result": commands}


def v1_command_ok(lines: list[str]) -> dict[str, Any]:
    return {"IsException": False, "Result": lines}


def v1_exception(kind: str, message: str, command: str | None = None,
                 details: Any = None) -> dict[str, Any]:
    return {"IsException": True, "Result": [kind, message, command, details]}
