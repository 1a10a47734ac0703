"""Method calls serialised while MuranoPL runs in several threads.

`pselect`, `psuper` and the `Parallel` block run MuranoPL in real threads.
The original engine serialised every method call, as its green threads
did not: a call of a method on an object waits while another thread runs
the same method on the same object (a static method: on its class), and a
thread may re-enter a method it is already running. A method's
`io.murano.metadata.engine.Synchronize` meta changes the key: `onThis:
false` drops the object from it, `onArgs` adds the values of the named
arguments (a call then waits only for calls with equal values), and with
neither the method is not serialised at all. Without this, two
applications deployed by `pselect` that share one host would both run its
`deploy` at once.

Serial code pays nothing: the executor asks for a lock only while some
thread of it runs MuranoPL in parallel (:meth:`MethodLocks.threads`), and
calls that began before stay as they are (the thread that started the
threads waits for them). A wait honours the run's execution time limit, and
threads that wait for each other in a circle (each for a call the next one
holds) do not wait at all: the one that closes the circle fails with
DeadlockError, where the original engine hung.
"""

from __future__ import annotations

import contextlib
import threading
import typing as t

from laguna.lang import errors
from laguna.lang.objects import MuranoObject
from laguna.lang.types import Method

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor
    from laguna.lang.scope import Frame

SYNCHRONIZE = "io.murano.metadata.engine.Synchronize"
#: how often a waiting call looks at the run's deadline (seconds)
WAIT_SLICE = 0.05

#: what serialises a method: on its object (or class), on some of its arguments
Policy = tuple[bool, tuple[str, ...]]
DEFAULT_POLICY: Policy = (True, ())


class MethodLocks:
    """The held method calls of one executor, by key and argument values."""

    def __init__(self) -> None:
        # > 0 while MuranoPL runs in threads started by this executor's code
        self.parallel = 0
        self._changed = threading.Condition()
        # key -> argument values -> the thread that holds them
        self._held: dict[t.Any, dict[t.Any, int]] = {}
        # thread -> the (key, argument values) it waits for
        self._waiting: dict[int, tuple[t.Any, t.Any]] = {}
        self._policies: dict[Method, Policy] = {}

    @contextlib.contextmanager
    def threads(self) -> t.Iterator[None]:
        """Around code that runs MuranoPL in several threads."""
        with self._changed:
            self.parallel += 1
        try:
            yield
        finally:
            with self._changed:
                self.parallel -= 1

    def call(self, executor: Executor, method: Method, this: t.Any, args: t.Sequence[t.Any],
             kwargs: dict[str, t.Any], caller: Frame | None,
             invoke: t.Callable[..., t.Any]) -> t.Any:
        """``invoke(method, this, args, kwargs, caller)`` once no other thread
        holds the call's key."""
        on_this, on_args = self.policy(executor, method, this, caller)
        values = _argument_values(method, args, kwargs, on_args) if on_args else ()
        if on_this:
            owner = this.real_this if isinstance(this, MuranoObject) else None
            key: t.Any = (id(owner) if owner is not None else id(method.declaring_type), method)
        elif values:
            key = (None, method)
        else:
            return invoke(method, this, args, kwargs, caller)
        if not self._acquire(executor, key, values):
            return invoke(method, this, args, kwargs, caller)   # this thread holds it already
        try:
            return invoke(method, this, args, kwargs, caller)
        finally:
            self._release(key, values)

    def policy(self, executor: Executor, method: Method, this: t.Any,
               caller: Frame | None) -> Policy:
        """The method's Synchronize meta (its own or inherited), read once."""
        known = self._policies.get(method)
        if known is not None:
            return known
        from laguna.lang.meta import method_meta
        from laguna.lang.scope import Frame

        policy = DEFAULT_POLICY
        frame = Frame(executor, this, method, method.declaring_type, caller)
        for meta in method_meta(method, frame):
            if meta.type.name == SYNCHRONIZE:
                on_args = meta.values.get("onArgs") or ()
                policy = (bool(meta.values.get("onThis")),
                          (on_args,) if isinstance(on_args, str) else tuple(on_args))
        self._policies[method] = policy
        return policy

    def _acquire(self, executor: Executor, key: t.Any, values: t.Any) -> bool:
        me = threading.get_ident()
        with self._changed:
            try:
                while True:
                    holders = self._held.setdefault(key, {})
                    owner = holders.get(values)
                    if owner is None:
                        holders[values] = me
                        return True
                    if owner == me:
                        return False
                    self._waiting[me] = (key, values)
                    circle = self._circle(me, owner)
                    if circle:
                        raise errors.DeadlockError(_deadlock_text(circle))
                    self._changed.wait(WAIT_SLICE)
                    executor.tick()
            finally:
                self._waiting.pop(me, None)

    def _circle(self, me: int, owner: int) -> list[t.Any]:
        """The keys of the waits from ``me`` on, if they come back to ``me``
        (each thread waits for the next one's call): else empty."""
        keys = [self._waiting[me][0]]
        thread: int | None = owner
        while thread is not None and thread in self._waiting and len(keys) <= len(self._waiting):
            key, values = self._waiting[thread]
            keys.append(key)
            thread = self._held.get(key, {}).get(values)
            if thread == me:
                return keys
        return []

    def _release(self, key: t.Any, values: t.Any) -> None:
        with self._changed:
            holders = self._held[key]
            del holders[values]
            if not holders:
                del self._held[key]
            self._changed.notify_all()


def _deadlock_text(keys: list[t.Any]) -> str:
    names = [f"{method.declaring_type.name}.{method.name}" for _, method in keys]
    return ("threads wait for each other's method calls: this one waits for "
            + "".join(f"{name}, held by a thread that waits for " for name in names[:-1])
            + f"{names[-1]}, held by this one")


def _argument_values(method: Method, args: t.Sequence[t.Any], kwargs: dict[str, t.Any],
                     names: tuple[str, ...]) -> tuple[tuple[str, t.Any], ...]:
    """The named arguments' values of a call (the ones given, not null), hashable."""
    given = dict(zip((a.name for a in method.arguments), args))
    given.update(kwargs)
    return tuple((name, _hashable(given[name])) for name in names
                 if given.get(name) is not None)


def _hashable(value: t.Any) -> t.Any:
    if isinstance(value, MuranoObject):
        return id(value.real_this)
    try:
        hash(value)
    except TypeError:
        return ("<unhashable>", id(value))
    return value
