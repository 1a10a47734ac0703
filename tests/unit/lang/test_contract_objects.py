"""Object contracts: class(), template(), owned() and notOwned().

Each row gives a contract as written in a class file (of t.o.Holder), a value
named by what it is, the mode and what comes out: the same object, a new
object (its class, owner and size), a value, or the
ContractViolationException's message and path. Objects' names in messages
are written `{name}` and filled in with the object of that name.

The object world: `holder` (t.o.Holder) owns `owned` (t.o.Base), which owns
`deep`; `derived` (t.o.Derived, a t.o.Base) is owned by `holder` too; `base`
has no owner; `stranger` is owned by another holder; `other` is a t.o.Other.
"""

from __future__ import annotations

import re
import textwrap
import typing as t

import pytest
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.classes import PackageClasses
from laguna.lang.contracts import CHECK, TRANSFORM, VALIDATE, Contract, ObjRef
from laguna.lang.executor import Executor
from laguna.lang.loader import expression_hook
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import Frame
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry
from laguna.yamlio.loader import load_all

CLASSES = """\
    Namespaces:
      =: t.o
    Name: Holder
    Properties:
      size:
        Contract: $.int()
        Default: 4
    Methods:
      sized:
        Arguments:
          - size: {Contract: $.int(), Default: $.size}
        Body:
          - Return: $size
      checked:
        Arguments:
          - value: {Contract: $.check($this.valid($))}
        Body:
          - Return: $value
      outer:
        Body:
          - Return: $this.checked(5)
      valid:
        Arguments: [value: {Contract: $}]
        Body:
          - Throw: Invalid
            Message: invalid value
      logged:
        Arguments:
          - name: {Contract: $.string().check(logger($) != null)}
        Body:
          - Return: $name
    ---
    Name: SubHolder
    Extends: Holder
    ---
    Name: Base
    Properties:
      size:
        Contract: $.int()
        Default: 1
    ---
    Name: Derived
    Extends: Base
    ---
    Name: Other
    """

# another namespace: here `Derived` is t.p.Derived, which is no t.o.Base
CALLER = """\
    Namespaces:
      =: t.p
    Name: Caller
    ---
    Name: Derived
    """


class Fails(t.NamedTuple):
    message: str
    path: str = ""


class Same(t.NamedTuple):
    """The object of that name itself."""

    name: str


class New(t.NamedTuple):
    """A new object: its class, its owner's name (or None) and its size."""

    type: str
    owner: str | None
    size: int


class Ref(t.NamedTuple):
    """An ObjRef to that id (while loading)."""

    object_id: str


World = dict[str, t.Any]


@pytest.fixture(scope="module")
def world() -> World:
    registry = core_registry()
    registry.add(PackageClasses(RuntimePackage("t.o"), [
        ("Classes/Holder.yaml", lambda: textwrap.dedent(CLASSES))]))
    registry.add(PackageClasses(RuntimePackage("t.p"), [
        ("Classes/Caller.yaml", lambda: textwrap.dedent(CALLER))]))
    executor = Executor(registry)

    def new(name: str, owner: t.Any = None) -> MuranoObject:
        return executor.new_object(executor.find_class(name), owner, {})
    holder = new("t.o.Holder")
    owned = new("t.o.Base", holder)
    sub = new("t.o.SubHolder")
    return {"executor": executor, "holder": holder, "owned": owned,
            "deep": new("t.o.Base", owned), "derived": new("t.o.Derived", holder),
            "base": new("t.o.Base"), "stranger": new("t.o.Base", new("t.o.Holder")),
            "other": new("t.o.Other"), "sub": sub, "sub owned": new("t.o.Base", sub)}


def contract_of(text: str, world: World) -> Contract:
    spec = load_all("Contract: " + text, "Holder.yaml", expression_hook(False))[0]["Contract"]
    return Contract(spec, world["holder"].type)


