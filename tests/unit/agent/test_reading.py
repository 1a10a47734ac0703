"""Results read the way Murano's engine read them: values, or AgentException data."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from laguna.agent import AgentResultError, result_value


def now() -> datetime.datetime:
    return datetime.datetime(2026, 1, 2, 3, 4, 5)


def failure(result: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(AgentResultError) as info:
        result_value(result, now)
    return info.value.info


def test_v2_success_is_its_body() -> None:
    assert result_value({"FormatVersion": "2.0.0", "ErrorCode": 0, "Body": [1, "a"]}) == [1, "a"]


def test_v2_error_becomes_agent_exception_data() -> None:
    result = {"FormatVersion": "2.0.0", "ErrorCode": 100, "Time": "2026-01-02 03:04:05",
              "Body": {"Message": "Script deploy returned error code",
                       "AdditionalInfo": {"exitCode": 1, "stdout": None, "stderr": "x"}}}
    assert failure(result) == {
        "message": "Script deploy returned error code",
        "details": {"exitCode": 1, "stdout": None, "stderr": "x"},
        "errorCode": 100, "time": "2026-01-02 03:04:05", "extra": None}
    assert result["Body"]["Message"] == "Script deploy returned error code"


def test_v2_error_keeps_other_body_keys_as_extra() -> None:
    assert failure({"FormatVersion": "2.0.0", "ErrorCode": 1, "Body": {"Message": "m",
                                                                       "Hint": "h"}}) == {
        "message": "m", "details": None, "errorCode": 1, "time": None, "extra": {"Hint": "h"}}


def test_v1_success_is_the_last_commands_result() -> None:
    assert result_value({"IsException": False, "Result": [
        {"IsException": False, "Result": ["a"]}, {"IsException": False, "Result": ["b"]}]}) == [
        "b"]
    assert result_value({"IsException": False, "Result": []}) is None
    assert result_value(None) is None


def test_v1_failed_command_and_failed_plan() -> None:
    command = ["laguna.agent.CommandFailed", "Command f returned exit code 4", "f", {"x": 1}]
    assert failure({"IsException": False, "Result": [{"IsException": True,
                                                      "Result": command}]}) == {
        "type": "laguna.agent.CommandFailed", "message": "Command f returned exit code 4",
        "command": "f", "details": {"x": 1}, "timestamp": "2026-01-02T03:04:05",
        "source": "command"}
    assert failure({"IsException": True, "Result": ["T", "broken"]}) == {
        "type": "T", "message": "broken", "command": None, "details": None,
        "timestamp": "2026-01-02T03:04:05", "source": "execution_plan"}
