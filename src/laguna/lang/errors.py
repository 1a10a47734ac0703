"""Errors of the MuranoPL engine.

::

    LagunaError
     +-- SourceError
     |    +-- ClassLoadError           a class definition is malformed
     |         +-- MissingClassReference   Extends/Import name no class
     |         +-- InvalidClassReference   Extends/Import write no type name
     +-- MuranoPlError                 a MuranoPL exception (user-visible)
     +-- DslError                      an engine-detected fault at run time;
          |                            surfaces in MuranoPL as an exception whose
          |                            name is ``murano_name``
          +-- ContractViolationException
          +-- NoClassFound, NoMethodFound, AmbiguousMethodName, NoPropertyFound
          +-- PropertyReadError, PropertyWriteError, NoWriteAccessError,
          |   UninitializedPropertyAccessError
          +-- NoObjectFoundError, ObjectDestroyedError, MethodNotExposed
          +-- DslInvalidOperationError (InvalidAssignmentError, RethrowOutsideCatchError),
          |   LimitExceededError
          +-- InvalidTypeName, NoSuchSetting, DecryptionUnavailable, SecretNotFound

The names MuranoPL code catches (``Catch: With: ...``) are those the original
engine used, so packages written for it keep working.
"""

from __future__ import annotations

import typing as t

from laguna.errors import LagunaError, SourceError
from laguna.source import Span

MURANO_EXC = "murano.dsl.exceptions."


class ClassLoadError(SourceError):
    """A class definition that cannot be loaded (wrong key, bad value)."""

    code = "LAG-E0200"
    #: problems found beside this one, which is the first: a block's instructions
    #: are each checked, so that `laguna package check` lists them all
    others: tuple[ClassLoadError, ...] = ()

    def every(self) -> list[ClassLoadError]:
        return [self, *self.others]


class MissingClassReference(ClassLoadError):
    """`Extends` or `Import` names a class that is not found; MuranoPL code that
    uses the class sees the original engine's `NoClassFound`."""

    code = "LAG-E0242"
    murano_name = "murano.dsl.exceptions.NoClassFound"


class InvalidClassReference(ClassLoadError):
    """`Extends` or `Import` writes something that is not a type name (`=:Name`);
    named `ValueError` in MuranoPL, as the original engine raised it."""

    code = "LAG-E0243"
    murano_name = "ValueError"


class DslError(LagunaError):
    """An error the engine raises while running MuranoPL code."""

    code = "LAG-E0300"
    murano_name = MURANO_EXC + "DslError"


class ContractViolationException(DslError):
    """A value does not satisfy a contract."""

    code = "LAG-E0301"
    murano_name = MURANO_EXC + "ContractViolationException"

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.target: str | None = None
        self.contract: str | None = None
        self.declared_at: Span | None = None   # where the property or argument is declared

    def __str__(self) -> str:
        text = self.message
        if self.target:
            where = self.target + self.path
            text = f"{where}: {text}"
        if self.contract:
            text += f" (contract: {self.contract})"
        return text


class NoClassFound(DslError):
    code = "LAG-E0302"
    murano_name = MURANO_EXC + "NoClassFound"

    def __init__(self, name: str) -> None:
        super().__init__(f'Class "{name}" is not found')
        self.name = name


class NoMethodFound(DslError):
    code = "LAG-E0303"
    murano_name = MURANO_EXC + "NoMethodFound"

    def __init__(self, name: str, type_name: str | None = None) -> None:
        where = f" in class {type_name}" if type_name else ""
        super().__init__(f'Method "{name}" is not found{where}')


class AmbiguousMethodName(DslError):
    code = "LAG-E0304"
    murano_name = MURANO_EXC + "AmbiguousMethodName"

    def __init__(self, name: str) -> None:
        super().__init__(f'Found more than one method "{name}"')


class NoPropertyFound(DslError):
    code = "LAG-E0305"
    murano_name = MURANO_EXC + "NoPropertyFound"

    def __init__(self, name: str) -> None:
        super().__init__(f'Property "{name}" is not found')


class AmbiguousPropertyNameError(DslError):
    code = "LAG-E0306"
    murano_name = MURANO_EXC + "AmbiguousPropertyNameError"

    def __init__(self, name: str) -> None:
        super().__init__(f'Found more than one property "{name}"')


class PropertyReadError(DslError):
    code = "LAG-E0307"
    murano_name = MURANO_EXC + "PropertyReadError"

    def __init__(self, name: str, class_name: str) -> None:
        super().__init__(f'Property "{name}" in class "{class_name}" cannot be read')


