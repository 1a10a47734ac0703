"""Python errors as MuranoPL sees them: a :class:`MuranoPlError` with the
MuranoPL stack (class, method, place, instruction of every frame)."""

from __future__ import annotations

from yaql.language import exceptions as yaql_exceptions

from laguna.lang import errors
from laguna.lang.scope import Frame


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


def to_murano_error(exc: BaseException, frame: Frame | None) -> errors.MuranoPlError:
    """``exc`` raised while ``frame`` ran, as a MuranoPL error; the sandbox's
    own limits (Python recursion, yaql's collection and memory limits) become
    LimitExceededError."""
    if isinstance(exc, errors.MuranoPlError):
        return exc
    if isinstance(exc, RecursionError):
        exc = errors.LimitExceededError("maximum recursion depth exceeded")
    if isinstance(exc, yaql_exceptions.CollectionTooLargeException):
        exc = errors.LimitExceededError(str(exc) or "collection size limit exceeded")
    if isinstance(exc, yaql_exceptions.MemoryQuotaExceededException):
        exc = errors.LimitExceededError("memory quota exceeded")
    error = errors.MuranoPlError(errors.murano_names(exc), str(exc), stack_frames(frame))
    error.original = exc
    return error


__all__ = ["stack_frames", "to_murano_error"]
