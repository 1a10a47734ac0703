"""Compiled expressions: exact results, and which of them take the compiler's
direct path rather than yaql's function resolution (the direct paths are the
point of the compiler; a guard that sends a common case to yaql would still
compute the right value, only slower, so these tests watch the fallback)."""

from __future__ import annotations

import datetime

import pytest
from yaql.language import utils
from yaql.language.exceptions import (
    NoFunctionRegisteredException,
    NoMatchingFunctionException,
    NoMethodRegisteredException,
)

from laguna.lang import compiler
from laguna.lang.classes import PackageClasses
from laguna.lang.compiler import Compiler, compile_statement
from laguna.lang.contracts import TRANSFORM, ContractState
from laguna.lang.errors import ContractViolationException, MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.scope import Scope
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry
from laguna.yaql import engine
from laguna.yaql.engine import Limits


class FallbackSpy:
    """Stands in for yaql's runner in the compiler module and records the
    names of the functions handed to yaql."""

    def __init__(self, real):
        self.real = real
        self.names: list[str] = []

    def call(self, name, *args, **kwargs):
        self.names.append(name)
        return self.real.call(name, *args, **kwargs)


@pytest.fixture
def spy(monkeypatch):
    recorder = FallbackSpy(compiler.runner)
    monkeypatch.setattr(compiler, "runner", recorder)
    return recorder


def scope(legacy=False, **variables):
    root = Scope(engine.create_root_context(legacy))
    for name, value in variables.items():
        root["$" + name] = value
    return root


def run(text, legacy=False, **variables):
    fn = Compiler(legacy).statement(engine.parse(text, legacy))
    return fn(scope(legacy, **variables))


FAST = [
    ("[10, 20, 30][1]", 20),
    ("$l[0]", 5),
    ("$l[$z]", 5),
    ("$d[$k]", "v"),
    ("{'a' => 1}['a']", 1),
    ("$d['k']", "v"),
    ("-$i", -3),
    ("-$f", -1.5),
    ("+$i", 3),
    ("+$f", 1.5),
    ("not $i", False),
    ("not $z", True),
    ("$i + 2", 5),
    ("$f + 2", 3.5),
    ("2 + $f", 3.5),
    ("$i - 5", -2),
    ("$i * $f", 4.5),
    ("'ab' + 'cd'", "abcd"),
    ("[1] + [2, 3]", (1, 2, 3)),
    ("7 / 2", 3),
    ("-7 / 2", -4),
    ("7.0 / 2", 3.5),
    ("7 / 2.0", 3.5),
    ("$f / $i", 0.5),
    ("7 mod 3", 1),
    ("-7 mod 3", 2),
    ("1 < 2", True),
    ("2 < 1", False),
    ("2 > 1", True),
    ("2 <= 2", True),
    ("3 >= 4", False),
    ("1.5 < 2", True),
    ("2 < 1.5", False),
    ("'a' < 'b'", True),
    ("'b' >= 'a'", True),
    ("1 = 1", True),
    ("1 = 1.0", True),
    ("'a' = 'b'", False),
    ("null = null", True),
    ("true != false", True),
    ("1 != 1", False),
    ("'x' != 'x'", False),
    ("2 in [1, 2]", True),
    ("3 in [1, 2]", False),
    ("'a' in ['a']", True),
    ("null in [null]", True),
    ("$d.k", "v"),
    ("$d.missing", None),
    ("{'a' => {'b' => 2}}.a.b", 2),
    ("$n?.k", None),
    ("$d?.k", "v"),
    ("true and 2", 2),
    ("0 and 2", 0),
    ("0 or 'x'", "x"),
    ("3 or 'x'", 3),
    ("$i and $z", 0),
    ("$z or $i", 3),
    ("$i or $z", 3),
    ("7 mod $i", 1),
    ("$i / $f", 2.0),
    ("$i / $i", 1),
    ("$i mod 2", 1),
    ("$i < $f", False),
    ("$f < $i", True),
    ("$i = $i", True),
    ("$i != $f", True),
    ("$i in $t", True),
    ("($i + 1) * 2", 8),
]


