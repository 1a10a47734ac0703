"""Freezing values that are frozen all the way down gives them back as they
are (no copy of a whole template at every call, return and property write);
anything mutable inside, at any depth, still gets copied."""

from __future__ import annotations

from yaql.language import utils

from laguna.lang.dispatch import freeze


def test_a_frozen_template_is_given_back_as_it_is_at_every_depth() -> None:
    template = freeze({"resources": {"vm": {"type": "OS::Nova::Server",
                                            "properties": {"networks": [{"port": "p"}]}}}})
    assert freeze(template) is template
    pair = (template, (template, "x"))
    assert freeze(pair) is pair


def test_a_frozen_dict_made_by_yaql_with_frozen_dicts_inside_is_kept() -> None:
    inner = utils.FrozenDict(a=(1, 2))
    outer = utils.FrozenDict(inner=inner, more=(inner, utils.FrozenDict()))
    assert freeze(outer) is outer
    assert freeze(outer) is outer   # once marked, asked again


def test_a_list_deep_inside_frozen_dicts_is_still_copied() -> None:
    outer = utils.FrozenDict(inner=utils.FrozenDict(rows=(utils.FrozenDict(x=[1]),)))
    frozen = freeze(outer)
    assert frozen is not outer
    assert frozen == utils.FrozenDict(inner=utils.FrozenDict(rows=(utils.FrozenDict(x=(1,)),)))
    assert type(frozen["inner"]["rows"][0]["x"]) is tuple
    assert freeze(frozen) is frozen


def test_a_tuple_holding_a_dict_is_copied() -> None:
    value = ({"a": [1]},)
    frozen = freeze(value)
    assert frozen == (utils.FrozenDict(a=(1,)),)
    assert type(frozen[0]) is utils.FrozenDict and type(frozen[0]["a"]) is tuple
