"""Declaring a native method of a core class: its Python function and its
arguments, bound like MuranoPL ones (each with the contract `$`)."""

from __future__ import annotations

import typing as t

from laguna.lang.contracts import Contract
from laguna.lang.synchronize import SYNCHRONIZE
from laguna.lang.types import Argument, ArgumentUsage, Method, MethodUsage, MuranoClass
from laguna.yaql.expressions import YaqlExpression

#: the default of an argument that has none (it must be given)
REQUIRED = object()


def native(cls: MuranoClass, name: str, fn: t.Callable[..., t.Any],
           arguments: list[tuple[str, t.Any]], usage: MethodUsage = MethodUsage.Runtime,
           serialised: bool = True) -> None:
    """Declare ``fn`` as method ``name`` of ``cls``; arguments are (name, default).

    ``serialised=False`` for a method that guards its own state: calls from
    several threads then run at once (the method's meta says so, as a MuranoPL
    method's would: ``io.murano.metadata.engine.Synchronize`` with ``onThis:
    false``) instead of one at a time per object (laguna.lang.synchronize)."""
    any_value = YaqlExpression("$", None, cls.package.legacy)
    args = [Argument(arg, Contract(any_value, cls), default is not REQUIRED,
                     None if default is REQUIRED else default, ArgumentUsage.Standard, None, None)
            for arg, default in arguments]
    meta = None if serialised else [{SYNCHRONIZE: {"onThis": False}}]
    cls.methods[name] = Method(name, cls, arguments=args, native=fn, usage=usage, meta=meta)
    cls.invalidate()


__all__ = ["REQUIRED", "native"]
