"""MuranoPL's own functions: new(), id(), type(), cast(), super(), find(), require()...

Each is declared with :func:`laguna.lang.dispatch.builtin` and registered by
:func:`register`; docstrings are the user documentation of the function.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]
import concurrent.futures
import contextvars
import re
import string
import time
import typing as t

from yaql.language import utils

from laguna.lang import errors, limits, reflection
from laguna.lang.dispatch import builtin, freeze, thaw, to_type
from laguna.lang.objects import MuranoObject, find_owner
from laguna.lang.serializer import serialize_object
from laguna.lang.scope import NO_VALUE
from laguna.lang.types import TypeRef
from laguna.packages.versions import parse_requirement

if t.TYPE_CHECKING:
    from laguna.lang.functions import FunctionTable


def _frame(scope: t.Any) -> t.Any:
    return scope.frame


def _object(value: t.Any, function: str) -> MuranoObject:
    if not isinstance(value, MuranoObject):
        raise errors.DslError(f"{function}() expects an object, got {value!r}")
    return value


@builtin("new")
def new(scope: t.Any, type_or_model: t.Any, *args: t.Any, **properties: t.Any) -> t.Any:
    """Create an object: `new(ns:Type, owner, name, extra, prop => value...)`,
    `new(ns:Type, {props}, owner)` or `new({model with "?"}, owner)`; objects
    made from a model get fresh ids (the model's ids only link its objects)."""
    frame = _frame(scope)
    executor = frame.executor
    if isinstance(type_or_model, (dict, utils.FrozenDict)):
        owner = args[0] if args else properties.pop("owner", None)
        # fresh ids: the model's ids only resolve references inside it
        return executor.load_object(thaw(type_or_model), owner, None, frame.cls,
                                    fresh_ids=True)
    cls = to_type(scope, type_or_model)
    owner = None
    name = None
    if args and isinstance(args[0], (dict, utils.FrozenDict)):
        properties = dict(args[0])
        rest = args[1:]
        owner = rest[0] if rest else None
        name = rest[1] if len(rest) > 1 else None
    else:
        owner = args[0] if args else properties.pop("owner", None)
        name = args[1] if len(args) > 1 else properties.pop("objectName", None)
    if owner is not None and not isinstance(owner, MuranoObject):
        raise errors.DslError(f"owner of a new object must be an object, got {owner!r}")
    return executor.new_object(cls, owner, dict(properties), name=name, frame=frame)


@builtin("id", method=True)
def id_(scope: t.Any, obj: t.Any) -> str:
    """The id of an object."""
    return _object(obj, "id").id


@builtin("name")
def name(scope: t.Any, obj: t.Any) -> t.Any:
    """The name an object was given in the model or by new()."""
    return None if obj is None else _object(obj, "name").real_this.name


@builtin("metadata")
def metadata(scope: t.Any, obj: t.Any) -> t.Any:
    """The metadata of an object from its model header."""
    return _object(obj, "metadata").real_this.metadata


@builtin("cast", method=True)
def cast(scope: t.Any, obj: t.Any, type_: t.Any, version_spec: t.Any = None) -> MuranoObject:
    """The object seen as one of its classes (method calls resolve from there);
    with ``version_spec`` (`'1.2'`, `'>=2'`), only a version of that class the
    requirement allows will do."""
    target = to_type(scope, type_)
    this = _object(obj, "cast").real_this
    if version_spec is not None:
        wanted = parse_requirement(str(version_spec))
        for cls in this.type.mro:
            if cls.name == target.name and wanted.match(cls.version):
                return this.cast(cls)
        raise errors.DslError(f"Cannot cast {this.type.name} to {target.name} "
                              f"version {wanted}")
    for cls in this.type.mro:
        if cls is target or cls.name == target.name:
            return this.cast(cls)
    raise errors.DslError(f"Cannot cast {this.type.name} to {target.name}")


def _parents(scope: t.Any, obj: t.Any) -> list[MuranoObject]:
    cls = _frame(scope).cls
    obj = _object(obj, "super").real_this
    return [obj.cast(parent) for parent in cls.parents]


@builtin("super", lazy=(1,), method=True)
def super_(scope: t.Any, obj: t.Any, func: t.Any = None) -> t.Any:
    """The object cast to each parent of the current class, optionally mapped by func."""
    parents = _parents(scope, obj)
    if func is None:
        return tuple(parents)
    return tuple(func(p) for p in parents)


@builtin("psuper", lazy=(1,), method=True)
def psuper(scope: t.Any, obj: t.Any, func: t.Any = None) -> t.Any:
    """Like super(), evaluating func for the parents in parallel."""
    parents = _parents(scope, obj)
    if func is None:
        return tuple(parents)
    executor = scope.frame.executor

    def run(parent: t.Any) -> t.Any:
        # the deadline of the top-level call holds in every thread; and `executor`
        # is a local of this thread's frame, by which garbage collection knows
        # the thread's values are the executor's (lifecycle._stack_values)
        executor.tick()
        return contextvars.copy_context().run(func, parent)

    with executor.method_locks.threads(), \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(parents))) as pool:
        # each thread runs under the call's limits (a copy of this context each)
        return tuple(pool.map(run, parents))


