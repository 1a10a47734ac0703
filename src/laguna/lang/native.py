"""MuranoPL classes implemented (partly) in Python.

A Python class bound to a MuranoPL class contributes methods to it:

- a plain method becomes an instance method; its ``self`` is a Python object
  created once per MuranoPL object (``Impl(this)`` when ``__init__`` takes an
  argument, else ``Impl()``), so it may keep host-side state;
- a ``@staticmethod`` or ``@classmethod`` becomes a static method
  (``:Type.method()`` or ``$obj.method()``);
- a static method marked with :func:`extension` becomes an extension method;
  the annotation of its first parameter gives the extended type (``int``,
  ``str``, ``bool``, ``float``; anything else or none extends every type, as
  the language reference warns).

Python names are turned into MuranoPL ones the way the original engine did:
``snake_case`` becomes ``camelCase``; a leading underscore hides a method.
Arguments arrive as plain Python data (lists and dicts, objects as
:class:`~laguna.lang.objects.MuranoObject`); results are frozen back.

This is host code: only the deployment layer and the core library bind
Python classes. Packages cannot, so nothing here is reachable from
untrusted MuranoPL beyond the methods a Python class chose to expose.
"""

from __future__ import annotations

import inspect
import typing as t

from laguna.lang.contracts import Contract
from laguna.lang.dispatch import thaw
from laguna.lang.objects import MuranoObject
from laguna.lang.types import Argument, ArgumentUsage, Method, MethodUsage, MuranoClass
from laguna.yaql.expressions import YaqlExpression

_EXTENSION_MARK = "__laguna_extension__"

# The contract an extension's first argument gets from its annotation.
_ANNOTATION_CONTRACTS: dict[t.Any, str] = {
    int: "$.int().notNull()",
    str: "$.string().notNull()",
    bool: "$.bool().notNull()",
    float: "$.check($ is float or $ is int)",
}

F = t.TypeVar("F")


def extension(fn: F) -> F:
    """Mark a static (or class) method of a bound Python class as an extension method."""
    target = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
    setattr(target, _EXTENSION_MARK, True)
    return fn


def murano_name(python_name: str) -> str:
    """`static_python_method` → `staticPythonMethod`."""
    head, *rest = python_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def python_binder(impl: type) -> t.Callable[[MuranoClass], None]:
    """A binder for :meth:`ClassRegistry.bind_native` that adds ``impl``'s methods."""
    def bind(cls: MuranoClass) -> None:
        bind_python_class(cls, impl)
    return bind


def bind_python_class(cls: MuranoClass, impl: type) -> None:
    """Add the public methods of ``impl`` to ``cls`` (see the module docstring)."""
    for attr, raw in vars(impl).items():
        if attr.startswith("_"):
            continue
        if isinstance(raw, staticmethod):
            fn = raw.__func__
            usage = (MethodUsage.Extension if getattr(fn, _EXTENSION_MARK, False)
                     else MethodUsage.Static)
            call = _static_call(fn)
            skip = 0
        elif isinstance(raw, classmethod):
            fn = raw.__func__
            usage = (MethodUsage.Extension if getattr(fn, _EXTENSION_MARK, False)
                     else MethodUsage.Static)
            call = _static_call(fn.__get__(impl, impl))   # the class is bound here
            skip = 1
        elif inspect.isfunction(raw):
            fn = raw
            usage = MethodUsage.Runtime
            call = _instance_call(impl, fn)
            skip = 1
        else:
            continue
        name = murano_name(attr)
        arguments = _arguments(cls, fn, skip, usage is MethodUsage.Extension)
        cls.methods[name] = Method(name, cls, arguments=arguments, native=call, usage=usage)
    cls.invalidate()


def _arguments(cls: MuranoClass, fn: t.Callable[..., t.Any], skip: int,
               is_extension: bool) -> list[Argument]:
    signature = inspect.signature(fn)
    try:
        hints = t.get_type_hints(fn)
    except Exception:  # an unresolvable annotation only costs the typed contract
        hints = {}
    arguments = []
    for index, param in enumerate(list(signature.parameters.values())[skip:]):
        contract_text = "$"
        if is_extension and index == 0:
            contract_text = _ANNOTATION_CONTRACTS.get(hints.get(param.name), "$")
        usage = ArgumentUsage.Standard
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            usage = ArgumentUsage.VarArgs
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            usage = ArgumentUsage.KwArgs
        has_default = param.default is not inspect.Parameter.empty
        contract = Contract(YaqlExpression(contract_text, None, cls.package.legacy), cls)
        arguments.append(Argument(param.name, contract, has_default,
                                  param.default if has_default else None, usage, None, None))
    return arguments


def _splitter(fn: t.Callable[..., t.Any]) -> t.Callable[[dict[str, t.Any]],
                                                    tuple[list[t.Any], dict[str, t.Any]]]:
    """Maps bound MuranoPL argument values onto ``fn``'s Python parameters
    (the signature is read once, not per call)."""
    params = [(name, param.kind) for name, param in inspect.signature(fn).parameters.items()]

    def split(values: dict[str, t.Any]) -> tuple[list[t.Any], dict[str, t.Any]]:
        args: list[t.Any] = []
        kwargs: dict[str, t.Any] = {}
        for name, kind in params:
            if name not in values:
                continue
            value = values[name]
            if kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(thaw(v) for v in value)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                kwargs.update({k: thaw(v) for k, v in value.items()})
            elif kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = thaw(value)
            else:
                args.append(thaw(value))
        return args, kwargs
    return split


def _static_call(fn: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    split = _splitter(fn)

    def call(executor: t.Any, this: t.Any, frame: t.Any, **values: t.Any) -> t.Any:
        args, kwargs = split(values)
        return fn(*args, **kwargs)
    return call


def _instance_call(impl: type, fn: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    split = _splitter(fn)

    def call(executor: t.Any, this: t.Any, frame: t.Any, **values: t.Any) -> t.Any:
        args, kwargs = split(values)
        return fn(_instance(impl, this), *args, **kwargs)
    return call


def _instance(impl: type, part: MuranoObject) -> t.Any:
    """The Python object behind one MuranoPL object, created on first use."""
    state = part.extension
    if state is None:
        # the class's signature is its __init__'s without self
        takes_this = len(inspect.signature(impl).parameters) > 0
        state = impl(part) if takes_this else impl()
        part.extension = state
    return state