class PropertyWriteError(DslError):
    code = "LAG-E0308"
    murano_name = MURANO_EXC + "PropertyWriteError"

    def __init__(self, name: str, class_name: str) -> None:
        super().__init__(f'Property "{name}" in class "{class_name}" cannot be written')


class NoWriteAccessError(DslError):
    code = "LAG-E0309"
    murano_name = MURANO_EXC + "NoWriteAccessError"

    def __init__(self, name: str) -> None:
        super().__init__(f'Property "{name}" is immutable to the caller')


class UninitializedPropertyAccessError(DslError):
    code = "LAG-E0310"
    murano_name = MURANO_EXC + "UninitializedPropertyAccessError"

    def __init__(self, name: str, class_name: str) -> None:
        super().__init__(
            f'Access to uninitialized property "{name}" in class "{class_name}" is forbidden')


class NoObjectFoundError(DslError):
    code = "LAG-E0311"
    murano_name = MURANO_EXC + "NoObjectFoundError"

    def __init__(self, object_id: str) -> None:
        super().__init__(f'Object "{object_id}" is not found in object store')


class ObjectDestroyedError(DslError):
    code = "LAG-E0312"
    murano_name = MURANO_EXC + "ObjectDestroyedError"

    def __init__(self, obj: object) -> None:
        super().__init__(f"Object {obj} is already destroyed")


class MethodNotExposed(DslError):
    code = "LAG-E0313"
    murano_name = MURANO_EXC + "MethodNotExposed"


class DslInvalidOperationError(DslError):
    code = "LAG-E0314"
    murano_name = MURANO_EXC + "DslInvalidOperationError"


class InvalidAssignmentError(DslInvalidOperationError):
    """An assignment to `$` or `$this`; MuranoPL sees the original engine's name."""

    murano_name = "ValueError"


class RethrowOutsideCatchError(DslInvalidOperationError):
    """`Rethrow` with no exception being handled; named as the original engine named it."""

    murano_name = "TypeError"


class CircularExpressionDependenciesError(DslError):
    code = "LAG-E0315"
    murano_name = MURANO_EXC + "CircularExpressionDependenciesError"


class InvalidLhsTargetError(DslError):
    code = "LAG-E0316"
    murano_name = MURANO_EXC + "InvalidLhsTargetError"

    def __init__(self, target: str) -> None:
        super().__init__(f'Invalid assignment target "{target}"')


class NoMatchingMethod(DslError):
    """Arguments of a call do not fit the method's declared arguments."""

    code = "LAG-E0317"
    murano_name = "yaql.language.exceptions.NoMatchingMethodException"


class LimitExceededError(DslError):
    """A sandbox limit (``Limits``: time, call depth, collection size, memory,
    integer size) was about to be crossed; ``limit`` names it as settings do,
    ``value`` and ``unit`` give its value, ``detail`` says by what, and
    ``where`` (file:line, filled in when the error reaches the MuranoPL frame)
    which instruction crossed it."""

    code = "LAG-E0318"
    murano_name = "LimitExceededError"

    def __init__(self, limit: str, value: float, unit: str, detail: str = "",
                 where: str = "") -> None:
        self.limit = limit
        self.value = value
        self.unit = unit
        self.detail = detail
        self.where = where
        super().__init__(self.text())

    def text(self) -> str:
        message = f"{self.limit} limit of {self.value} {self.unit} exceeded"
        if self.detail:
            message += f" by {self.detail}"
        if self.where:
            message += f" at {self.where}"
        return message

    def located(self, where: str) -> LimitExceededError:
        """The same error, said to happen at ``where`` (file:line) if it has no place yet."""
        if self.where or not where:
            return self
        error = LimitExceededError(self.limit, self.value, self.unit, self.detail, where)
        error.__cause__ = self.__cause__
        return error


class ValueIsMissingError(DslError):
    code = "LAG-E0319"
    murano_name = MURANO_EXC + "ValueIsMissingError"


class InvalidTypeName(DslError):
    """A type name that is not one, e.g. `=:Name` (`=` only declares the
    default namespace); named as the original engine raised it."""

    code = "LAG-E0320"
    murano_name = "ValueError"

    def __init__(self, name: str) -> None:
        super().__init__(f'Invalid type name "{name}"')
        self.name = name


