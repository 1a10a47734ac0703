"""Native methods of core classes (io.murano.Object, io.murano.test.TestFixture).

Each native method gets ``(executor, this, frame, **arguments)``; its
arguments are declared like MuranoPL ones so calls bind the same way.
"""

from __future__ import annotations

import typing as t

from laguna.corelib.agent import AGENT_CLASS, LISTENER_CLASS, bind_agent, bind_listener
from laguna.corelib.declare import REQUIRED, native
from laguna.corelib.events import EVENT_CLASS, bind_event
from laguna.corelib.gc import GC_CLASS, bind_gc
from laguna.corelib.heat import HEAT_CLASS, bind_heat_stack
from laguna.corelib.logger import LOGGER_CLASS, bind_logger
from laguna.corelib.network import EXPLORER_CLASS, bind_explorer
from laguna.corelib.reporter import NOTIFIER_CLASS, REPORTER_CLASS, bind_notifier, bind_reporter
from laguna.corelib.resources import RESOURCES_CLASS, bind_resources
from laguna.corelib.stacktrace import bind_exceptions
from laguna.lang import dispatch
from laguna.lang.classes import ClassRegistry
from laguna.lang.errors import DslError
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

class AssertionFailed(DslError):
    """A TestFixture assertion did not hold."""

    code = "LAG-E0500"
    murano_name = "AssertionError"


def _owner_type(executor: t.Any, frame: t.Any, owner: t.Any) -> MuranoClass:
    if owner is None:
        caller = frame.caller
        cls: MuranoClass = caller.cls if caller is not None else frame.cls
        return cls
    return dispatch.to_type(_FrameScope(frame), owner)


class _FrameScope:
    def __init__(self, frame: t.Any) -> None:
        self.frame = frame


def _object_natives(cls: MuranoClass) -> None:
    def set_attr(executor: t.Any, this: MuranoObject, frame: t.Any, name: str, value: t.Any,
                 owner: t.Any = None) -> None:
        executor.set_attr(this.real_this, _owner_type(executor, frame, owner), name, value)

    def get_attr(executor: t.Any, this: MuranoObject, frame: t.Any, name: str,
                 default: t.Any = None, owner: t.Any = None) -> t.Any:
        value = executor.get_attr(this.real_this, _owner_type(executor, frame, owner), name)
        return default if value is None else value

    native(cls, "setAttr", set_attr, [("name", REQUIRED), ("value", REQUIRED), ("owner", None)])
    native(cls, "getAttr", get_attr, [("name", REQUIRED), ("default", None), ("owner", None)])


def _describe(value: t.Any) -> str:
    return repr(dispatch.thaw(value))


def _fixture_natives(cls: MuranoClass) -> None:
    def fail(message: t.Any, default: str) -> t.NoReturn:
        raise AssertionFailed(f"{message}: {default}" if message else default)

    def assert_equal(executor: t.Any, this: t.Any, frame: t.Any, expected: t.Any,
                     observed: t.Any, message: t.Any = None) -> None:
        if expected != observed:
            fail(message, f"{_describe(expected)} != {_describe(observed)}")

    def assert_true(executor: t.Any, this: t.Any, frame: t.Any, expr: t.Any,
                    message: t.Any = None) -> None:
        if not expr:
            fail(message, f"{_describe(expr)} is not true")

    def assert_false(executor: t.Any, this: t.Any, frame: t.Any, expr: t.Any,
                     message: t.Any = None) -> None:
        if expr:
            fail(message, f"{_describe(expr)} is not false")

    def assert_in(executor: t.Any, this: t.Any, frame: t.Any, needle: t.Any, haystack: t.Any,
                  message: t.Any = None) -> None:
        if needle not in haystack:
            fail(message, f"{_describe(needle)} not found in {_describe(haystack)}")

    def assert_not_in(executor: t.Any, this: t.Any, frame: t.Any, needle: t.Any,
                      haystack: t.Any, message: t.Any = None) -> None:
        if needle in haystack:
            fail(message, f"{_describe(needle)} unexpectedly found in {_describe(haystack)}")

    def load(executor: t.Any, this: t.Any, frame: t.Any, model: t.Any) -> t.Any:
        return executor.load_model(dispatch.thaw(model))

    native(cls, "assertEqual", assert_equal,
           [("expected", REQUIRED), ("observed", REQUIRED), ("message", None)])
    native(cls, "assertTrue", assert_true, [("expr", REQUIRED), ("message", None)])
    native(cls, "assertFalse", assert_false, [("expr", REQUIRED), ("message", None)])
    native(cls, "assertIn", assert_in,
           [("needle", REQUIRED), ("haystack", REQUIRED), ("message", None)])
    native(cls, "assertNotIn", assert_not_in,
           [("needle", REQUIRED), ("haystack", REQUIRED), ("message", None)])
    native(cls, "load", load, [("model", REQUIRED)])


def bind_natives(registry: ClassRegistry) -> None:
    registry.bind_native("io.murano.Object", _object_natives)
    registry.bind_native("io.murano.test.TestFixture", _fixture_natives)
    registry.bind_native(LOGGER_CLASS, bind_logger)
    bind_exceptions(registry.bind_native)
    registry.bind_native(GC_CLASS, bind_gc)
    registry.bind_native(RESOURCES_CLASS, bind_resources)
    registry.bind_native(REPORTER_CLASS, bind_reporter)
    registry.bind_native(NOTIFIER_CLASS, bind_notifier)
    registry.bind_native(HEAT_CLASS, bind_heat_stack)
    registry.bind_native(AGENT_CLASS, bind_agent)
    registry.bind_native(LISTENER_CLASS, bind_listener)
    registry.bind_native(EXPLORER_CLASS, bind_explorer)
    registry.bind_native(EVENT_CLASS, bind_event)