def value_of(value: t.Any, world: World) -> t.Any:
    """`@name` is that object, `#name` its id, `&name` an ObjRef to it
    (`&nope`, `#nope`: an id no object has), in lists and dictionaries too."""
    if isinstance(value, list):
        return [value_of(item, world) for item in value]
    if isinstance(value, dict):
        return {key: value_of(item, world) for key, item in value.items()}
    if isinstance(value, str) and value[:1] in "@#&" and len(value) > 1:
        found = world.get(value[1:])
        object_id = found.id if found is not None else value[1:]
        return {"@": found, "#": object_id, "&": ObjRef(object_id)}[value[0]]
    return value


def run(world: World, text: str, value: t.Any, mode: str = TRANSFORM, *,
        owner: str | None = None, this: str = "holder", caller: Frame | None = None) -> t.Any:
    try:
        return contract_of(text, world).apply(
            value_of(value, world), executor=world["executor"], this=world[this],
            owner=world[owner] if owner else None, mode=mode, caller=caller)
    except errors.ContractViolationException as exc:
        return Fails(exc.message, exc.path)


def check(world: World, result: t.Any, expected: t.Any) -> None:
    if isinstance(expected, Fails):
        names = {k: v for k, v in world.items() if isinstance(v, MuranoObject)}
        assert result == Fails(expected.message.format(**names), expected.path)
    elif isinstance(expected, Same):
        assert result is world[expected.name]
    elif isinstance(expected, New):
        assert isinstance(result, MuranoObject)
        assert result.id not in {o.id for o in world.values() if isinstance(o, MuranoObject)}
        owner = world[expected.owner] if expected.owner else None
        assert (result.type.name, result.owner, result.get_property("size", None)) == (
            expected.type, owner, expected.size)
    elif isinstance(expected, Ref):
        assert isinstance(result, ObjRef) and result.object_id == expected.object_id
    else:
        assert result == expected
        if isinstance(expected, dict):
            assert isinstance(result, utils.FrozenDict)


NOT_BASE = "Object of type t.o.Other is not compatible with requested type t.o.Base"

CLASS = [
    ("$.class(Base)", None, TRANSFORM, None),
    ("$.class(Base)", None, VALIDATE, None),
    ("$.class(Base)", None, CHECK, None),
    ("$.class(Base)", "@base", TRANSFORM, Same("base")),
    ("$.class(Base)", "@base", VALIDATE, Same("base")),
    ("$.class(Base)", "@base", CHECK, Same("base")),
    ("$.class(Base)", "@derived", TRANSFORM, Same("derived")),
    ("$.class(Base)", "@other", TRANSFORM, Fails(NOT_BASE)),
    ("$.class(Base)", "@other", VALIDATE, Fails(NOT_BASE)),
    ("$.class(Derived)", "@base", CHECK,
     Fails("Object of type t.o.Base is not compatible with requested type t.o.Derived")),
    # in transform mode an id names an object; validate and check take objects only
    ("$.class(Base)", "#base", TRANSFORM, Same("base")),
    ("$.class(Base)", "&base", TRANSFORM, Same("base")),
    ("$.class(Base)", "#other", TRANSFORM, Fails(NOT_BASE)),
    ("$.class(Base)", "#base", VALIDATE, Fails("Value is not an object")),
    ("$.class(Base)", "&base", VALIDATE, Fails("Value is not an object")),
    ("$.class(Base)", "#base", CHECK, Fails("Value is not an object")),
    ("$.class(Base)", 5, TRANSFORM, Fails("Value 5 cannot be represented as class t.o.Base")),
    ("$.class(Base)", 1.5, TRANSFORM,
     Fails("Value 1.5 cannot be represented as class t.o.Base")),
    ("$.class(Base)", (1,), TRANSFORM,
     Fails("Value (1,) cannot be represented as class t.o.Base")),
    ("$.class(Base)", 5, VALIDATE, Fails("Value is not an object")),
    ("$.class(Base)", 5, CHECK, Fails("Value is not an object")),
    # a dictionary is a new object (of the default type, else of the contract's)
    ("$.class(Base)", {"size": "3"}, TRANSFORM, New("t.o.Base", None, 3)),
    ("$.class(Base)", {}, TRANSFORM, New("t.o.Base", None, 1)),
    ("$.class(Base, Derived)", {"size": "3"}, TRANSFORM, New("t.o.Derived", None, 3)),
    ("$.class(Base, Other)", {}, TRANSFORM, Fails(NOT_BASE)),
    ("$.class(Base)", {"size": "x"}, TRANSFORM,
     Fails("Value 'x' violates int() contract", "")),
    ("$.class(Base)", {"size": 3}, VALIDATE, Fails("Value is not an object")),
    ("$.class(Base)", {"size": 3}, CHECK, Fails("Value is not an object")),
    # the header's type name resolves in the contract's namespaces
    ("$.class(Base)", {"?": {"type": "Derived"}, "size": 2}, TRANSFORM,
     New("t.o.Derived", None, 2)),
    ("$.class(Base)", {"?": {"type": "t.o.Other"}}, TRANSFORM, Fails(NOT_BASE)),
    # paths
    ("[$.class(Base)]", ["@base", 7], TRANSFORM,
     Fails("Value 7 cannot be represented as class t.o.Base", "[1]")),
    ("{a: $.class(Base)}", {"a": "@other"}, VALIDATE, Fails(NOT_BASE, "['a']")),
]

