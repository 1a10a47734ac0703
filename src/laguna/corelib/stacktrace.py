"""Native methods of io.murano.StackTrace and io.murano.Exception.

MuranoPL sees a caught exception (`Catch: As: e`) as an io.murano.Exception
with ``name``, ``message``, ``extra`` and ``stackTrace``, an io.murano.StackTrace
whose ``frames`` are dicts of ``instruction``, ``location`` (``file:line:col``),
``methodName`` and ``typeName``, outermost first. ``new(io.murano.StackTrace)``
captures the stack of the code calling new().
"""

from __future__ import annotations

import typing as t

from laguna.corelib.declare import native
from laguna.lang import dispatch
from laguna.lang.errors import MuranoPlError, StackFrame
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass
from laguna.source import Span


def frame_dicts(frames: t.Sequence[StackFrame]) -> tuple[t.Any, ...]:
    """Engine stack frames as the ``frames`` of an io.murano.StackTrace."""
    return t.cast(tuple[t.Any, ...], dispatch.freeze([
        {"instruction": f.instruction, "location": str(f.span) if f.span else None,
         "methodName": f.method_name, "typeName": f.class_name} for f in frames]))


def _stack_frame(frame: t.Any) -> StackFrame:
    """A ``frames`` entry back as an engine frame, to print it the same way."""
    location = frame.get("location")
    span = None
    if location is not None:
        source, _, rest = str(location).rpartition(":")
        source, _, line = source.rpartition(":")
        if source and line.isdigit() and rest.isdigit():
            span = Span(source, int(line), int(rest))
        else:
            span = Span(str(location), 0, 0)
    return StackFrame(frame.get("typeName"), frame.get("methodName"), span,
                      frame.get("instruction"))


def format_frames(frames: t.Sequence[t.Any], prefix: str = "") -> str:
    """``frames`` of a StackTrace as text, one `File ... in method ...` pair each."""
    lines = []
    for frame in frames:
        entry = _stack_frame(frame)
        if entry.span is not None and entry.span.line == 0:
            # a location that is not file:line:col, e.g. set by MuranoPL code
            method = entry.method_name or "<unknown>"
            if entry.class_name:
                method += " of type " + entry.class_name
            lines.append(f'{prefix}File "{entry.span.source}" in method {method}\n'
                         f"{prefix}    {entry.instruction or ''}")
        else:
            lines.append(entry.format(prefix))
    return "\n".join(lines)


def format_exception(exception: MuranoObject, prefix: str = "") -> str:
    """An io.murano.Exception as laguna prints an uncaught one: the name, the
    message, the MuranoPL stack and the chain of causes."""
    values = exception.real_this.values
    native_error = values.get("nativeException")
    if isinstance(native_error, MuranoPlError):
        return native_error.format(prefix)
    trace = values.get("stackTrace")
    frames = trace.real_this.values.get("frames", ()) if isinstance(trace, MuranoObject) else ()
    return (f"{prefix}{values.get('name')}: {values.get('message')}\n"
            f"{prefix}Traceback (most recent call last):\n"
            f"{format_frames(frames or (), prefix + '  ')}")


def _stack_trace_natives(cls: MuranoClass) -> None:
    def init(executor: t.Any, this: MuranoObject, frame: t.Any) -> None:
        # the frames of whoever called new(); an exception's trace is filled in
        # by the engine afterwards (Executor.exception_object)
        root = this.real_this
        if "frames" not in root.values:
            root.values["frames"] = frame_dicts(executor.stack_frames(frame.caller))

    def to_string(executor: t.Any, this: MuranoObject, frame: t.Any,
                  prefix: t.Any = "") -> str:
        """The trace as text: `File "f.yaml", line 3:7 in method m of type T`
        and the instruction below it, for each frame, outermost first."""
        return format_frames(this.real_this.values.get("frames") or (), str(prefix or ""))

    native(cls, ".init", init, [])
    native(cls, "toString", to_string, [("prefix", "")])


def _exception_natives(cls: MuranoClass) -> None:
    def to_string(executor: t.Any, this: MuranoObject, frame: t.Any) -> str:
        """The exception as text: `name: message`, then its MuranoPL stack."""
        return format_exception(this)

    native(cls, "toString", to_string, [])


def bind_exceptions(bind: t.Callable[[str, t.Callable[[MuranoClass], None]], None]) -> None:
    """Bind the natives of io.murano.StackTrace and io.murano.Exception."""
    bind("io.murano.StackTrace", _stack_trace_natives)
    bind("io.murano.Exception", _exception_natives)


__all__ = ["bind_exceptions", "format_exception", "format_frames", "frame_dicts"]
