"""The sandbox's size limits, checked before a value is built.

Every operator and function that can make a value much larger than its
operands asks here first, with the size the result *would* have: a string's
characters, a collection's items, an integer's bits (``Limits`` in
:mod:`laguna.yaql.engine`). Nothing is allocated when the answer is no.

Compiled code finds the limits of the running executor through its scope
(compiled code is shared by executors with different limits); code that has
no scope (``freeze`` of a lazy sequence, yaql functions without a context)
reads the limits of the call running in this thread or task, which
:meth:`Executor.run` sets (:func:`active`).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import time
import typing as t

from yaql.language import utils

from laguna.lang import errors
from laguna.yaql.engine import DEFAULT_LIMITS, Limits

# what yaql's own quota counts (sys.getsizeof): a string's header and a byte
# a character (ASCII), a tuple's header and a pointer an item; a value these
# checks let through is one yaql's functions accept as an argument
STRING_BYTES = 49
_TUPLE_BYTES = 40
_ITEM_BYTES = 8

_ACTIVE: contextvars.ContextVar[Limits] = contextvars.ContextVar("laguna_limits",
                                                               default=DEFAULT_LIMITS)
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("laguna_deadline",
                                                                       default=None)


# The limits of the MuranoPL call running in this thread (the defaults outside
# one): the context variable's own reader, as generated code calls it per item.
active: t.Callable[[], Limits] = _ACTIVE.get


def remaining_seconds() -> float | None:
    """Seconds left before the running call's deadline (None: no deadline)."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


@contextlib.contextmanager
def activated(limits: Limits, deadline: float | None) -> t.Iterator[None]:
    """Make ``limits`` and ``deadline`` those of the code run inside."""
    token = _ACTIVE.set(limits)
    deadline_token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(deadline_token)
        _ACTIVE.reset(token)


def of(scope: t.Any) -> Limits:
    """The limits of the executor running ``scope``."""
    frame = getattr(scope, "frame", None)
    return frame.executor.limits if frame is not None else _ACTIVE.get()


def exceeded(limits: Limits, name: str, detail: str = "") -> errors.LimitExceededError:
    """The error of limit ``name`` crossed; ``detail`` says by what."""
    return errors.LimitExceededError(name, getattr(limits, name), limits.UNITS[name], detail)


def check_string(limits: Limits, length: int) -> None:
    """A string of ``length`` characters is about to be built."""
    if length + STRING_BYTES > limits.memory_quota:
        raise exceeded(limits, "memory_quota", f"a string of {length} characters")


def check_items(limits: Limits, count: int) -> None:
    """A collection of ``count`` items is about to be built."""
    if count > limits.iterators:
        raise exceeded(limits, "iterators", f"a collection of {count} items")
    if _TUPLE_BYTES + count * _ITEM_BYTES > limits.memory_quota:
        raise exceeded(limits, "memory_quota", f"a collection of {count} items")


def check_bits(limits: Limits, bits: int) -> None:
    """An integer of about ``bits`` bits is about to be computed."""
    if bits > limits.integer_bits:
        raise exceeded(limits, "integer_bits", f"an integer of {bits} bits")


def check_size(limits: Limits, value: t.Any) -> t.Any:
    """``value`` itself, if within the limits (a string, a collection, an integer)."""
    tv = type(value)
    if tv is str:
        check_string(limits, len(value))
    elif tv is int:
        if value.bit_length() > 64:
            check_bits(limits, value.bit_length())
    elif tv is tuple or tv is list or tv is utils.FrozenDict or tv is dict:
        check_items(limits, len(value))
    return value


def limit_iterable(limits: Limits, iterable: t.Iterable[t.Any]) -> t.Iterable[t.Any]:
    """``iterable``, refusing to give more than ``limits.iterators`` items."""
    if isinstance(iterable, (tuple, list, dict, utils.FrozenDict, str, range)):
        if len(iterable) > limits.iterators:
            raise exceeded(limits, "iterators", f"a collection of {len(iterable)} items")
        return iterable
    return _limited(limits, iterable)


def limited_tuple(limits: Limits, iterable: t.Iterable[t.Any]) -> tuple[t.Any, ...]:
    """The items of ``iterable`` as a tuple, refusing (as :func:`limit_iterable`
    does, at the same item) to read more than ``limits.iterators`` of them;
    read at C speed."""
    if isinstance(iterable, (tuple, list, dict, utils.FrozenDict, str, range)):
        return tuple(limit_iterable(limits, iterable))
    count = limits.iterators
    items = tuple(itertools.islice(iterable, count + 1))
    if len(items) > count:
        raise exceeded(limits, "iterators", f"a collection of more than {count} items")
    return items


def _limited(limits: Limits, iterable: t.Iterable[t.Any]) -> t.Iterator[t.Any]:
    count = limits.iterators
    for index, item in enumerate(iterable):
        if index >= count:
            raise exceeded(limits, "iterators", f"a collection of more than {count} items")
        yield item


__all__ = ["active", "activated", "check_bits", "check_items", "check_size", "check_text",
           "check_string", "exceeded", "limit_iterable", "limited_tuple", "of", "remaining_seconds"]


def check_text(limits: Limits, value: t.Any) -> None:
    """``value`` is about to be written out as text (str(), format()): refuse
    when the text would exceed the memory quota. Shared items count each time
    they are written, as they will be; the walk stops once over the quota, so
    it costs at most the quota however the value nests."""
    tv = type(value)
    if tv is str or tv is int or tv is float or tv is bool or value is None:
        return
    budget = limits.memory_quota
    stack = [value]
    size = 0
    while stack:
        item = stack.pop()
        ti = type(item)
        if ti is str:
            size += len(item) + 4
        elif isinstance(item, (tuple, list, set, frozenset)):
            size += 2 + 2 * len(item)
            stack.extend(item)
        elif isinstance(item, (dict, utils.FrozenDict)):
            size += 2 + 4 * len(item)
            for key, val in item.items():
                stack.append(key)
                stack.append(val)
        else:
            size += 8
        if size > budget:
            raise exceeded(limits, "memory_quota", "the text of a collection")
