"""io.murano.system.Logger: logging from MuranoPL code into Python logging.

The MuranoPL function ``logger('io.murano.apps.Foo')`` (see :func:`register`) makes a
Logger; its messages go to the Python logger of that very name. Every record
MuranoPL emits is marked (:data:`MURANOPL_RECORD`), so a deployment shows and
keeps its log with one handler carrying :class:`MuranoPlRecords` on the root
logger, whatever names the packages chose. TRACE is a level below DEBUG (5),
as in oslo.log, registered under that name.
"""

from __future__ import annotations

import logging
import typing as t

from laguna.corelib.stacktrace import format_exception
from laguna.lang.builtins import format_
from laguna.lang.contracts import Contract
from laguna.lang.dispatch import builtin
from laguna.lang.objects import MuranoObject
from laguna.lang.types import Argument, ArgumentUsage, Method, MuranoClass
from laguna.yaql.expressions import YaqlExpression

if t.TYPE_CHECKING:
    from laguna.lang.functions import FunctionTable

LOGGER_CLASS = "io.murano.system.Logger"
MURANOPL_RECORD = "muranopl"   # attribute set on every record MuranoPL code emits
TRACE = 5
logging.addLevelName(TRACE, "TRACE")

LEVELS: dict[str, int] = {
    "trace": TRACE,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}

# Argument names no MuranoPL keyword argument will take: `message => ...`
# must reach the format string, not the method's own first argument.
_MESSAGE = "__message"
_EXCEPTION = "__exception"
_ARGS = "__args"
_KWARGS = "__kwargs"


def python_logger(name: str) -> logging.Logger:
    """The Python logger MuranoPL's ``logger(name)`` writes to."""
    return logging.getLogger(name)


class MuranoPlRecords(logging.Filter):
    """Lets through only the records MuranoPL code logged (a deployment's log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return bool(getattr(record, MURANOPL_RECORD, False))


_MARK = {MURANOPL_RECORD: True}


def _underlying(this: MuranoObject) -> logging.Logger:
    return python_logger(str(this.real_this.values.get("name")))


def _format(log: logging.Logger, message: str, args: t.Sequence[t.Any],
            kwargs: t.Mapping[str, t.Any]) -> str:
    """format() of the message; a field naming a missing argument logs a
    warning and the message as written, since a log call must not break the
    workflow (the original engine's rule). Other format errors propagate."""
    try:
        return str(format_(None, message, *args, **kwargs))
    except (IndexError, KeyError):
        log.warning("Can not format string: %s", message, extra=_MARK)
        return message


def _level_method(level: int) -> t.Callable[..., None]:
    def log(executor: t.Any, this: MuranoObject, frame: t.Any, **values: t.Any) -> None:
        underlying = _underlying(this)
        # formatted whatever the level, so a bad format string fails the same
        # way whether or not the level is enabled
        text = _format(underlying, values[_MESSAGE], values[_ARGS], values[_KWARGS])
        underlying.log(level, "%s", text, extra=_MARK)
    return log


def _exception(executor: t.Any, this: MuranoObject, frame: t.Any, **values: t.Any) -> None:
    underlying = _underlying(this)
    text = _format(underlying, values[_MESSAGE], values[_ARGS], values[_KWARGS])
    underlying.error("%s\n%s", text, format_exception(values[_EXCEPTION]), extra=_MARK)


def _declare(cls: MuranoClass, name: str, fn: t.Callable[..., t.Any],
             leading: list[tuple[str, str]]) -> None:
    """A native method taking ``leading`` arguments (name, contract) and then
    any positional and keyword arguments for the format string."""
    legacy = cls.package.legacy

    def argument(arg: str, contract: str, usage: ArgumentUsage) -> Argument:
        return Argument(arg, Contract(YaqlExpression(contract, None, legacy), cls), False,
                        None, usage, None, None)

    arguments = [argument(arg, contract, ArgumentUsage.Standard) for arg, contract in leading]
    arguments.append(argument(_ARGS, "$", ArgumentUsage.VarArgs))
    arguments.append(argument(_KWARGS, "$", ArgumentUsage.KwArgs))
    cls.methods[name] = Method(name, cls, arguments=arguments, native=fn)
    cls.invalidate()


def bind_logger(cls: MuranoClass) -> None:
    """Give io.murano.system.Logger its logging methods."""
    message = (_MESSAGE, "$.string().notNull()")
    for name, level in LEVELS.items():
        _declare(cls, name, _level_method(level), [message])
    _declare(cls, "exception", _exception,
             [(_EXCEPTION, "$.class('io.murano.Exception').notNull()"), message])


@builtin("logger")
def logger(scope: t.Any, name: t.Any) -> MuranoObject:
    """A logger for MuranoPL code: `$log: logger('ns.MyClass')`, then
    `$log.info('deployed {0} in {t} s', $name, t => $seconds)`. Methods: trace,
    debug, info, warning, error, critical (message, args..., kw => v) and
    exception($e, message, args...), which logs at ERROR with the caught
    exception's name, message and MuranoPL stack trace. Messages follow format()."""
    frame = scope.frame
    executor = frame.executor
    cls = executor.find_class(LOGGER_CLASS)
    return t.cast(MuranoObject, executor.new_object(cls, None, {"name": name}, frame=frame))


def register(table: FunctionTable) -> None:
    table.add_builtin(logger)


__all__ = ["LEVELS", "MURANOPL_RECORD", "MuranoPlRecords", "TRACE", "bind_logger", "logger",
           "python_logger", "register"]
