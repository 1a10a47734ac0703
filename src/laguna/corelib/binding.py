"""Helpers the core library's native classes share: the Python state behind
an object, who called a native, a property's value (native methods are
declared with :func:`laguna.corelib.declare.native`)."""

from __future__ import annotations

import threading
import typing as t

from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

S = t.TypeVar("S")
# pselect runs MuranoPL code in threads: two of them reaching an object's
# natives first at once must share one state, not each make its own
_state_lock = threading.Lock()


def state(this: MuranoObject, factory: t.Callable[[MuranoObject], S]) -> S:
    """The Python object behind ``this`` (one per object and class), made on first use."""
    value = this.extension
    if value is None:
        with _state_lock:
            value = this.extension
            if value is None:
                value = factory(this)
                this.extension = value
    return t.cast(S, value)


def caller_class(frame: t.Any) -> MuranoClass:
    """The class whose code called the native running in ``frame``."""
    caller = frame.caller
    return t.cast(MuranoClass, caller.cls if caller is not None else frame.cls)


def prop(this: MuranoObject, name: str, default: t.Any = None) -> t.Any:
    """A declared property of ``this`` (read from the root object)."""
    value = this.real_this.values.get(name, default)
    return default if value is None else value
