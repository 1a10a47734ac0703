"""`$list.append(x)` as a lazy result that knows what it appends to.

yaql's `append` gives a generator over the receiver and the new items, and
MuranoPL freezes it when it is stored: ``$records: $records.append($x)`` in a
loop read and type-checked the whole grown tuple at every append (quadratic:
2,000 appends read 2 M items). :class:`Appended` is that same lazy result (an
iterator: read once, item by item, or whole), and it keeps its receiver and
its new items apart, so freezing it when the receiver is the tuple freezing
gave last (whose items were checked then) copies the receiver at C speed and
checks only the new items (:func:`frozen`).
"""

from __future__ import annotations

import collections.abc
import itertools
import typing as t

# The tuple that freezing gave last, its items known frozen. One tuple only:
# the loop that grows a list freezes each result and appends to it next.
# It is kept alive until the next one (the object graph's collection goes by
# reachability from the model, never by Python's references).
_last_frozen: list[tuple[t.Any, ...]] = [()]


class Appended(collections.abc.Iterator[t.Any]):
    """The items of ``base`` (a tuple) then ``extra``, read lazily once."""

    __slots__ = ("base", "extra", "_items")

    def __init__(self, base: tuple[t.Any, ...], extra: list[t.Any]) -> None:
        self.base = base
        self.extra = extra
        self._items: t.Iterator[t.Any] | None = None

    def _reading(self) -> t.Iterator[t.Any]:
        items = self._items
        if items is None:
            items = self._items = itertools.chain(self.base, self.extra)
        return items

    def __iter__(self) -> t.Iterator[t.Any]:
        # the chain itself (read at C speed); it shares this iterator's position
        return self._reading()

    def __next__(self) -> t.Any:
        return next(self._reading())


def remember(items: tuple[t.Any, ...]) -> None:
    """``items`` is what freezing just gave: each item frozen."""
    _last_frozen[0] = items


def frozen(value: Appended, most: int,
           freeze: t.Callable[[t.Any], t.Any]) -> tuple[t.Any, ...] | None:
    """What freezing ``value`` gives, when its receiver is the tuple freezing
    gave last, nothing has read it yet and it holds at most ``most`` items
    (else None: freeze reads it as any other iterator, and refuses it there
    as it refuses any collection over the limit). It is read by this."""
    base = value.base
    if value._items is not None or base is not _last_frozen[0] \
            or len(base) + len(value.extra) > most:
        return None
    value._items = iter(())
    result = base + tuple([freeze(item) for item in value.extra])
    _last_frozen[0] = result
    return result
