"""Helpers the core library's native classes share: declaring native methods,
the Python state behind an object, and who called a native."""

from __future__ import annotations

import typing as t

from laguna.lang.contracts import Contract
from laguna.lang.objects import MuranoObject
from laguna.lang.types import Argument, ArgumentUsage, Method, MethodUsage, MuranoClass
from laguna.yaql.expressions import YaqlExpression

MISSING: t.Any = object()   # the default of a required argument

S = t.TypeVar("S")


def native(cls: MuranoClass, name: str, fn: t.Callable[..., t.Any],
           arguments: list[tuple[str, t.Any]], usage: MethodUsage = MethodUsage.Runtime) -> None:
    """Declare ``fn`` as method ``name`` of ``cls``; arguments are (name, default).

    ``fn`` is called as ``fn(executor, this, frame, **arguments)``: ``this`` is
    the object seen as ``cls`` (or the class reference for a static call) and
    ``frame`` the native's own frame (``frame.caller`` is the MuranoPL caller).
    """
    any_value = YaqlExpression("$", None, cls.package.legacy)
    args = [Argument(arg, Contract(any_value, cls), default is not MISSING,
                     None if default is MISSING else default, ArgumentUsage.Standard, None, None)
            for arg, default in arguments]
    cls.methods[name] = Method(name, cls, arguments=args, native=fn, usage=usage)
    cls.invalidate()


def state(this: MuranoObject, factory: t.Callable[[MuranoObject], S]) -> S:
    """The Python object behind ``this`` (one per object and class), made on first use."""
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
