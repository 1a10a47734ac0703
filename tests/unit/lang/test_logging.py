"""logger(name): what Python logging receives from MuranoPL code.

The MuranoPL side lives in the conformance package `logging`; these tests run
its methods again and check each record's logger name, level and text.
"""

from __future__ import annotations

import logging
import pathlib

import pytest

from laguna.corelib.logger import MURANOPL_RECORD, TRACE, MuranoPlRecords, python_logger
from laguna.lang.executor import Executor
from laguna.testing.runner import TestRunner as PackageRunner

PACKAGE = (pathlib.Path(__file__).resolve().parents[2]
           / "conformance" / "muranopl" / "packages" / "logging")
FIXTURE = "conformance.logging.LoggingTests"


def run(method: str) -> None:
    runner = PackageRunner(PACKAGE)
    executor = Executor(runner.registry)
    fixture = executor.new_object(runner.registry.find(FIXTURE, runner.package.package),
                                  None, {})
    executor.call(fixture, method)


def records(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    return [(r.name, r.levelname, r.getMessage()) for r in caplog.records
            if getattr(r, MURANOPL_RECORD, False)]


def test_trace_is_a_level_below_debug() -> None:
    assert TRACE == 5
    assert logging.getLevelName(TRACE) == "TRACE"


def test_python_logger_is_the_logger_of_that_name() -> None:
    assert python_logger("io.murano.apps.Foo") is logging.getLogger("io.murano.apps.Foo")


def test_each_level_method_logs_at_its_level(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(1)
    run("testEveryLevelMethodReturnsNull")
    name = "conformance.logging.levels"
    assert records(caplog) == [
        (name, "TRACE", "a trace message"),
        (name, "DEBUG", "a debug message"),
        (name, "INFO", "an info message"),
        (name, "WARNING", "a warning message"),
        (name, "ERROR", "an error message"),
        (name, "CRITICAL", "a critical message"),
    ]
    assert [r.levelno for r in caplog.records] == [5, 10, 20, 30, 40, 50]


def test_levels_below_the_threshold_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    run("testEveryLevelMethodReturnsNull")
    assert [level for _, level, _ in records(caplog)] == ["WARNING", "ERROR", "CRITICAL"]


def test_messages_follow_format_rules(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    run("testFormatArguments")
    name = "conformance.logging.format"
    assert records(caplog) == [
        (name, "INFO", "print my info message deployed"),
        (name, "INFO", "2 of 3 done, 1 left"),
        (name, "INFO", "unused arguments are ignored"),
    ]


def test_missing_argument_warns_and_logs_the_message_as_written(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    run("testMissingArgumentDoesNotRaise")
    name = "conformance.logging.missing"
    assert records(caplog) == [
        (name, "WARNING", "Can not format string: str {message}{0}"),
        (name, "INFO", "str {message}{0}"),
    ]


def test_logger_named_after_the_class(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    run("testLoggerUsedByAnotherClass")
    assert records(caplog) == [
        ("conformance.logging.Worker", "INFO", "working on disk")]


def test_exception_logs_name_message_and_murano_stack(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    run("testExceptionLogsCaughtException")
    assert records(caplog) == [(
        "conformance.logging.exception", "ERROR",
        'something bad happened, "cannot work"\n'
        "conformance.logging.workFailed: cannot work\n"
        "Traceback (most recent call last):\n"
        '  File "Classes/LoggingTests.yaml", line 51:13 in method '
        "testExceptionLogsCaughtException of type conformance.logging.LoggingTests\n"
        "      new(Worker).fail()\n"
        '  File "Classes/Worker.yaml", line 28:9 in method fail of type '
        "conformance.logging.Worker\n"
        "      Throw workFailed: cannot work")]


def test_a_deployment_log_is_one_filtered_handler_on_the_root_logger() -> None:
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    handler = Collect(level=logging.INFO)
    handler.addFilter(MuranoPlRecords())
    parent = logging.getLogger()
    parent.addHandler(handler)
    previous = parent.level
    parent.setLevel(logging.INFO)
    try:
        run("testLoggerUsedByAnotherClass")
        # host code logging under the same name is not part of the deployment's log
        logging.getLogger("conformance.logging.Worker").warning("host code, not MuranoPL")
    finally:
        parent.removeHandler(handler)
        parent.setLevel(previous)
    assert seen == ["INFO conformance.logging.Worker: working on disk"]
