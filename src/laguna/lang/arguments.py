"""Argument binding: MuranoPL call arguments onto a method's declaration."""

from __future__ import annotations

import typing as t

from yaql.language import utils

from laguna.lang import errors
from laguna.lang.scope import NO_VALUE, Frame
from laguna.lang.types import Argument, Method

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor


def bind_arguments(executor: Executor, method: Method, this: t.Any, args: t.Sequence[t.Any],
                   kwargs: dict[str, t.Any], caller: Frame | None) -> dict[str, t.Any]:
    """The value of each declared argument of ``method``: positional and
    keyword arguments mapped onto the declaration (extra ones into VarArgs
    and KwArgs), each passed through its contract, defaults filled in."""
    standard = method.standard
    if not kwargs and len(args) == len(method.arguments) == len(standard):
        # the common call: every argument given by position, none variadic
        return {argument.name: apply_argument(executor, method, argument, value, this, caller)
                for argument, value in zip(method.arguments, args)}
    values: dict[str, t.Any] = {}
    varargs: list[t.Any] = []
    extra_kwargs: dict[str, t.Any] = {}
    for index, value in enumerate(args):
        if index < len(standard):
            values[standard[index]] = value
        elif method.varargs is not None:
            varargs.append(value)
        else:
            raise errors.NoMatchingMethod(
                f"Method {method.name} takes {len(standard)} positional arguments "
                f"but {len(args)} were given")
    for name, value in kwargs.items():
        argument = method.arguments_by_name.get(name)
        if argument is not None and name not in (method.varargs, method.kwargs):
            if name in values:
                raise errors.NoMatchingMethod(
                    f"Method {method.name} got multiple values for argument {name}")
            values[name] = value
        elif method.kwargs is not None:
            extra_kwargs[name] = value
        else:
            raise errors.NoMatchingMethod(
                f"Method {method.name} has no argument named {name}")
    result: dict[str, t.Any] = {}
    for argument in method.arguments:
        name = argument.name
        try:
            if name == method.varargs:
                result[name] = tuple(
                    argument.contract.apply(v, executor=executor, this=this, caller=caller)
                    for v in varargs)
            elif name == method.kwargs:
                result[name] = utils.FrozenDict(
                    (k, argument.contract.apply(v, executor=executor, this=this, caller=caller))
                    for k, v in extra_kwargs.items())
            else:
                result[name] = argument.contract.apply(
                    values.get(name, NO_VALUE), executor=executor, this=this,
                    default=argument.default, caller=caller)
        except errors.ContractViolationException as exc:
            exc.target = f"argument {name} of method {method.declaring_type.name}::{method.name}"
            exc.contract = argument.contract.text
            exc.declared_at = argument.span
            raise
    return result


def apply_argument(executor: Executor, method: Method, argument: Argument, value: t.Any,
                   this: t.Any, caller: Frame | None) -> t.Any:
    """``value`` through ``argument``'s contract; a violation names the argument."""
    try:
        return argument.contract.apply(value, executor=executor, this=this, caller=caller)
    except errors.ContractViolationException as exc:
        exc.target = (f"argument {argument.name} of method "
                      f"{method.declaring_type.name}::{method.name}")
        exc.contract = argument.contract.text
        exc.declared_at = argument.span
        raise


__all__ = ["apply_argument", "bind_arguments"]
