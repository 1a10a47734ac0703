"""Every scalar contract function against every kind of value, in transform
mode (what a property or argument gets) and in check mode (extension method
dispatch, ancestors' declarations), as the original engine's contracts did
(murano/dsl/contracts/basic.py: int() converts what Python's int() takes,
string() converts integers and objects only, bool() converts anything; in
check mode each accepts only its own type, and null).

Lists and dictionaries as contracts have tests of their own (test_contracts*).
"""

from __future__ import annotations

import textwrap
import typing as t

import pytest
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.classes import PackageClasses
from laguna.lang.contracts import CHECK, TRANSFORM
from laguna.lang.executor import Executor
from laguna.lang.objects import MuranoObject
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry

CLASS = """\
    Namespaces:
      =: t.c
    Name: Holder
    Methods:
      takes:
        Arguments:
          - int: {Contract: $.int()}
          - string: {Contract: $.string()}
          - bool: {Contract: $.bool()}
          - notNull: {Contract: $.notNull()}
          - intNotNull: {Contract: $.int().notNull()}
          - positive: {Contract: $.int().check($ > 0)}
          - holder: {Contract: $.class(Holder)}
          - other: {Contract: $.class(Other)}
          - owned: {Contract: $.class(Holder).owned()}
          - template: {Contract: $.template(Holder)}
    --- # an unrelated class
    Name: Other
    """

# the kinds of value MuranoPL code can pass; "object" and "other" are objects
# of t.c.Holder and t.c.Other
KINDS = ["null", "true", "false", "zero", "int", "negative", "float", "empty string",
         "digits", "word", "empty list", "list", "empty dict", "dict", "object", "other"]


def _value(kind: str, holder: t.Any, other: t.Any) -> t.Any:
    return {"null": None, "true": True, "false": False, "zero": 0, "int": 7, "negative": -3,
            "float": 1.5, "empty string": "", "digits": "12", "word": "abc",
            "empty list": (), "list": (1,), "empty dict": utils.FrozenDict(),
            "dict": utils.FrozenDict({"a": 1}), "object": holder, "other": other}[kind]


class Rejects(t.NamedTuple):
    message: str


OBJECT = object()   # the value itself, unchanged
ID = object()       # the object's id

# contract -> kind -> what transform mode gives (a value, OBJECT, ID or Rejects)
TRANSFORMED: dict[str, dict[str, t.Any]] = {
    "int": {"null": None, "true": 1, "false": 0, "zero": 0, "int": 7, "negative": -3,
            "float": 1, "digits": 12,
            "empty string": Rejects("Value '' violates int() contract"),
            "word": Rejects("Value 'abc' violates int() contract"),
            "empty list": Rejects("Value () violates int() contract"),
            "list": Rejects("Value (1,) violates int() contract"),
            "empty dict": Rejects("Value {} violates int() contract"),
            "dict": Rejects("Value {'a': 1} violates int() contract"),
            "object": Rejects("violates int() contract"),
            "other": Rejects("violates int() contract")},
    "string": {"null": None, "true": "True", "false": "False", "zero": "0", "int": "7",
               "negative": "-3", "empty string": "", "digits": "12", "word": "abc",
               "float": Rejects("Value 1.5 violates string() contract"),
               "empty list": Rejects("Value () violates string() contract"),
               "list": Rejects("Value (1,) violates string() contract"),
               "empty dict": Rejects("Value {} violates string() contract"),
               "dict": Rejects("Value {'a': 1} violates string() contract"),
               "object": ID, "other": ID},
    "bool": {"null": None, "true": True, "false": False, "zero": False, "int": True,
             "negative": True, "float": True, "empty string": False, "digits": True,
             "word": True, "empty list": False, "list": True, "empty dict": False,
             "dict": True, "object": True, "other": True},
    "notNull": {**{kind: OBJECT for kind in KINDS},
                "null": Rejects("null value violates notNull() contract")},
    "intNotNull": {"null": Rejects("null value violates notNull() contract")},
    "positive": {"int": 7, "digits": 12, "true": 1, "float": 1,
                 "zero": Rejects("Value 0 doesn't match predicate"),
                 "false": Rejects("Value 0 doesn't match predicate"),
                 "negative": Rejects("Value -3 doesn't match predicate"),
                 "word": Rejects("Value 'abc' violates int() contract")},
    "holder": {"null": None, "object": OBJECT,
               **{kind: Rejects("cannot be represented as class t.c.Holder")
                  for kind in ["true", "false", "zero", "int", "negative", "float",
                               "empty list", "list"]},
               "other": Rejects("t.c.Other")},
    "other": {"null": None, "other": OBJECT,
              "object": Rejects("t.c.Holder"),
              "int": Rejects("Value 7 cannot be represented as class t.c.Other")},
    # a new object from a dict has no owner here, so owned() refuses it too
    "owned": {"null": None,
              **{kind: Rejects("cannot be represented as class t.c.Holder")
                 for kind in ["true", "zero", "int", "float", "empty list", "list"]},
              **{kind: Rejects("violates owned() contract")
                 for kind in ["object", "empty dict", "dict"]},
              "other": Rejects("Object of type t.c.Other is not compatible with requested "
                               "type t.c.Holder")},
    "template": {"null": None, "empty dict": OBJECT, "dict": OBJECT,
                 **{kind: Rejects("cannot be represented as class t.c.Holder")
                    for kind in ["true", "false", "zero", "int", "negative", "float",
                                 "empty string", "digits", "word", "empty list", "list"]},
                 "other": Rejects("Object of type t.c.Other is not compatible with requested "
                                  "type t.c.Holder")},
}