OWNERSHIP = [
    ("$.class(Base).owned()", "@owned", TRANSFORM, Same("owned")),
    ("$.class(Base).owned()", "@deep", TRANSFORM, Same("deep")),
    ("$.class(Base).owned()", "@owned", CHECK, Same("owned")),
    ("$.class(Base).owned()", "@base", TRANSFORM, Fails("Object {base} violates owned() contract")),
    ("$.class(Base).owned()", "@stranger", TRANSFORM,
     Fails("Object {stranger} violates owned() contract")),
    ("$.class(Base).owned()", None, TRANSFORM, None),
    ("$.class(Base).notOwned()", "@base", TRANSFORM, Same("base")),
    ("$.class(Base).notOwned()", "@stranger", CHECK, Same("stranger")),
    ("$.class(Base).notOwned()", "@owned", TRANSFORM,
     Fails("Object {owned} violates notOwned() contract")),
    ("$.class(Base).notOwned()", "@deep", VALIDATE,
     Fails("Object {deep} violates notOwned() contract")),
    ("$.owned()", 5, TRANSFORM, Fails("Value 5 is not an object")),
    ("$.notOwned()", "abc", CHECK, Fails("Value 'abc' is not an object")),
    ("$.owned()", None, TRANSFORM, None),
    ("[$.owned()]", ["@owned", "@base"], TRANSFORM,
     Fails("Object {base} violates owned() contract", "[1]")),
]

TEMPLATE = [
    ("$.template(Base)", None, TRANSFORM, None),
    ("$.template(Base)", {"size": 2}, TRANSFORM, {"size": 2}),
    ("$.template(Base)", {"size": 2}, VALIDATE, {"size": 2}),
    ("$.template(Base)", {"size": 2}, CHECK, {"size": 2}),
    ("$.template(Base)", {"?": {"type": "Derived"}}, TRANSFORM, {"?": {"type": "Derived"}}),
    ("$.template(Base)", {"?": {"type": "t.o.Other"}}, TRANSFORM, Fails(NOT_BASE)),
    ("$.template(Base)", {"?": {"type": "t.o.Other"}}, CHECK, Fails(NOT_BASE)),
    # the default type is the type of a template without a header
    ("$.template(Base, Derived)", {"size": 2}, TRANSFORM, {"size": 2}),
    ("$.template(Base, Other)", {"size": 2}, TRANSFORM, Fails(NOT_BASE)),
    ("$.template(Derived)", {"?": {"type": "Base"}}, TRANSFORM,
     Fails("Object of type t.o.Base is not compatible with requested type t.o.Derived")),
    ("$.template(Base, excludeProperties => [size])", {"size": 2, "name": "x"}, TRANSFORM,
     {"name": "x"}),
    ("$.template(Base, excludeProperties => [size, name])", {"size": 2, "name": "x", "n": 1},
     TRANSFORM, {"n": 1}),
    ("$.template(Base, excludeProperties => [])", {"size": 2}, TRANSFORM, {"size": 2}),
    ("$.template(Base)", "@other", TRANSFORM, Fails(NOT_BASE)),
    ("$.template(Base)", 5, TRANSFORM, Fails("Value 5 cannot be represented as class t.o.Base")),
    ("$.template(Base)", "abc", CHECK,
     Fails("Value 'abc' cannot be represented as class t.o.Base")),
    ("$.template(Base)", (), TRANSFORM, Fails("Value () cannot be represented as class t.o.Base")),
    ("{a: $.template(Base)}", {"a": 5}, TRANSFORM,
     Fails("Value 5 cannot be represented as class t.o.Base", "['a']")),
]


