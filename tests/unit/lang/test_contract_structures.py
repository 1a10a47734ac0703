"""List and dictionary contracts: the structure around the contract methods.

Each row gives a contract as written in a class file, a value, the mode and
what comes out: the converted value, or the ContractViolationException's
message and path (the path is what `[1]['a']`-style text locates the bad
item with; packages and users see both).
"""

from __future__ import annotations

import typing as t

import pytest
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.contracts import CHECK, TRANSFORM, VALIDATE, Contract, format_scalar
from laguna.lang.loader import expression_hook
from laguna.yamlio.loader import load_all
from tests.unit.lang.holders import empty_holder


class Fails(t.NamedTuple):
    message: str
    path: str = ""


class Iterated(tuple):  # type: ignore[type-arg]
    """Handed to the contract as an iterator (a stable test id, fresh each run)."""

    def __repr__(self) -> str:
        return f"iter({list(self)!r})"


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> t.Any:
    return empty_holder(tmp_path_factory.mktemp("shapes"), "t.shapes")


def contract_of(text: str, cls: t.Any) -> Contract:
    spec = load_all("Contract: " + text, "Holder.yaml", expression_hook(False))[0]["Contract"]
    return Contract(spec, cls)


def run(holder: t.Any, text: str, value: t.Any, mode: str = TRANSFORM) -> t.Any:
    executor, cls, obj = holder
    if isinstance(value, Iterated):
        value = iter(value)
    try:
        return contract_of(text, cls).apply(value, executor=executor, this=obj, mode=mode)
    except errors.ContractViolationException as exc:
        return Fails(exc.message, exc.path)


LISTS = [
    # a scalar becomes a one-item list; tuples, lists and iterators are lists
    ("[$.int()]", 5, (5,)),
    ("[$.int()]", "5", (5,)),
    ("[$.int()]", ["1", 2], (1, 2)),
    ("[$.int()]", (1, 2), (1, 2)),
    ("[$.int()]", Iterated([1, 2]), (1, 2)),
    ("[$.int()]", [], ()),
    # strings, dicts and sets are single items, not sequences
    ("[$.int()]", "ab", Fails("Value 'ab' violates int() contract", "[0]")),
    ("[$.int()]", {"a": 1}, Fails("Value {'a': 1} violates int() contract", "[0]")),
    ("[$.int()]", ["x"], Fails("Value 'x' violates int() contract", "[0]")),
    ("[]", 3, (3,)),
    ("[]", [1, "a"], (1, "a")),
    ("[$]", [None, 1], (None, 1)),
    ("[$.int().notNull()]", [None], Fails("null value violates notNull() contract", "[0]")),
    # item contracts are positional; the last one repeats
    ("[$.int(), $.string()]", [1, 2, 3], (1, "2", "3")),
    ("[$.int(), $.string()]", [1], (1,)),
    ("[$.int(), $.string()]", [], ()),
    ("[a, $.int()]", ["a", "b"], Fails("Value 'b' violates int() contract", "[1]")),
    ("[1, $.int()]", [1, 2], (1, 2)),
    # one trailing integer is the least length, two are the least and the most
    ("[$.int(), 2]", [1], Fails("Array length 1 must not be less than 2")),
    ("[$.int(), 2]", [1, "2"], (1, 2)),
    ("[$.int(), 2, 5]", [1], Fails("Array length 1 is not within [2..5] range")),
    ("[$.int(), 2, 5]", [1, 2, 3, 4, 5, 6], Fails("Array length 6 is not within [2..5] range")),
    ("[$.int(), 2, 5]", [1, 2, 3, 4, 5], (1, 2, 3, 4, 5)),
    ("[$.int(), 0, 1]", [], ()),
    ("[$.int(), 0, 1]", [1, 2], Fails("Array length 2 is not within [0..1] range")),
    ("[$.int(), 3, 1]", [1, 2], Fails("Array length 2 is not within [3..1] range")),
    ("[$.int(), -1]", [], ()),
    ("[$.int(), $.string(), 1]", [1, 2], (1, "2")),
    ("[$.int(), $.string(), 3]", [1, 2], Fails("Array length 2 must not be less than 3")),
    ("[$.int(), 5]", 7, Fails("Array length 1 must not be less than 5")),
    # only integers are bounds: booleans and floats are constants to match
    ("[$.int(), true]", [1], (1,)),
    ("[$.int(), 1.5]", [1], (1,)),
    # a list of integers only is bounds and nothing else
    ("[2]", [1], Fails("Array length 1 must not be less than 2")),
    ("[2]", [1, "a"], (1, "a")),
    ("[1, 2]", [1, 2, 3], Fails("Array length 3 is not within [1..2] range")),
    ("[5, 6, 7]", [1, 2, 3, 4, 5], Fails("Array length 5 is not within [6..7] range")),
    # nesting: paths accumulate
    ("[[$.int()]]", [1, [2]], ((1,), (2,))),
    ("[[$.int()]]", [[1], [2, "x"]], Fails("Value 'x' violates int() contract", "[1][1]")),
    ("[{a: $.int()}]", [{"a": 1}, {"a": "z"}], Fails("Value 'z' violates int() contract", "[1]['a']")),
]