@pytest.mark.parametrize(("text", "expected"), FAST)
def test_common_operations_take_the_direct_path(spy, text, expected):
    value = run(text, i=3, f=1.5, z=0, l=[5, 6], d={"k": "v"}, n=None, k="k", t=(3,))
    assert value == expected
    assert type(value) is type(expected)
    assert spy.names == []


NO_MATCH = "no matching function"
SLOW = [
    # text, the function yaql gets, the result yaql computes
    ("'abc'[1]", "#indexer", NO_MATCH),
    ("[1, 2][true]", "#indexer", 2),
    ("-'a'", "#unary_operator_-", NO_MATCH),
    ("-timespan(days => 1)", "#unary_operator_-", datetime.timedelta(days=-1)),
    ("+timespan(days => 1)", "#unary_operator_+", datetime.timedelta(days=1)),
    ("'a' + 1", "#operator_+", NO_MATCH),
    ("true + 1", "#operator_+", NO_MATCH),
    ("[1] + 'a'", "#operator_+", NO_MATCH),
    ("{'a' => 1} + {'b' => 2}", "#operator_+", utils.FrozenDict({"a": 1, "b": 2})),
    ("[1] - [1]", "#operator_-", NO_MATCH),
    ("set(1, 2) - set(1)", "#operator_-", frozenset({2})),
    ("'ab' * 2", "#operator_*", "abab"),
    ("'a' / 2", "#operator_/", NO_MATCH),
    ("true / 1", "#operator_/", NO_MATCH),
    ("timespan(days => 2) / 2", "#operator_/", datetime.timedelta(days=1)),
    ("timespan(days => 2) / timespan(days => 1)", "#operator_/", 2.0),
    ("7.5 mod 2", "#operator_mod", 1.5),
    ("7 mod 2.5", "#operator_mod", 2.0),
    ("true mod 2", "#operator_mod", NO_MATCH),
    ("true < 2", "#operator_<", NO_MATCH),
    ("'a' < 1", "#operator_<", NO_MATCH),
    ("null < 1", "#operator_<", True),
    ("set(1) < set(1, 2)", "#operator_<", True),
    ("[1] = [1]", "*equal", True),
    ("1 = [1]", "*equal", False),
    ("[1] = 1", "*equal", False),
    ("[1] != [2]", "*not_equal", True),
    ("[1] in [[1]]", "#operator_in", True),
    ("2 in {2 => 1}", "#operator_in", NO_MATCH),
    ("'a' in 'cat'", "#operator_in", True),
    ("'abc' =~ 'b'", "#operator_=~", True),
]


@pytest.mark.parametrize(("text", "name", "expected"), SLOW)
def test_other_operations_go_to_yaql(spy, text, name, expected):
    try:
        value = run(text)
    except NoMatchingFunctionException:
        value = NO_MATCH
    assert value == expected
    assert [n for n in spy.names if n not in ("set", "timespan")][:1] == [name]


def test_negating_a_string_is_an_error_yaql_raises():
    with pytest.raises(NoMatchingFunctionException, match='No function "#unary_operator_-"'):
        run("-'a'")


def test_adding_a_string_and_a_number_is_an_error_yaql_raises():
    with pytest.raises(NoMatchingFunctionException, match='No function "#operator_\\+"'):
        run("'a' + 1")


def test_subtracting_strings_is_an_error():
    with pytest.raises(NoMatchingFunctionException, match='No function "#operator_-"'):
        run("'a' - 'b'")


def test_subtracting_lists_is_an_error():
    with pytest.raises(NoMatchingFunctionException, match='No function "#operator_-"'):
        run("[1] - [1]")


def test_and_stops_at_a_false_left_side():
    # the right side would fail: an unknown function
    assert run("false and nosuch()") is False
    assert run("true or nosuch()") is True


def test_map_builds_a_frozen_dict_of_evaluated_pairs():
    value = run("{$k => $i + 1, 'b' => [$i]}", k="a", i=1)
    assert type(value) is utils.FrozenDict
    assert dict(value) == {"a": 2, "b": (1,)}


