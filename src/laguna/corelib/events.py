"""io.murano.applications.Event: the one native piece of the application
framework library, calling a subscriber's handler by name with the event's
arguments (MuranoPL has no spread of a list into a call)."""

from __future__ import annotations

import typing as t

from laguna.corelib.declare import REQUIRED, native
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

EVENT_CLASS = "io.murano.applications.Event"


def bind_event(cls: MuranoClass) -> None:
    def call(executor: t.Any, this: MuranoObject, frame: t.Any, receiver: MuranoObject,
             methodName: str, args: t.Any, kwargs: t.Any) -> t.Any:  # noqa: N803
        method = receiver.real_this.type.find_method(methodName)
        return executor.invoke(method, receiver, tuple(args or ()), dict(kwargs or {}),
                               frame)

    native(cls, "_call", call, [("receiver", REQUIRED), ("methodName", REQUIRED),
                                ("args", REQUIRED), ("kwargs", REQUIRED)])