@builtin("require", method=True)
def require(scope: t.Any, value: t.Any) -> t.Any:
    """The value itself; an error when it is null."""
    if value is None:
        raise errors.ValueIsMissingError("Required value is missing")
    return value


@builtin("find", method=True)
def find(scope: t.Any, obj: t.Any, type_: t.Any) -> t.Any:
    """The nearest owner of obj (up the ownership chain) that is a type_."""
    cls = to_type(scope, type_)
    return find_owner(_object(obj, "find"), lambda o: cls in o.type.ancestry)


@builtin("sleep")
def sleep(scope: t.Any, seconds: t.Any) -> None:
    """Pause this thread of execution."""
    executor = _frame(scope).executor
    deadline = executor._deadline
    if deadline is not None and time.monotonic() + float(seconds) > deadline:
        raise limits.exceeded(executor.limits, "execution_seconds", f"sleep({seconds})")
    time.sleep(float(seconds))


@builtin("type")
def type_(scope: t.Any, value: t.Any) -> t.Any:
    """The type object of a class name or of an object (a class name string for
    objects in packages of Format 1.3 and older)."""
    if value is None:
        return None
    if isinstance(value, MuranoObject):
        cls = value.real_this.type
        if _frame(scope).cls.package.format_version <= (1, 3):
            return cls.name
        return cls.ref
    return to_type(scope, value).ref


@builtin("typeinfo")
def typeinfo(scope: t.Any, value: t.Any) -> t.Any:
    """Reflection: a description of the class of an object, of a type object or
    of a class name, with `name`, `version`, `ancestors`, `properties`,
    `methods`, `package`, `type` and `meta` (see docs/LANGUAGE.md)."""
    if isinstance(value, str):
        value = to_type(scope, value)
    return reflection.describe(value)


@builtin("isObject")
def is_object(scope: t.Any, value: t.Any) -> bool:
    """Whether value is an object or a type object."""
    return isinstance(value, (MuranoObject, TypeRef))


@builtin("dump")
def dump(scope: t.Any, obj: t.Any, serialization_type: str = "Serializable",
         ignore_upcasts: bool = True) -> t.Any:
    """The object model of an object (and the objects it owns)."""
    if serialization_type not in ("Serializable", "Inline", "Mixed"):
        raise errors.DslError("Invalid Serialization Type")
    return freeze(serialize_object(_object(obj, "dump").real_this, _frame(scope).executor,
                                   serialization_type))


class _ArgumentsOnlyFormatter(string.Formatter):
    """str.format restricted to naming arguments: `{0}`, `{name}`, `{}`.

    Attribute and index lookups (`{0.__class__}`, `{0[x]}`) would reach
    Python internals from untrusted code (the reason yaql 3 dropped its own
    format()), so they are refused.
    """

    def get_field(self, field_name: str, args: t.Any, kwargs: t.Any) -> t.Any:
        first, rest = _string.formatter_field_name_split(field_name)
        if any(True for _ in rest):
            raise errors.DslError(f"format(): field {{{field_name}}} may only name an "
                                  "argument (no attribute or index lookups)")
        return self.get_value(first, args, kwargs), first

    def format_field(self, value: t.Any, format_spec: str) -> t.Any:
        # a width or precision is the length of the result: `{0:>2000000000}`
        # would build a 2 GB string before any quota saw it
        active = limits.active()
        for number in _SPEC_NUMBERS.findall(format_spec):
            limits.check_string(active, int(number))
        limits.check_text(active, value)
        return super().format_field(value, format_spec)

    def vformat(self, format_string: str, args: t.Sequence[t.Any],
                kwargs: t.Mapping[str, t.Any]) -> str:
        result = super().vformat(format_string, args, kwargs)
        limits.check_string(limits.active(), len(result))
        return result


# the numbers of a format spec (`>20`, `.3f`, `08,d`): widths and precisions
_SPEC_NUMBERS = re.compile(r"\d+")
_FORMATTER = _ArgumentsOnlyFormatter()


def _format(template: t.Any, args: t.Sequence[t.Any], kwargs: dict[str, t.Any]) -> str:
    if not isinstance(template, str):
        raise errors.DslError(f"format() expects a format string, got {template!r}")
    return _FORMATTER.vformat(template, [thaw(a) for a in args],
                              {k: thaw(v) for k, v in kwargs.items()})


@builtin("format")
def format_(scope: t.Any, template: t.Any, *args: t.Any, **kwargs: t.Any) -> str:
    """Python-style formatting: `format('{0} of {n}', $a, n => $b)`, also written
    `'{0} of {n}'.format($a, n => $b)`. Fields name arguments only."""
    return _format(template, args, kwargs)


def _format_method(compiler: t.Any, arg_nodes: t.Sequence[t.Any]) -> t.Callable[..., t.Any]:
    positional, named = compiler._call_args(arg_nodes)

    def call(scope: t.Any, receiver: t.Any) -> t.Any:
        if not isinstance(receiver, str):
            return NO_VALUE      # e.g. yaql's datetime format()
        return _format(receiver, [p(scope) for p in positional],
                       {k: f(scope) for k, f in named})
    return call


def register(table: FunctionTable) -> None:
    for fn in (new, id_, name, metadata, cast, super_, psuper, require, find, sleep, type_,
               typeinfo, is_object, dump, format_):
        table.add_builtin(fn)
    table.add_fast_method("format", _format_method)


__all__ = ["register"]