def _ids(rows: list[t.Any]) -> list[str]:
    return [f"{mode}: {spec} <- {value!r}" for spec, value, mode, _ in rows]


@pytest.mark.parametrize(("spec", "value", "mode", "expected"), CLASS, ids=_ids(CLASS))
def test_class_contract(world: World, spec: str, value: t.Any, mode: str,
                        expected: t.Any) -> None:
    check(world, run(world, spec, value, mode), expected)


@pytest.mark.parametrize(("spec", "value", "mode", "expected"), OWNERSHIP, ids=_ids(OWNERSHIP))
def test_ownership_contract(world: World, spec: str, value: t.Any, mode: str,
                            expected: t.Any) -> None:
    check(world, run(world, spec, value, mode), expected)


@pytest.mark.parametrize(("spec", "value", "mode", "expected"), TEMPLATE, ids=_ids(TEMPLATE))
def test_template_contract(world: World, spec: str, value: t.Any, mode: str,
                           expected: t.Any) -> None:
    check(world, run(world, spec, value, mode), expected)


def test_template_of_an_object_is_its_model(world: World) -> None:
    base = world["base"]
    assert run(world, "$.template(Base)", "@base") == {
        "?": {"type": "t.o.Base", "id": base.id, "package": "t.o", "version": "0.0.0"},
        "size": 1}
    assert run(world, "$.template(Base)", "@base", CHECK) == run(world, "$.template(Base)",
                                                                 "@base")


@pytest.mark.parametrize("value", ["#nope", "&nope"])
def test_class_contract_of_an_unknown_id_is_no_object_found(world: World, value: str) -> None:
    with pytest.raises(errors.NoObjectFoundError) as info:
        run(world, "$.class(Base)", value)
    assert str(info.value) == 'Object "nope" is not found in object store'


@pytest.fixture
def loading(world: World) -> t.Iterator[None]:
    """As while an object graph loads (references to later objects pass)."""
    loader = world["executor"].loader
    loader.loading = True
    try:
        yield
    finally:
        loader.loading = False


@pytest.mark.usefixtures("loading")
@pytest.mark.parametrize(("spec", "value", "mode", "expected"), [
    ("$.class(Base)", "#nope", TRANSFORM, Ref("nope")),
    ("$.class(Base)", "&nope", TRANSFORM, Ref("nope")),
    ("$.class(Base)", "#base", TRANSFORM, Same("base")),
    ("$.class(Base)", "@other", TRANSFORM, Fails(NOT_BASE)),
    ("$.class(Base)", "&nope", VALIDATE, Fails("Value is not an object")),
    ("$.class(Base).owned()", "#nope", TRANSFORM, Ref("nope")),
    ("$.class(Base).notOwned()", "&nope", TRANSFORM, Ref("nope")),
    ("$.class(Base).check(false)", "#nope", TRANSFORM, Ref("nope")),
], ids=lambda v: repr(v))
def test_references_to_objects_not_loaded_yet_pass(world: World, spec: str, value: t.Any,
                                                   mode: str, expected: t.Any) -> None:
    check(world, run(world, spec, value, mode), expected)


