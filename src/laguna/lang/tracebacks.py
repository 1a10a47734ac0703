"""Python errors as MuranoPL sees them: a :class:`MuranoPlError` with the
MuranoPL stack (class, method, place, instruction of every frame)."""

from __future__ import annotations

from yaql.language import exceptions as yaql_exceptions

from laguna.lang import errors
from laguna.lang.scope import Frame
from laguna.yaql.engine import DEFAULT_LIMITS


#: what a LimitExceededError says when Python itself ran out of memory
MEMORY_ERROR_DETAIL = "an allocation the process could not make"


def stack_frames(frame: Frame | None) -> list[errors.StackFrame]:
    """The MuranoPL stack up to ``frame``, outermost call first."""
    frames = []
    while frame is not None:
        method = frame.method
        frames.append(errors.StackFrame(
            method.declaring_type.name if method is not None else frame.cls.name,
            method.name if method is not None else None, frame.span, frame.instruction))
        frame = frame.caller
    frames.reverse()
    return frames


#: how yaql names the function of a property read it found no definition of
_PROPERTY_FUNCTION = 'Unknown function "#property#'


def to_murano_error(exc: BaseException, frame: Frame | None) -> errors.MuranoPlError:
    """``exc`` raised while ``frame`` ran, as a MuranoPL error; the sandbox's
    own limits (Python recursion and memory, yaql's collection and memory
    limits) become LimitExceededError, said to happen at the frame's
    instruction."""
    if isinstance(exc, errors.MuranoPlError):
        return exc
    limits = frame.executor.limits if frame is not None else DEFAULT_LIMITS
    if isinstance(exc, RecursionError):
        exc = errors.LimitExceededError("call_depth", limits.call_depth, "calls",
                                        "Python recursion (too deeply nested data)")
    elif isinstance(exc, yaql_exceptions.CollectionTooLargeException):
        exc = errors.LimitExceededError("iterators", limits.iterators, "items",
                                        f"a collection of more than {limits.iterators} items")
    elif isinstance(exc, yaql_exceptions.MemoryQuotaExceededException):
        exc = errors.LimitExceededError("memory_quota", limits.memory_quota, "bytes",
                                        "an argument or a result of a yaql function")
    elif isinstance(exc, MemoryError):
        # no check stopped it: the process itself ran out (a gap in the limits)
        exc = errors.LimitExceededError("memory_quota", limits.memory_quota, "bytes",
                                        MEMORY_ERROR_DETAIL)
    elif isinstance(exc, yaql_exceptions.NoFunctionRegisteredException) \
            and str(exc).startswith(_PROPERTY_FUNCTION):
        # yaql reads `a.b` as the property b of a: say so, not its internal name
        name = str(exc)[len(_PROPERTY_FUNCTION):].rstrip('"')
        exc = yaql_exceptions.NoFunctionRegisteredException(f"#property#{name}")
        exc.args = (f'Unknown property "{name}": `.{name}` reads a property, and '
                    "the value before it has none of that name (a class name with "
                    "dots is written ns:Name or in quotes)",)
    if isinstance(exc, errors.LimitExceededError) and frame is not None and frame.span:
        exc = exc.located(f"{frame.span.source}:{frame.span.line}")
    error = errors.MuranoPlError(errors.murano_names(exc), _message(exc), stack_frames(frame))
    error.original = exc
    return error


def _message(exc: BaseException) -> str:
    """The exception's text; a yaql WrappedException without one says what it
    wraps (``list().first()`` raises a bare StopIteration: the user saw an empty
    message where the cause was an empty sequence)."""
    text = str(exc)
    wrapped = getattr(exc, "wrapped", None)
    if text or not isinstance(exc, yaql_exceptions.WrappedException) or wrapped is None:
        return text
    inner = str(wrapped)
    if isinstance(wrapped, StopIteration):
        return "StopIteration: no item in an empty sequence (first(), single() or next() " \
               "of nothing)" + (f": {inner}" if inner else "")
    return f"{type(wrapped).__name__}" + (f": {inner}" if inner else "")


__all__ = ["MEMORY_ERROR_DETAIL", "stack_frames", "to_murano_error"]
