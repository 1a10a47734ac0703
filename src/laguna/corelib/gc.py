"""io.murano.system.GC: the garbage collector, as MuranoPL code drives it.

The methods are declared in Classes/system/GC.yaml (static, with their
arguments' contracts) and implemented here on top of
:mod:`laguna.lang.lifecycle`.
"""

from __future__ import annotations

import typing as t

from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

GC_CLASS = "io.murano.system.GC"


def _collect(executor: t.Any, this: t.Any, frame: t.Any) -> None:
    """Destroy now every object nothing refers to any more: destruction
    handlers run first, then `.destroy` methods, owned objects before their
    owners. Objects held by running methods (`$this`, arguments, local
    variables), static properties and the model are kept."""
    executor.collect_garbage()


def _is_destroyed(executor: t.Any, this: t.Any, frame: t.Any, object: MuranoObject) -> bool:
    """Whether `object` has been destroyed (its `.destroy` methods have run)."""
    return bool(object.real_this.destroyed)


def _is_doomed(executor: t.Any, this: t.Any, frame: t.Any, object: MuranoObject) -> bool:
    """Whether `object` is destroyed or being destroyed: true inside `.destroy`
    methods and destruction handlers for every object of the same collection."""
    return bool(executor.lifecycle.is_doomed(object))


def _subscribe(executor: t.Any, this: t.Any, frame: t.Any, publisher: MuranoObject,
               subscriber: MuranoObject, handler: str | None = None) -> None:
    """Make `subscriber` depend on `publisher`: before `publisher` is
    destroyed, `subscriber`'s method named `handler` (if given) is called with
    it, and `publisher` is destroyed before `subscriber` when both go at once.
    Subscribing twice with the same handler has no further effect; the
    subscription does not keep `subscriber` alive."""
    executor.lifecycle.subscribe(publisher, subscriber, handler)


def _unsubscribe(executor: t.Any, this: t.Any, frame: t.Any, publisher: MuranoObject,
                 subscriber: MuranoObject, handler: str | None = None) -> None:
    """Remove the subscription made by `subscribeDestruction` with the same
    arguments (nothing happens when there is none)."""
    executor.lifecycle.unsubscribe(publisher, subscriber, handler)


_NATIVES: dict[str, t.Callable[..., t.Any]] = {
    "collect": _collect,
    "isDestroyed": _is_destroyed,
    "isDoomed": _is_doomed,
    "subscribeDestruction": _subscribe,
    "unsubscribeDestruction": _unsubscribe,
}


def bind_gc(cls: MuranoClass) -> None:
    """Give the methods declared in GC.yaml their Python bodies."""
    for name, fn in _NATIVES.items():
        cls.methods[name].native = fn
    cls.invalidate()


__all__ = ["GC_CLASS", "bind_gc"]