def test_list_elements_are_evaluated_in_order():
    assert run("[$i, $i + 1, 'x']", i=1) == (1, 2, "x")


def test_statement_result_is_frozen():
    assert run("$l", l=[1, [2]]) == (1, (2,))
    assert type(run("$d", d={"a": [1]})) is utils.FrozenDict


def test_unknown_node_cannot_be_compiled():
    with pytest.raises(TypeError, match="cannot compile yaql node 42"):
        Compiler(False).node(42)


def test_a_statement_or_its_expression_compile_alike():
    parsed = engine.parse("$i + 1", False)
    assert Compiler(False).statement(parsed.expression)(scope(i=1)) == 2
    assert Compiler(False).statement(parsed)(scope(i=1)) == 2


def test_a_mapping_rule_in_a_list_is_evaluated():
    (rule,) = run("[$k => $i]", k="a", i=1)
    assert (type(rule), rule.source, rule.destination) == (utils.MappingRule, "a", 1)


def test_variable_names_are_normalised():
    assert run("$", **{"1": 7}) == 7


def test_null_safe_method_call_on_null_is_null(spy):
    assert run("$n?.len()", n=None) is None
    assert spy.names == []


def test_method_call_on_a_value_goes_to_yaql(spy):
    assert run("$l.reverse()", l=[1, 2]) == (2, 1)
    assert run("$l?.reverse()", l=[1, 2, 3]) == (3, 2, 1)
    assert spy.names == ["reverse", "reverse"]


def test_method_with_named_arguments_goes_to_yaql():
    assert run("$l.join(separator => '-')", l=["a", "b"]) == "a-b"


def test_function_with_named_arguments_goes_to_yaql():
    assert run("dict(a => 1)") == utils.FrozenDict({"a": 1})


def test_fast_function_answers_without_yaql(spy):
    assert run("str(12)") == "12"
    assert run("list(1, 2)") == (1, 2)
    assert spy.names == []


def test_fast_function_hands_unusual_arguments_to_yaql(spy):
    assert type(run("str([1])")) is str
    assert spy.names == ["str"]


def test_legacy_engine_never_uses_the_fast_functions(spy):
    assert run("str(12)", legacy=True) == "12"
    assert spy.names == ["str"]


def test_legacy_engine_uses_the_direct_operators(spy):
    assert run("1 + 2", legacy=True) == 3
    assert spy.names == []


def test_named_argument_of_a_fast_function_goes_to_yaql(spy):
    with pytest.raises(NoMatchingFunctionException, match='No function "list"'):
        run("list(a => 1)")
    assert spy.names == ["list"]


def test_indexer_with_more_than_one_index_goes_to_yaql(spy):
    with pytest.raises(NoMatchingFunctionException, match='No function "#indexer"'):
        run("$l[0, $z]", l=[1, 2], z=1)
    assert spy.names == ["#indexer"]


def test_dot_with_an_expression_on_the_right_goes_to_yaql(spy):
    with pytest.raises(NoMatchingFunctionException, match='No function "#operator_."'):
        run("$d.$k", d={"k": "v"}, k="k")
    with pytest.raises(NoMatchingFunctionException):
        run("$d?.$k", d={"k": "v"}, k="k")
    assert spy.names == ["#operator_.", "#operator_?."]


def test_compiled_statement_is_built_once_per_statement_and_mode():
    parsed = engine.parse("1 + $compiled_once", False)
    first = compile_statement(parsed, False)
    assert compile_statement(parsed, False) is first
    assert compile_statement(parsed, True) is not first
    assert compile_statement(parsed, False, contract=True) is not first


def test_dot_on_a_value_uses_yaql_with_the_computed_receiver(spy):
    # the receiver is computed once: yaql gets it as a constant
    assert run("'abc'.len()") == 3


def test_compiled_argument_evaluates_in_the_context_it_is_given():
    node = engine.parse("$x", False).expression
    arg = Compiler(False).arg(node)
    assert arg(None, scope(x=4), None) == 4
    assert str(arg) == "$x"
    assert arg.uses_receiver is False


def test_constant_argument_is_passed_as_it_is():
    node = engine.parse("f(1)", False).expression.args[0]
    assert Compiler(False).arg(node) is node


