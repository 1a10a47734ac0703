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

Time and the run's memory are looked at every :data:`CHECK_EVERY` steps of
work (:func:`spend`): a step is an item a built-in reads or builds, so a
loop inside one expression (`len(range(1000000000))`, an `aggregate` whose
every step copies a dict) ends at the deadline too, at the price of a
counter per step and a clock read per few thousand.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import operator
import os
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
# the process's resident bytes when the running top-level call started
_MEMORY_BASE: contextvars.ContextVar[int | None] = contextvars.ContextVar("laguna_memory_base",
                                                                         default=None)

#: steps of work between two looks at the clock (and at the run's memory):
#: a clock read costs about what 50 steps do, and 4096 steps of the slowest
#: built-in take well under a millisecond
CHECK_EVERY = 4096
#: the steps a call through yaql's overload resolution counts: one costs
#: tens of microseconds, what a hundred steps of the slowest built-in do (a
#: loop whose every item is such a call, `range(10000).select(str(x) * 60000)`,
#: looked at the clock every 4096 of them: once in seconds)
CALL_STEPS = 64
# steps since the last look, shared by every thread: a lost update between
# threads only delays a look by a few steps
_steps = 0
# a value this large (characters, items) looks at the run's memory before it
# is built, whatever the step count: the memory a run can add between two
# looks is then what CHECK_EVERY small steps allocate
_LARGE_STRING = 64 * 1024
_LARGE_COLLECTION = 8192


# The limits of the MuranoPL call running in this thread (the defaults outside
# one): the context variable's own reader, as generated code calls it per item.
active: t.Callable[[], Limits] = _ACTIVE.get


def remaining_seconds() -> float | None:
    """Seconds left before the running call's deadline (None: no deadline)."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


@contextlib.contextmanager
def activated(limits: Limits, deadline: float | None,
              memory_base: int | None = None) -> t.Iterator[None]:
    """Make ``limits`` and ``deadline`` those of the code run inside, and
    ``memory_base`` (resident bytes, :func:`resident_bytes`) the process's
    memory that ``limits.run_memory`` counts from (None: no memory limit)."""
    token = _ACTIVE.set(limits)
    deadline_token = _DEADLINE.set(deadline)
    memory_token = _MEMORY_BASE.set(memory_base)
    try:
        yield
    finally:
        _MEMORY_BASE.reset(memory_token)
        _DEADLINE.reset(deadline_token)
        _ACTIVE.reset(token)


def spend(steps: int = 1) -> None:
    """``steps`` steps of work were done (items read or about to be built);
    every :data:`CHECK_EVERY` steps, the running call's deadline and memory
    are looked at (:func:`check_clock`)."""
    global _steps
    _steps += steps
    if _steps >= CHECK_EVERY:
        _steps = 0
        check_clock()


def check_clock() -> None:
    """Raise the running call's LimitExceededError when it is past its
    deadline (execution_seconds) or holds more memory than its start did
    by over run_memory."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise exceeded(_ACTIVE.get(), "execution_seconds")
    check_memory()


