"""Freezing lazy values (what an assignment does to `$list.append(x)`): read
at C speed, refused at the same item as before when over the iterators limit,
items frozen only when one is not flat."""

from __future__ import annotations

import itertools

import pytest
from yaql.language import utils

from laguna.lang import errors, limits
from laguna.lang.dispatch import freeze
from laguna.yaql.engine import Limits

SMALL = Limits(iterators=3)


def test_a_lazy_value_of_flat_items_becomes_their_tuple() -> None:
    with limits.activated(SMALL, None):
        assert freeze(itertools.chain((1, "a"), [None])) == (1, "a", None)


def test_a_lazy_value_with_structures_freezes_them() -> None:
    with limits.activated(SMALL, None):
        frozen = freeze(iter([[1, [2]], {"a": [3]}]))
    assert frozen == ((1, (2,)), utils.FrozenDict(a=(3,)))
    assert type(frozen[1]) is utils.FrozenDict


def test_a_lazy_value_at_the_limit_passes_and_one_more_item_is_refused() -> None:
    with limits.activated(SMALL, None):
        assert freeze(iter(range(3))) == (0, 1, 2)
        read = iter(range(10))
        with pytest.raises(errors.LimitExceededError) as info:
            freeze(read)
    assert str(info.value) == (
        "iterators limit of 3 items exceeded by a collection of more than 3 items")
    assert next(read) == 4   # items 0..3 were read, as the item-by-item check read them


def test_limited_tuple_of_a_sequence_checks_its_length() -> None:
    assert limits.limited_tuple(SMALL, [1, 2, 3]) == (1, 2, 3)
    with pytest.raises(errors.LimitExceededError):
        limits.limited_tuple(SMALL, [1, 2, 3, 4])


def test_a_frozen_dict_of_flat_values_stays_as_it_is() -> None:
    row = utils.FrozenDict(a=1, b="x", c=None)
    assert freeze(row) is row


def test_a_frozen_dict_holding_a_list_is_frozen_again() -> None:
    row = utils.FrozenDict(a=[1, {"b": [2]}])
    frozen = freeze(row)
    assert frozen == utils.FrozenDict(a=(1, utils.FrozenDict(b=(2,))))
    assert type(frozen["a"]) is tuple and type(frozen["a"][1]) is utils.FrozenDict