def test_engine_of_a_scope_without_frame_is_the_shared_one():
    assert compiler._engine(scope(), False) is engine.create_engine(False)
    assert compiler._engine(scope(), True) is engine.create_engine(True)


def test_a_contract_method_name_in_plain_code_is_an_ordinary_method():
    with pytest.raises(NoMethodRegisteredException, match='Unknown method "int" for receiver 5'):
        run("$s.int()", s="5")


def test_attribute_of_a_plain_value_asks_yaql_for_the_property():
    for text in ("$s.upper", "$s?.upper"):
        with pytest.raises(NoFunctionRegisteredException,
                           match='Unknown function "#property#upper"'):
            run(text, s="abc")


# -- expressions over MuranoPL objects, run by an executor ---------------------------
CLASS = """\
Namespaces:
  =: t
  x: t
  y: u
Name: A
Properties:
  p: {Contract: $, Usage: InOut, Default: 5}
  n: {Contract: $.int(), Usage: InOut, Default: '7'}
  q: {Contract: $, Usage: InOut}
  s: {Contract: $, Usage: Static, Default: st}
Methods:
  sub:
    Arguments: [a: {Contract: $}, b: {Contract: $}]
    Body: [Return: $a - $b]
  static:
    Usage: Static
    Body: [Return: static]
  repeat:
    Arguments: [n: {Contract: $}]
    Body: [Return: len('ab' * $n)]
  isA:
    Arguments: [x: {Contract: $}]
    Body: [Return: $x is :A]
  isNamedA:
    Arguments: [x: {Contract: $}]
    Body: [Return: $x is 'A']
  otherNamespace:
    Body: [Return: y:B.who()]
  members:
    Body:
      - Return: list($.p, $this.p, :A.s, x:A.s, :A.static(), x:A.static(), $.n)
  calls:
    Body:
      - Return: list($.sub(5, 2), $.sub(b => 5, a => 1), $.sub(5, b => 1), $.q?.sub(1, 2))
  builtins:
    Body:
      - Return: list(id($) = $.id(), format('{0}-{1}', 1, 2), '{0}+{1}'.format(1, 2))
  collection:
    Body:
      - Return: range(10).select($ * 2).sum()
  attribute:
    Arguments: [s: {Contract: $}]
    Body: [Return: $s.upper]
  nullSafeAttribute:
    Arguments: [s: {Contract: $}]
    Body: [Return: $s?.upper]
"""


OTHER = """\
Name: u.B
Methods:
  who:
    Usage: Static
    Body: [Return: u.B]
"""


def executor_and_object(limits=None):
    registry = core_registry()
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [("A.yaml", lambda: CLASS),
                                                          ("B.yaml", lambda: OTHER)]))
    executor = Executor(registry, limits) if limits is not None else Executor(registry)
    return executor, executor.new_object(registry.find("t.A"), None, {})


def test_properties_type_references_and_static_calls():
    executor, obj = executor_and_object()
    assert executor.call(obj, "members") == (5, 5, "st", "st", "static", "static", 7)


def test_method_calls_with_positional_and_named_arguments():
    executor, obj = executor_and_object()
    assert executor.call(obj, "calls") == (3, -4, 4, None)


def test_builtins_and_the_direct_format_method(spy):
    executor, obj = executor_and_object()
    assert executor.call(obj, "builtins") == (True, "1-2", "1+2")
    assert "format" not in spy.names


def test_yaql_functions_of_compiled_code_apply_the_executors_limits():
    executor, obj = executor_and_object()
    assert executor.call(obj, "collection") == 90
    executor, obj = executor_and_object(Limits(iterators=5))
    with pytest.raises(MuranoPlError, match="^\\[LimitExceededError\\]: iterators limit of 5 items exceeded by a collection of more than 5 items at A.yaml:40$"):
        executor.call(obj, "collection")


def test_a_map_item_without_an_arrow_cannot_be_compiled():
    with pytest.raises(TypeError, match="^map items must be key => value$"):
        Compiler(False).statement(engine.parse("{1}", False))