DICTS = [
    ("{}", utils.FrozenDict({"a": 1}), {"a": 1}),
    ("{}", [1], Fails("Value [1] is not of a dictionary type")),
    ("{}", "x", Fails("Value 'x' is not of a dictionary type")),
    # fixed keys: missing ones are null, others are dropped
    ("{a: $.int()}", {}, {"a": None}),
    ("{a: $.int()}", {"a": "1", "b": 2}, {"a": 1}),
    ("{a: $.int()}", {1: 2, "a": 3}, {"a": 3}),
    ("{a: $.int()}", [1], Fails("Value [1] is not of a dictionary type")),
    ("{a: $.int()}", {"a": "x"}, Fails("Value 'x' violates int() contract", "['a']")),
    ("{a: $.int()}", {"a": [1]}, Fails("Value [1] violates int() contract", "['a']")),
    ("{a: $.int().notNull()}", {}, Fails("null value violates notNull() contract", "['a']")),
    ("{1: $.int()}", {1: "x"}, Fails("Value 'x' violates int() contract", "[1]")),
    ("{a: 5}", {"a": 6}, Fails("Value 6 is not equal to 5", "['a']")),
    # a contract key maps the other keys and their values
    ("{$.string(): $.int()}", {"a": "1", 3: 4}, {"a": 1, "3": 4}),
    ("{$.int(): $.int()}", {"a": "1"}, Fails("Value 'a' violates int() contract")),
    ("{$.int(): $.string()}", {"1": 2}, {1: "2"}),
    ("{$.string(): $.int()}", {1: 1, "1": 2}, {"1": 2}),
    ("{a: $.int(), $.string(): $.string()}", {"a": "1", "b": 2}, {"a": 1, "b": "2"}),
    ("{$.string(): $.int()}", {"a": "x"}, Fails("Value 'x' violates int() contract", "['a']")),
    ("{a: StringMap, $.string().notNull(): $}", {"a": "StringMap", "b": [1]},
     {"a": "StringMap", "b": (1,)}),
    ("{a: StringMap, $.string().notNull(): $}", {"a": "x"},
     Fails("Value 'x' is not equal to StringMap", "['a']")),
    ("{a: StringMap, $.string().notNull(): $}", {}, Fails("Value None is not equal to StringMap", "['a']")),
    ("{$.string(): $.int(), $.int(): $}", {"a": 1},
     Fails("Dictionary contract cannot have more than one expression key")),
    ("{a: {$.string(): $.int(), $.int(): $}}", {"a": {}},
     Fails("Dictionary contract cannot have more than one expression key", "['a']")),
    # nesting
    ("{a: [$.int()]}", {"a": [1, "x"]}, Fails("Value 'x' violates int() contract", "['a'][1]")),
    ("{a: {b: $.int()}}", {"a": {"b": "z"}}, Fails("Value 'z' violates int() contract", "['a']['b']")),
    ("{a: [$.int(), 1]}", {"a": []}, Fails("Array length 0 must not be less than 1", "['a']")),
    ("{a: [$.int(), 1, 2]}", {"a": [1, 2, 3]},
     Fails("Array length 3 is not within [1..2] range", "['a']")),
    ("{a: {b: $.int()}}", {"a": 5}, Fails("Value 5 is not of a dictionary type", "['a']")),
    ("[{b: $.int()}]", [{}, "x"], Fails("Value 'x' is not of a dictionary type", "[1]")),
    # constants
    ("x", "x", "x"),
    ("x", None, Fails("Value None is not equal to x")),
]