class NoSuchSetting(DslError):
    """`config()` asked for a setting the host does not have."""

    code = "LAG-E0321"
    murano_name = "oslo_config.cfg.NoSuchOptError"

    def __init__(self, setting: str, group: str) -> None:
        super().__init__(f"no such option {setting} in group [{group}]")
        self.setting = setting
        self.group = group


class DecryptionUnavailable(DslError):
    """`decryptData()` without a key manager; the original engine's error then."""

    code = "LAG-E0322"
    murano_name = "castellan.common.exception.AuthTypeInvalidError"


class SecretNotFound(DslError):
    """`decryptData()` of a reference the key manager does not know."""

    code = "LAG-E0323"
    murano_name = "castellan.common.exception.ManagedObjectNotFoundError"


class DeadlockError(DslError):
    """Threads of one run wait for each other's method calls in a circle
    (lang/synchronize.py): none could go on. The original engine hung; the
    thread that closes the circle fails with this instead, which frees the
    calls it holds."""

    code = "LAG-E0324"
    murano_name = "DeadlockError"


class StackFrame(t.NamedTuple):
    """One MuranoPL frame of a stack trace."""

    class_name: str | None
    method_name: str | None
    span: Span | None
    instruction: str | None

    def format(self, prefix: str = "") -> str:
        method = self.method_name or "<unknown>"
        if self.class_name:
            method += " of type " + self.class_name
        if self.span is not None:
            where = f'File "{self.span.source}", line {self.span.line}:{self.span.col}'
        else:
            where = "File <unknown>"
        return f"{prefix}{where} in method {method}\n{prefix}    {self.instruction or ''}"


class MuranoPlError(LagunaError):
    """A MuranoPL exception: thrown by `Throw` or converted from an engine error.

    ``names`` are the exception names `Catch: With:` matches against;
    ``frames`` the MuranoPL stack, outermost first.
    """

    code = "LAG-E0400"

    def __init__(self, names: list[str], message: str, frames: list[StackFrame],
                 extra: t.Any = None, cause: MuranoPlError | None = None) -> None:
        super().__init__(f"[{', '.join(names)}]: {message}")
        self.names = names
        self.message = message
        self.frames = frames
        self.extra = extra if extra is not None else {}
        self.cause = cause
        self.original: BaseException | None = None

    def format(self, prefix: str = "") -> str:
        name = self.names[0] if len(self.names) == 1 else str(self.names)
        text = f"{prefix}{name}: {self.message}\n{prefix}Traceback (most recent call last):\n"
        text += "\n".join(_collapsed([frame.format(prefix + "  ") for frame in self.frames],
                                     prefix + "  "))
        declared_at = getattr(self.original, "declared_at", None)
        if declared_at is not None:
            text += f"\n{prefix}  Contract declared at {declared_at}"
        if self.cause is not None:
            text += f"\n\n{prefix} Caused by {self.cause.format(prefix + ' ').lstrip()}"
        return text


# As Python's tracebacks: a frame repeated more often than this is shown this
# many times, then counted (deep recursion prints a few lines, not hundreds)
REPEATED_FRAMES_SHOWN = 3


def _collapsed(lines: list[str], prefix: str) -> list[str]:
    """``lines`` with runs of one line beyond :data:`REPEATED_FRAMES_SHOWN` counted."""
    result: list[str] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and lines[end] == lines[index]:
            end += 1
        run = end - index
        result.extend(lines[index:index + min(run, REPEATED_FRAMES_SHOWN)])
        if run > REPEATED_FRAMES_SHOWN:
            more = run - REPEATED_FRAMES_SHOWN
            result.append(f"{prefix}[Previous line repeated {more} more "
                          f"time{'s' if more > 1 else ''}]")
        index = end
    return result


def murano_names(exc: BaseException) -> list[str]:
    """The MuranoPL names of a Python exception, as the original engine gave them."""
    name = getattr(exc, "murano_name", None)
    if name:
        return [name]
    cls = type(exc)
    if cls.__module__ == "builtins":
        return [cls.__name__]
    return [f"{cls.__module__}.{cls.__name__}"]


# not an error (so no LagunaError, which error handlers catch)
class FlowSignal(Exception):
    """Base of Return/Break/Continue: control flow, never an error."""


class ReturnSignal(FlowSignal):
    def __init__(self, value: t.Any) -> None:
        self.value = value


class BreakSignal(FlowSignal):
    pass


class ContinueSignal(FlowSignal):
    pass
