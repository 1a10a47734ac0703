"""`append`'s lazy result (lang/appended.py): freezing it after the tuple
freezing gave last checks only the new items, and gives exactly what freezing
yaql's generator over the same items gives, limit and laziness included (a
hypothesis test on generated values)."""

from __future__ import annotations

import itertools
import typing as t

import pytest
from hypothesis import given
from hypothesis import strategies as st
from yaql.language import utils

from laguna.lang import appended, errors, limits
from laguna.lang.appended import Appended
from laguna.lang.dispatch import freeze
from laguna.yaql.engine import Limits

SMALL = Limits(iterators=4)

VALUES = st.recursive(
    st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=2), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=2), inner, max_size=2)),
    max_leaves=6)


def frozen_types(value: t.Any) -> t.Any:
    """``value`` with the type of each structure, to compare exactly."""
    if isinstance(value, tuple):
        return ("tuple", [frozen_types(v) for v in value])
    if isinstance(value, utils.FrozenDict):
        return ("FrozenDict", {k: frozen_types(v) for k, v in value.items()})
    return (type(value).__name__, value)


@given(base=st.lists(VALUES, max_size=3), extra=st.lists(VALUES, max_size=3),
       remembered=st.booleans())
def test_freezing_equals_freezing_the_generator(base: list[t.Any], extra: list[t.Any],
                                                remembered: bool) -> None:
    with limits.activated(SMALL, None):
        general: t.Any
        try:
            general = freeze(itertools.chain(freeze(base), list(extra)))
        except errors.LimitExceededError as error:
            general = str(error)
        receiver = freeze(base)
        if remembered:
            appended.remember(receiver)
        grown: t.Any
        try:
            grown = freeze(Appended(receiver, list(extra)))
        except errors.LimitExceededError as error:
            grown = str(error)
    assert frozen_types(grown) == frozen_types(general)


def test_a_list_grown_in_a_loop_checks_only_the_new_items() -> None:
    with limits.activated(SMALL, None):
        records = freeze(Appended((), [1]))
        grown = freeze(Appended(records, [[2, {"a": [3]}]]))
        unchecked = freeze(Appended(grown, [[4]]))
    assert grown == (1, (2, utils.FrozenDict(a=(3,))))
    assert grown[:1] is not records and grown[0] == 1
    assert unchecked == (1, (2, utils.FrozenDict(a=(3,))), (4,))
    assert type(unchecked[2]) is tuple


def test_a_receiver_not_frozen_by_freeze_is_checked_whole() -> None:
    # a tuple holding a list (from a Python function): never taken as frozen
    with limits.activated(SMALL, None):
        freeze((5,))
        grown = freeze(Appended(([1],), [2]))
    assert grown == ((1,), 2) and type(grown[0]) is tuple


def test_over_the_limit_it_is_refused_as_any_collection() -> None:
    with limits.activated(SMALL, None):
        records = freeze(Appended((), [1, 2, 3]))
        assert freeze(Appended(records, [4])) == (1, 2, 3, 4)
        with pytest.raises(errors.LimitExceededError) as info:
            freeze(Appended(freeze(Appended((), [1, 2, 3, 4])), [5]))
    assert str(info.value) == (
        "iterators limit of 4 items exceeded by a collection of more than 4 items")


def test_it_is_an_iterator_read_once_item_by_item_or_whole() -> None:
    lazy = Appended((1, 2), [3])
    assert next(lazy) == 1
    assert list(lazy) == [2, 3]
    assert list(lazy) == []
    with limits.activated(SMALL, None):
        appended.remember((1, 2))
        partly = Appended((1, 2), [3])
        next(partly)
        assert freeze(partly) == (2, 3)
        whole = Appended((1, 2), [3])
        assert freeze(whole) == (1, 2, 3)
        assert list(whole) == []   # freezing read it, as it reads a generator
