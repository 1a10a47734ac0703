"""Declaring a native method of a core class: its Python function and its
arguments, bound like MuranoPL ones (each with the contract `$`)."""

from __future__ import annotations

import typing as t

from laguna.lang.contracts import Contract
from laguna.lang.types import Argument, ArgumentUsage, Method, MethodUsage, MuranoClass
from laguna.yaql.expressions import YaqlExpression

#: the default of an argument that has none (it must be given)
REQUIRED = object()


def native(cls: MuranoClass, name: str, fn: t.Callable[..., t.Any],
           arguments: list[tuple[str, t.Any]], usage: MethodUsage = MethodUsage.Runtime) -> None:
    """Declare ``fn`` as method ``name`` of ``cls``; arguments are (name, default)."""
    any_value = YaqlExpression("$", None, cls.package.legacy)
    args = [Argument(arg, Contract(any_value, cls), default is not REQUIRED,
                     None if default is REQUIRED else default, ArgumentUsage.Standard, None, None)
            for arg, default in arguments]
    cls.methods[name] = Method(name, cls, arguments=args, native=fn, usage=usage)
    cls.invalidate()


__all__ = ["REQUIRED", "native"]