def test_a_reference_in_a_list_passes_while_loading(world: World, loading: None) -> None:
    result = run(world, "[$.class(Base)]", ["#nope", "@base"])
    assert isinstance(result[0], ObjRef) and result[0].object_id == "nope"
    assert result[1] is world["base"]


def test_new_object_of_a_class_contract_gets_the_owner(world: World) -> None:
    made = run(world, "$.class(Base).owned()", {"size": 2}, owner="holder")
    check(world, made, New("t.o.Base", "holder", 2))
    # owned by `owned`, so by `holder` too
    refused = run(world, "$.class(Base).notOwned()", {"size": 2}, owner="owned")
    assert isinstance(refused, Fails) and refused.path == ""
    assert re.fullmatch(r"Object <t\.o\.Base/0\.0\.0 [0-9a-f]{32}> violates notOwned\(\) "
                        r"contract", refused.message)


def test_owned_counts_owners_of_the_whole_object_when_this_is_one_of_its_classes(
        world: World) -> None:
    """In a method of a parent class, `this` is that class's part of the object."""
    sub = world["sub"]
    part = sub.cast(world["holder"].type)
    assert part is not sub
    contract = contract_of("$.class(Base).owned()", world)
    executor = world["executor"]
    assert contract.apply(world["sub owned"], executor=executor, this=part) is world["sub owned"]
    assert contract.check(world["sub owned"], executor=executor, this=part)
    assert not contract.check(world["owned"], executor=executor, this=part)


def test_nothing_is_owned_by_a_class(world: World) -> None:
    """A static method's or an extension method's `this` is its class."""
    executor, ref = world["executor"], world["holder"].type.ref
    assert not contract_of("$.owned()", world).check(world["owned"], executor=executor, this=ref)
    assert contract_of("$.notOwned()", world).check(world["owned"], executor=executor, this=ref)


def caller_frame(world: World) -> Frame:
    executor = world["executor"]
    caller = executor.find_class("t.p.Caller")
    return Frame(executor, executor.new_object(caller, None, {}), None, caller, None)


def test_type_names_of_a_model_resolve_in_the_calling_class(world: World) -> None:
    caller = caller_frame(world)
    model = {"?": {"type": "Derived"}}
    assert run(world, "$.class(Base)", model, caller=caller) == Fails(
        "Object of type t.p.Derived is not compatible with requested type t.o.Base")
    assert run(world, "$.template(Base)", model, caller=caller) == Fails(
        "Object of type t.p.Derived is not compatible with requested type t.o.Base")
    # without a caller, in the contract's own class: t.o.Derived
    check(world, run(world, "$.class(Base)", model), New("t.o.Derived", None, 1))
    contract = contract_of("$.template(Base)", world)
    executor, this = world["executor"], world["holder"]
    assert contract.check(model, executor=executor, this=this)
    assert not contract.check(model, executor=executor, this=this, caller=caller)


def test_default_of_an_argument_is_evaluated_as_code_of_this(world: World) -> None:
    executor, holder = world["executor"], world["holder"]
    assert executor.call(holder, "sized") == 4
    assert executor.call(holder, "sized", 2) == 2


def test_methods_a_contract_calls_see_the_stack_of_the_call(world: World) -> None:
    executor, holder = world["executor"], world["holder"]
    with pytest.raises(errors.MuranoPlError) as info:
        executor.call(holder, "outer")
    assert info.value.names[0] == "t.o.Invalid"
    assert [(f.class_name, f.method_name) for f in info.value.frames] == [
        ("t.o.Holder", "outer"), ("t.o.Holder", None), ("t.o.Holder", "valid")]


def test_contract_expressions_call_the_functions_of_their_engine(world: World) -> None:
    """logger() is a function of the core library, not of the language."""
    assert world["executor"].call(world["holder"], "logged", "t.o.log") == "t.o.log"