# /proc/self/statm, kept open: its second field is the resident pages
_statm: list[int] = []
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """The process's resident memory (bytes), read in one system call; None
    where the system does not tell (no /proc): no memory limit there."""
    try:
        if not _statm:
            _statm.append(os.open("/proc/self/statm", os.O_RDONLY))
        return int(os.pread(_statm[0], 128, 0).split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


def check_run_memory(size: int) -> None:
    """A value of ``size`` characters or items is about to be built: when it
    is large, look at the run's memory first (:func:`check_memory`)."""
    if size >= _LARGE_STRING:
        check_memory()


def check_memory() -> None:
    """Raise when the process holds more than ``run_memory`` bytes beyond
    what it held when the running top-level call started."""
    base = _MEMORY_BASE.get()
    if base is None:
        return
    resident = resident_bytes()
    active_limits = _ACTIVE.get()
    if resident is not None and resident - base > active_limits.run_memory:
        raise exceeded(active_limits, "run_memory", "the memory the run holds")


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
    if length >= _LARGE_STRING:
        check_memory()


def check_items(limits: Limits, count: int) -> None:
    """A collection of ``count`` items is about to be built."""
    if count > limits.iterators:
        raise exceeded(limits, "iterators", f"a collection of {count} items")
    if _TUPLE_BYTES + count * _ITEM_BYTES > limits.memory_quota:
        raise exceeded(limits, "memory_quota", f"a collection of {count} items")
    spend(count)
    if count >= _LARGE_COLLECTION:
        check_memory()


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
    items = iter(iterable)
    # a chunk at a time, each read at C speed, the clock looked at between
    # chunks: a lazy sequence whose items are slow to make ends at the deadline
    chunk = tuple(itertools.islice(items, min(count + 1, CHECK_EVERY)))
    if len(chunk) < CHECK_EVERY:
        if len(chunk) > count:
            raise exceeded(limits, "iterators", f"a collection of more than {count} items")
        return chunk
    chunks = [chunk]
    total = len(chunk)
    while len(chunk) == CHECK_EVERY and total <= count:
        spend(CHECK_EVERY)
        chunk = tuple(itertools.islice(items, min(count + 1 - total, CHECK_EVERY)))
        chunks.append(chunk)
        total += len(chunk)
    if total > count:
        raise exceeded(limits, "iterators", f"a collection of more than {count} items")
    return tuple(itertools.chain.from_iterable(chunks))


def count_items(limits: Limits, items: t.Iterator[t.Any]) -> int:
    """How many items the iterator ``items`` gives (all read): a chunk at a
    time at C speed, refusing the item past ``limits.iterators`` (an endless
    sequence) and looking at the clock between chunks."""
    count = limits.iterators
    total = 0
    while True:
        read = len(tuple(itertools.islice(items, min(count + 1 - total, CHECK_EVERY))))
        total += read
        if total > count:
            raise exceeded(limits, "iterators", f"a collection of more than {count} items")
        spend(read)
        if read < CHECK_EVERY:
            return total


def ticking(limits: Limits, iterable: t.Iterable[t.Any]) -> t.Iterator[t.Any]:
    """The items of ``iterable``, refusing the one past ``limits.iterators``
    and looking at the clock every :data:`CHECK_EVERY` of them: for loops in
    Python (yaql's functions) over a lazy sequence."""
    return _limited(limits, iterable)


def is_ticking(value: t.Any) -> bool:
    """Whether ``value`` is an iterator :func:`ticking` made (a function
    handing it to another need not wrap it again)."""
    return type(value) is _Ticking


class _Ticking(itertools.chain):  # type: ignore[type-arg]
    """The items :func:`_limited` gives: read at C speed, a chunk at a time."""

    __slots__ = ()


_FIRST = operator.itemgetter(0)


def _limited(limits: Limits, iterable: t.Iterable[t.Any]) -> t.Iterator[t.Any]:
    # a chain of chunks of at most CHECK_EVERY items, each read lazily (an item
    # only when the consumer asks for it) at C speed: Python runs only between
    # chunks, to count them and look at the clock (a generator between every
    # item cost a query-heavy method a tenth of its time)
    return _Ticking.from_iterable(_chunks(limits, iterable, limits.iterators))


def counted(iterable: t.Iterable[t.Any]) -> t.Iterator[t.Any]:
    """The items of ``iterable``, read as :func:`ticking` reads them (the clock
    looked at every :data:`CHECK_EVERY`) but under no iterators limit: for
    loops in Python over a collection already within it."""
    return _Ticking.from_iterable(_chunks(DEFAULT_LIMITS, iterable, None))


def _chunks(limits: Limits, iterable: t.Iterable[t.Any],
            count: int | None) -> t.Iterator[t.Iterator[t.Any]]:
    # the items are counted as they are read: zip advances the counter for
    # each item the iterable gives, and the counter is read (so advanced)
    # once after each chunk
    counter = itertools.count()
    items = map(_FIRST, zip(iterable, counter))
    total = reads = 0
    while count is None or total < count:
        step = CHECK_EVERY if count is None else min(CHECK_EVERY, count - total)
        yield itertools.islice(items, step)
        given = next(counter) - reads - total
        reads += 1
        total += given
        if given < step:
            # the steps since the last look count towards the next one: many
            # short loops (one per item of an outer loop) add up
            spend(given)
            return
        spend(step)
    for _ in items:   # the item past the limit, read when the consumer asks for it
        raise exceeded(limits, "iterators", f"a collection of more than {count} items")


__all__ = ["CALL_STEPS", "CHECK_EVERY", "active", "activated", "check_bits", "check_clock", "check_items",
           "check_memory", "check_run_memory", "check_size", "check_string", "check_text", "count_items", "counted",
           "exceeded", "is_ticking", "limit_iterable", "limited_tuple", "of", "remaining_seconds",
           "resident_bytes", "spend", "ticking"]


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
