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
threads waits for them). A wait honours the run's execution time limit, so
two threads waiting for each other end with a limit error rather than hang.
"""

from __future__ import annotations

import contextlib
import threading
import typing as t

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
            while True:
                holders = self._held.setdefault(key, {})
                owner = holders.get(values)
                if owner is None:
                    holders[values] = me
                    return True
                if owner == me:
                    return False
                self._changed.wait(WAIT_SLICE)
                executor.tick()

    def _release(self, key: t.Any, values: t.Any) -> None:
        with self._changed:
            holders = self._held[key]
            del holders[values]
            if not holders:
                del self._held[key]
            self._changed.notify_all()


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