def test_compile_statement_keeps_the_legacy_mode(spy):
    assert compile_statement(engine.parse("str(12)", True), True)(scope(True)) == "12"
    assert spy.names == ["str"]


def test_compile_statement_keeps_the_contract_mode():
    fn = compile_statement(engine.parse("$.int()", False), False, contract=True)
    context = scope(**{"1": "5"})
    context.contract = ContractState(TRANSFORM, None, None, None, None, None)
    assert fn(context) == 5


def test_arguments_of_a_fast_function_are_evaluated_in_the_scope(spy):
    assert run("str($i)", i=3) == "3"
    assert spy.names == []


def test_attribute_of_a_plain_value_inside_a_method_asks_yaql():
    executor, obj = executor_and_object()
    for method in ("attribute", "nullSafeAttribute"):
        with pytest.raises(MuranoPlError, match='Unknown property "upper"'):
            executor.call(obj, method, "abc")


def test_is_tests_the_class_of_an_object():
    executor, obj = executor_and_object()
    assert executor.call(obj, "isA", obj) is True
    assert executor.call(obj, "isA", 1) is False


def test_check_contract_method_compiles_its_predicate_and_message():
    fn = compile_statement(engine.parse("$.check($ > 0, 'positive')", False), False,
                           contract=True)
    context = scope(**{"1": 5})
    context.contract = ContractState(TRANSFORM, None, None, None, None, None)
    assert fn(context) == 5
    context["$1"] = -1
    with pytest.raises(ContractViolationException, match="^positive$"):
        fn(context)


def test_yaql_operators_of_compiled_code_apply_the_executors_limits():
    executor, obj = executor_and_object()
    assert executor.call(obj, "repeat", 100_000) == 200_000
    executor, obj = executor_and_object(Limits(memory_quota=10_000))
    with pytest.raises(MuranoPlError, match="^\\[LimitExceededError\\]: memory_quota limit of 10000 bytes exceeded by an argument or a result of a yaql function at A.yaml:20$"):
        executor.call(obj, "repeat", 100_000)


def test_is_with_a_class_name_resolves_it_in_the_calling_class():
    executor, obj = executor_and_object()
    assert executor.call(obj, "isNamedA", obj) is True


def test_a_namespace_prefix_names_its_own_namespace():
    executor, obj = executor_and_object()
    assert executor.call(obj, "otherNamespace") == "u.B"


def test_other_binary_operators_get_both_evaluated_operands():
    assert run("$s =~ $p", s="abc", p="b") is True
    assert run("$s =~ $p", s="abc", p="x") is False


@pytest.mark.parametrize("text", ["len($t)", "len($s)", "len($d)", "len($e)"])
def test_len_of_a_sized_value_answers_without_yaql_as_yaql_does(spy, text):
    values = dict(t=(1, 2, 3), s="four", d=utils.FrozenDict(a=1, b=2), e=frozenset({1}))
    assert run(text, **values) == run(text, legacy=True, **values)
    assert spy.names == ["len"]      # the legacy run's, through yaql


def test_len_of_a_query_counts_its_items_without_yaql(spy):
    assert run("len($l.where($ > 1))", l=(1, 2, 3)) == 2
    assert spy.names == []


def test_get_of_a_mapping_answers_without_yaql(spy):
    d = utils.FrozenDict(a=1, n=None)
    assert run("$d.get(a)", d=d) == 1
    assert run("$d.get(z)", d=d) is None
    assert run("$d.get(z, 3)", d=d) == 3
    assert run("$d.get(n, 3)", d=d) is None
    assert spy.names == []


def test_get_with_a_named_argument_or_of_another_value_goes_to_yaql(spy):
    d = utils.FrozenDict(a=1)
    assert run("$d.get(z, default => 3)", d=d) == 3
    with pytest.raises(Exception, match="get"):
        run("$l.get(0)", l=(1,))
    assert spy.names == ["get", "get"]


def test_get_in_the_legacy_engine_goes_to_yaql(spy):
    assert run("$d.get(a)", legacy=True, d=utils.FrozenDict(a=1)) == 1
    assert spy.names == ["get"]