# contract -> the kinds check mode accepts (it converts nothing)
CHECKED: dict[str, set[str]] = {
    "int": {"null", "zero", "int", "negative"},
    "string": {"null", "empty string", "digits", "word"},
    "bool": {"null", "true", "false"},
    "notNull": set(KINDS) - {"null"},
    "intNotNull": {"zero", "int", "negative"},
    "positive": {"int"},
    "holder": {"null", "object"},
    "other": {"null", "other"},
    "owned": {"null"},
    "template": {"null", "empty dict", "dict", "object"},
}


@pytest.fixture(scope="module")
def world() -> tuple[Executor, t.Any, t.Any, t.Any]:
    registry = core_registry()
    body = textwrap.dedent(CLASS)
    registry.add(PackageClasses(RuntimePackage("t.c"), [("Classes/Holder.yaml", lambda: body)]))
    executor = Executor(registry)
    holder_cls = executor.find_class("t.c.Holder")
    holder = executor.new_object(holder_cls, None, {})
    other = executor.new_object(executor.find_class("t.c.Other"), None, {})
    return executor, holder_cls.find_method("takes"), holder, other


def _unchanged(result: t.Any, value: t.Any) -> bool:
    if isinstance(value, MuranoObject):
        return result is value
    return type(result) is type(value) and result == value


def _contract(method: t.Any, name: str) -> t.Any:
    return next(a.contract for a in method.arguments if a.name == name)


TRANSFORM_ROWS = [(contract, kind, expected) for contract, table in TRANSFORMED.items()
                  for kind, expected in table.items()]
CHECK_ROWS = [(contract, kind, kind in accepted) for contract, accepted in CHECKED.items()
              for kind in KINDS]


@pytest.mark.parametrize(("contract", "kind", "expected"), TRANSFORM_ROWS,
                         ids=[f"{c}-{k}" for c, k, _ in TRANSFORM_ROWS])
def test_transform(world: t.Any, contract: str, kind: str, expected: t.Any) -> None:
    executor, method, holder, other = world
    value = _value(kind, holder, other)
    apply = _contract(method, contract).apply
    if isinstance(expected, Rejects):
        with pytest.raises(errors.ContractViolationException) as info:
            apply(value, executor=executor, this=holder, mode=TRANSFORM)
        assert expected.message in str(info.value)
        return
    result = apply(value, executor=executor, this=holder, mode=TRANSFORM)
    if expected is OBJECT:
        assert _unchanged(result, value)
    elif expected is ID:
        assert result == value.id and type(result) is str
    else:
        # the exact type: true is not 1, 1 is not 1.0, '1' is not 1
        assert (type(result), result) == (type(expected), expected)


@pytest.mark.parametrize(("contract", "kind", "accepted"), CHECK_ROWS,
                         ids=[f"{c}-{k}" for c, k, _ in CHECK_ROWS])
def test_check(world: t.Any, contract: str, kind: str, accepted: bool) -> None:
    executor, method, holder, other = world
    value = _value(kind, holder, other)
    c = _contract(method, contract)
    assert c.check(value, executor=executor, this=holder) is accepted
    if accepted:
        result = c.apply(value, executor=executor, this=holder, mode=CHECK)
        # check mode converts nothing (template() gives an object's model)
        assert _unchanged(result, value) or contract == "template" and kind == "object"
    else:
        with pytest.raises(errors.ContractViolationException):
            c.apply(value, executor=executor, this=holder, mode=CHECK)


def test_every_contract_meets_every_kind_in_check_mode() -> None:
    assert set(CHECKED) == set(TRANSFORMED)
    assert len(CHECK_ROWS) == len(CHECKED) * len(KINDS)


@pytest.mark.parametrize("kind", ["empty string", "digits", "word"])
def test_class_contract_of_an_unknown_id_is_no_object_found(world: t.Any, kind: str) -> None:
    """A string is an object id to class(): an unknown one is NoObjectFound."""
    executor, method, holder, other = world
    with pytest.raises(errors.NoObjectFoundError):
        _contract(method, "holder").apply(_value(kind, holder, other), executor=executor,
                                          this=holder, mode=TRANSFORM)


def test_template_refuses_a_model_of_another_class(world: t.Any) -> None:
    executor, method, holder, other = world
    model = utils.FrozenDict({"?": utils.FrozenDict({"type": "t.c.Other"})})
    with pytest.raises(errors.ContractViolationException) as info:
        _contract(method, "template").apply(model, executor=executor, this=holder)
    assert "Object of type t.c.Other is not compatible with requested type t.c.Holder" in str(
        info.value)