NULLS = [
    # null passes a list or dictionary contract as null, at any depth
    ("[$.int()]", None, None),
    ("[]", None, None),
    ("{}", None, None),
    ("{a: $.int()}", None, None),
    ("{$.string(): $.int()}", None, None),
    ("[[$.int()]]", [None], (None,)),
    ("{a: [$.int()]}", {}, {"a": None}),
    ("{a: {b: $.int()}}", {}, {"a": None}),
    ("[{a: $.int()}]", [None, {}], (None, {"a": None})),
    ("$", None, None),
    # a least length still counts null as empty
    ("[$.int(), 1]", None, Fails("Array length 0 must not be less than 1")),
    ("[$.int(), 1, 3]", None, Fails("Array length 0 is not within [1..3] range")),
    ("{a: [$.int(), 1]}", {}, Fails("Array length 0 must not be less than 1", "['a']")),
    ("[$.int(), 0, 3]", None, None),
]


def _ids(rows: list[t.Any]) -> list[str]:
    return [f"{spec} <- {value!r}" for spec, value, _ in rows]


def _check(result: t.Any, expected: t.Any) -> None:
    assert result == expected
    if isinstance(expected, tuple) and not isinstance(expected, Fails):
        assert type(result) is tuple
    if isinstance(expected, dict) and expected:
        assert isinstance(result, utils.FrozenDict)


@pytest.mark.parametrize(("spec", "value", "expected"), LISTS, ids=_ids(LISTS))
def test_list_contract(holder: t.Any, spec: str, value: t.Any, expected: t.Any) -> None:
    _check(run(holder, spec, value), expected)


@pytest.mark.parametrize(("spec", "value", "expected"), DICTS, ids=_ids(DICTS))
def test_dict_contract(holder: t.Any, spec: str, value: t.Any, expected: t.Any) -> None:
    _check(run(holder, spec, value), expected)


@pytest.mark.parametrize(("spec", "value", "expected"), NULLS, ids=_ids(NULLS))
def test_null_passes_through_structures(holder: t.Any, spec: str, value: t.Any,
                                        expected: t.Any) -> None:
    _check(run(holder, spec, value), expected)


MODES = [
    # the structure is the same in every mode; only the contract methods differ
    ("[$.int()]", 5, VALIDATE, (5,)),
    ("[$.int()]", [1, 2], VALIDATE, (1, 2)),
    ("[$.int()]", ["1"], VALIDATE, Fails("Value '1' violates int() contract", "[0]")),
    ("[$.int()]", ["1"], CHECK, Fails("Value '1' violates int() contract", "[0]")),
    ("[$.int()]", None, VALIDATE, None),
    ("[$.int(), 2]", [1], CHECK, Fails("Array length 1 must not be less than 2")),
    ("{a: $.int()}", None, CHECK, None),
    ("{a: $.int()}", {"b": 1}, VALIDATE, {"a": None}),
    ("{a: $.int()}", {"a": "1"}, VALIDATE, Fails("Value '1' violates int() contract", "['a']")),
    ("{$.string(): $.int()}", {1: 1}, CHECK, Fails("Value 1 violates string() contract")),
    ("{a: $.int()}", 3, VALIDATE, Fails("Value 3 is not of a dictionary type")),
]


@pytest.mark.parametrize(("spec", "value", "mode", "expected"), MODES,
                         ids=[f"{m}: {s} <- {v!r}" for s, v, m, _ in MODES])
def test_structure_in_each_mode(holder: t.Any, spec: str, value: t.Any, mode: str,
                                expected: t.Any) -> None:
    _check(run(holder, spec, value, mode), expected)


def test_check_answers_without_raising(holder: t.Any) -> None:
    executor, cls, obj = holder
    contract = contract_of("[$.int(), 1, 2]", cls)
    assert contract.check([1], executor=executor, this=obj)
    assert contract.check(None, executor=executor, this=obj) is False
    assert contract.check([1, 2, 3], executor=executor, this=obj) is False
    assert contract_of("{a: $.int()}", cls).check(None, executor=executor, this=obj)


def test_contract_text_is_the_spec_as_written(holder: t.Any) -> None:
    _, cls, _ = holder
    assert contract_of("[$.int(), 1, 2]", cls).text == "[$.int(), 1, 2]"
    assert contract_of("{a: $.int(), $.string(): $}", cls).text == "{'a': $.int(), $.string(): $}"


@pytest.mark.parametrize(("value", "text"), [
    ("abc", "'abc'"),
    ("", "''"),
    ("it's", "'it's'"),
    (5, "5"),
    (1.5, "1.5"),
    (True, "True"),
    (None, "None"),
    ([1, "a"], "[1, 'a']"),
    ((1, "a"), "(1, 'a')"),
    ({"a": 1}, "{'a': 1}"),
    (utils.FrozenDict({"a": 1}), "{'a': 1}"),
])
def test_format_scalar(value: t.Any, text: str) -> None:
    assert format_scalar(value) == text
