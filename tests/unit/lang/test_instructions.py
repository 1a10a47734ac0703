"""Instructions of a method body (lang/macros.py): what each block construct
does, the errors a malformed one raises at load time (type, code, message and
place), and the instruction text the MuranoPL stack shows for each."""

from __future__ import annotations

import textwrap

import pytest
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.classes import PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry

SOURCE = "Classes/A.yaml"


def build(methods: str, properties: str = "") -> tuple[Executor, object]:
    body = "Name: t.A\n"
    if properties:
        body += "Properties:\n" + textwrap.indent(textwrap.dedent(properties), "  ")
    body += "Methods:\n" + textwrap.indent(textwrap.dedent(methods), "  ")
    body += "Namespaces:\n  x: t\n"
    registry = core_registry()
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [(SOURCE, lambda: body)]))
    executor = Executor(registry)
    return executor, executor.new_object(registry.find("t.A"), None, {})


def call(methods: str, *args, properties: str = "", method: str = "m"):
    executor, obj = build(methods, properties)
    return executor.call(obj, method, *args)


def failure(methods: str, *args, properties: str = "") -> errors.MuranoPlError:
    with pytest.raises(errors.MuranoPlError) as info:
        call(methods, *args, properties=properties)
    return info.value


def load_error(body: str) -> errors.ClassLoadError:
    with pytest.raises(errors.ClassLoadError) as info:
        build("m:\n  Body:\n" + textwrap.indent(textwrap.dedent(body), "    "))
    return info.value


# -- load-time errors ---------------------------------------------------------------
LOAD_ERRORS = [
    ("- For: i\n  In: [1]\n", "LAG-E0212", "For block needs a 'Do' key", 5),
    ("- If: $x\n", "LAG-E0212", "If block needs a 'Then' key", 5),
    ("- Break: 1\n", "LAG-E0213", "Break cannot have value", 5),
    ("- Continue: 1\n", "LAG-E0213", "Continue cannot have value", 5),
    ("- For: 1\n  In: []\n  Do: []\n", "LAG-E0215", "For value must be of string type", 5),
    ("- Repeat: abc\n  Do: []\n", "LAG-E0216",
     "Repeat value must be either int or expression", 5),
    ("- Repeat: true\n  Do: []\n", "LAG-E0216",
     "Repeat value must be either int or expression", 5),
    ("- Match: 1\n  Value: 1\n", "LAG-E0217", "Match value must be of dictionary type", 5),
    ("- Switch: [1]\n", "LAG-E0217", "Switch value must be of dictionary type", 5),
    ("- Throw: ''\n", "LAG-E0218", "Throw needs an exception name", 5),
    ("- Try: []\n  Catch: [1]\n", "LAG-E0219", "Catch entries must be mappings", 5),
    ("- Try: []\n  Catch:\n    - With: e\n      Then: []\n", "LAG-E0211",
     "unexpected key 'Then' in Catch; expected With, As, Do", 8),
    ("- $x: 1\n  $y: 2\n", "LAG-E0220", "an assignment must be a mapping with a single key", 5),
    ("- f($x): 1\n", "LAG-E0210", 'Invalid assignment target "f($x)"', 5),
]


@pytest.mark.parametrize(("body", "code", "message", "line"), LOAD_ERRORS,
                         ids=[e[2] for e in LOAD_ERRORS])
def test_malformed_block_is_a_load_error(body, code, message, line):
    error = load_error(body)
    assert (error.code, error.message) == (code, message)
    assert (error.span.source, error.span.line) == (SOURCE, line)


def test_unknown_key_names_the_allowed_keys_of_its_block():
    error = load_error("- While: $x\n  Do: []\n  Else: []\n")
    assert error.message == "unexpected key 'Else' in While block; expected one of Do, While"
    assert (error.code, error.span.line) == ("LAG-E0211", 7)


# -- assignments ----------------------------------------------------------------------
def test_assigning_a_structure_evaluates_its_expressions():
    assert call("""\
        m:
          Body:
            - $a: 2
            - $x: {k: [$a, 3, {n: $a}], $a: b}
            - Return: $x
        """) == utils.FrozenDict({"k": (2, 3, utils.FrozenDict({"n": 2})), 2: "b"})


def test_a_structure_without_expressions_is_a_frozen_constant():
    assert call("""\
        m:
          Body:
            - $x: {k: [1, {n: two}]}
            - Return: $x
        """) == utils.FrozenDict({"k": (1, utils.FrozenDict({"n": "two"}))})


def test_assigning_into_nested_dictionaries_creates_them():
    assert call("""\
        m:
          Body:
            - $d: {}
            - $d.a.b: 1
            - $d.a.c: 2
            - Return: $d
        """) == utils.FrozenDict({"a": utils.FrozenDict({"b": 1, "c": 2})})


def test_assigning_by_index_replaces_a_list_item_or_a_dictionary_key():
    assert call("""\
        m:
          Body:
            - $l: [1, 2, 3]
            - $l[1]: 20
            - $d: {a: 1}
            - $d[b]: 2
            - $d['a']: 10
            - Return: list($l, $d, $l[1], $d[b])
        """) == ((1, 20, 3), utils.FrozenDict({"a": 10, "b": 2}), 20, 2)


def test_reading_a_missing_key_through_an_index_target_gives_an_empty_dictionary():
    assert call("""\
        m:
          Body:
            - $d: {a: {}}
            - $d[a][b][c]: 1
            - Return: $d
        """) == utils.FrozenDict({"a": utils.FrozenDict({"b": utils.FrozenDict({"c": 1})})})


def test_assigning_an_attribute_of_a_number_fails():
    error = failure("""\
        m:
          Body:
            - $x: 1
            - $x.a: 2
        """)
    assert error.message == "attribution may only be applied to objects and dictionaries"
    assert error.frames[-1].instruction == "$x.a: 2"


def test_reading_an_attribute_of_a_number_as_a_target_fails():
    error = failure("""\
        m:
          Body:
            - $x: 1
            - $x.a.b: 2
        """)
    assert error.message == "attribution may only be applied to objects and dictionaries"


@pytest.mark.parametrize("target", ["$this", "$"])
def test_this_and_dollar_cannot_be_assigned(target):
    error = failure(f"""\
        m:
          Body:
            - {target}: 1
        """)
    assert error.names == ["ValueError"]
    assert error.message == f"Cannot assign to {target}"


@pytest.mark.parametrize("target", ["type('t.A')", "x:A"])
def test_a_type_is_not_an_assignment_target(target):
    error = failure(f"""\
        m:
          Body:
            - {target}: 1
        """)
    assert error.names == ["io.murano.exceptions.InvalidLhsTargetError"] or \
        error.names[0].endswith("InvalidLhsTargetError")


def test_assigning_a_property_through_an_attribute_target():
    assert call("""\
        m:
          Body:
            - $.p.a: 1
            - $this.q: [1, 2]
            - $.q[0]: 5
            - Return: [$.p, $.q]
        """, properties="""\
        p: {Contract: $, Usage: InOut, Default: {}}
        q: {Contract: $, Usage: InOut}
        """) == (utils.FrozenDict({"a": 1}), (5, 2))


def test_assigning_a_static_property_through_the_type():
    assert call("""\
        m:
          Body:
            - type('t.A').s: 3
            - x:A.s: 4
            - Return: [type('t.A').s]
        """, properties="""\
        s: {Contract: $, Usage: Static}
        """) == (4,)


def test_assigning_an_attribute_of_a_static_dictionary_property():
    assert call("""\
        m:
          Body:
            - x:A.s: {}
            - x:A.s.k: 1
            - Return: x:A.s
        """, properties="""\
        s: {Contract: $, Usage: Static}
        """) == utils.FrozenDict({"k": 1})


# -- blocks ---------------------------------------------------------------------------
def test_if_runs_then_or_else():
    methods = """\
        m:
          Arguments: [x: {Contract: $}]
          Body:
            - $r: none
            - If: $x
              Then: [$r: then]
              Else: [$r: else]
            - If: $x
              Then: [$r: $r + '!']
            - Return: $r
        """
    assert call(methods, True) == "then!"
    assert call(methods, False) == "else"


def test_while_stops_at_break_and_skips_at_continue():
    assert call("""\
        m:
          Body:
            - $i: 0
            - $seen: []
            - While: $i < len(range(10))
              Do:
                - $i: $i + 1
                - If: $i = 2
                  Then: [Continue: ]
                - If: $i = 5
                  Then: [Break: ]
                - $seen: $seen + [$i]
            - Return: $seen
        """) == (1, 3, 4)


def test_for_walks_a_list_or_the_keys_of_a_dictionary():
    assert call("""\
        m:
          Body:
            - $seen: []
            - For: x
              In: [1, 2, 3, 4]
              Do:
                - If: $x = 2
                  Then: [Continue: ]
                - If: $x = 4
                  Then: [Break: ]
                - $seen: $seen + [$x]
            - For: k
              In: {a: 1, b: 2}
              Do: [$seen: $seen + list($k)]
            - $d: {c: 3}
            - For: k
              In: $d
              Do: [$seen: $seen + list($k)]
            - For: n
              In: range(5, 7)
              Do: [$seen: $seen + list($n)]
            - Return: $seen
        """) == (1, 3, "a", "b", "c", 5, 6)


def test_repeat_runs_its_body_the_given_number_of_times():
    assert call("""\
        m:
          Body:
            - $n: 0
            - Repeat: 3
              Do: [$n: $n + 1]
            - Repeat: $n
              Do:
                - $n: $n + 10
                - If: $n > 20
                  Then: [Break: ]
                - Continue:
                - $n: 1000
            - Return: $n
        """) == 23


def test_match_runs_the_first_equal_case_or_the_default():
    methods = """\
        m:
          Arguments: [x: {Contract: $}]
          Body:
            - $r: []
            - Match:
                1: [$r: $r + list('one')]
                two: [$r: $r + list('two')]
              Value: $x
              Default: [$r: $r + list('default')]
            - Match:
                1: [$r: $r + list('again')]
              Value: $x
            - Return: $r
        """
    assert call(methods, 1) == ("one", "again")
    assert call(methods, "two") == ("two",)
    assert call(methods, 3) == ("default",)


def test_switch_runs_every_true_case_and_the_default_only_when_none():
    methods = """\
        m:
          Arguments: [x: {Contract: $}]
          Body:
            - $r: []
            - Switch:
                $x > 1: [$r: $r + list('big')]
                $x > 2: [$r: $r + list('bigger')]
              Default: [$r: $r + list('small')]
            - Return: $r
        """
    assert call(methods, 3) == ("big", "bigger")
    assert call(methods, 0) == ("small",)


def test_do_runs_its_body():
    assert call("""\
        m:
          Body:
            - Do:
                - $x: 1
                - $x: $x + 1
            - Return: $x
        """) == 2


def test_parallel_runs_every_branch():
    assert call("""\
        m:
          Body:
            - $.items: []
            - Parallel:
                - $.items: $.items + [1]
                - $.items: $.items + [2]
              Limit: 1
            - Parallel: []
            - Parallel:
                - $.items: $.items + [3]
              Limit: 0
            - Parallel:
                - $.items: $.items + [4]
            - Return: $.items.orderBy($)
        """, properties="items: {Contract: $, Usage: Runtime}\n") == (1, 2, 3, 4)


def test_parallel_raises_the_error_of_a_failing_branch():
    error = failure("""\
        m:
          Body:
            - Parallel:
                - $x: 1
                - Throw: First
                  Message: first
                - Throw: Second
                  Message: second
              Limit: 1
        """)
    assert (error.names, error.message) == (["First"], "first")


def test_throw_with_several_names_and_extra():
    error = failure("""\
        m:
          Body:
            - $x: 1
            - Throw: [One, Two]
              Message: boom
              Extra: {a: $x}
        """)
    assert error.names == ["One", "Two"]
    assert error.message == "boom"
    assert error.extra == utils.FrozenDict({"a": 1})


def test_throw_without_a_message_has_an_empty_message():
    error = failure("""\
        m:
          Body:
            - Throw: One
        """)
    assert (error.names, error.message, error.extra) == (["One"], "", utils.FrozenDict())


def test_throw_message_is_made_a_string():
    assert failure("m:\n  Body:\n    - Throw: One\n      Message: 42\n").message == "42"


def test_try_catches_by_name_binds_the_exception_and_runs_finally():
    assert call("""\
        m:
          Body:
            - $r: []
            - Try:
                - Throw: Two
                  Message: m2
              Catch:
                - With: One
                  Do: [$r: $r + list('one')]
                - With: [Other, Two]
                  As: e
                  Do: [$r: $r + list($e.message)]
                - With: Two
                  Do: [$r: $r + list('never')]
              Else: [$r: $r + list('else')]
              Finally: [$r: $r + list('finally')]
            - Return: $r
        """) == ("m2", "finally")


def test_try_runs_else_when_nothing_was_thrown():
    assert call("""\
        m:
          Body:
            - $r: []
            - Try: [$r: $r + list('body')]
              Catch: [Do: [$r: $r + list('catch')]]
              Else: [$r: $r + list('else')]
              Finally: [$r: $r + list('finally')]
            - Return: $r
        """) == ("body", "else", "finally")


def test_catch_without_with_catches_everything_and_may_have_no_body():
    assert call("""\
        m:
          Body:
            - $r: []
            - Try:
                - Throw: Any
              Catch:
                As: e
            - Try:
                - Throw: Any
              Catch:
                - With: Other
                  Do: [$r: $r + list('other')]
                - Do: [$r: $r + list('all')]
            - Return: [$r, $e.name]
        """) == (("all",), "Any")


def test_an_unmatched_exception_passes_through_finally():
    error = failure("""\
        m:
          Body:
            - $.items: []
            - Try:
                - Try:
                    - Throw: Two
                  Catch:
                    - With: One
                  Finally: [$.items: $.items + list('inner')]
              Catch:
                - With: Two
                  As: e
                  Do:
                    - Throw: Outer
                      Message: $.items[0]
        """, properties="items: {Contract: $, Usage: Runtime}\n")
    assert (error.names, error.message) == (["Outer"], "inner")


def test_try_without_catch_rethrows_after_finally():
    error = failure("""\
        m:
          Body:
            - Try:
                - Throw: One
              Finally:
                - $x: 1
        """)
    assert error.names == ["One"]


def test_rethrow_inside_catch_raises_the_caught_exception():
    error = failure("""\
        m:
          Body:
            - Try:
                - Throw: One
                  Message: first
              Catch:
                - Do:
                    - Rethrow:
        """)
    assert (error.names, error.message) == (["One"], "first")


def test_rethrow_after_a_try_is_outside_catch():
    error = failure("""\
        m:
          Body:
            - Try:
                - Throw: One
              Catch:
                - Do: []
            - Rethrow:
        """)
    assert error.names == ["TypeError"]
    assert error.message == "Rethrow must be inside Catch"
    assert error.frames[-1].instruction == "Rethrow"


def test_cause_of_a_throw_is_the_caught_exception():
    error = failure("""\
        m:
          Body:
            - Try:
                - Throw: Inner
                  Message: inner
              Catch:
                - As: e
                  Do:
                    - Throw: Outer
                      Message: outer
                      Cause: $e
        """)
    assert error.names == ["Outer"]
    assert error.cause is not None
    assert (error.cause.names, error.cause.message) == (["Inner"], "inner")


def test_cause_that_is_not_an_exception_object_is_ignored():
    error = failure("""\
        m:
          Body:
            - Throw: Outer
              Cause: 1
        """)
    assert error.cause is None


@pytest.mark.parametrize("keyword", ["Break", "Continue"])
def test_loop_signal_outside_a_loop_is_an_error(keyword):
    error = failure(f"""\
        m:
          Body:
            - {keyword}:
        """)
    assert error.message == f"{keyword} cannot be used on method level"
    assert error.frames[-1].instruction == keyword


def test_a_null_instruction_does_nothing():
    assert call("""\
        m:
          Body:
            -
            - Return: 1
        """) == 1


def test_a_method_without_return_gives_null():
    assert call("m:\n  Body:\n    - $x: 1\n") is None


def test_a_single_instruction_body_need_not_be_a_list():
    assert call("m:\n  Body:\n    Return: 5\n") == 5


def test_a_python_error_becomes_a_murano_error_with_the_instruction():
    error = failure("""\
        m:
          Body:
            - $x: 1 / 0
        """)
    assert error.names == ["ZeroDivisionError"]
    assert error.frames[-1].instruction == "$x: 1 / 0"
    assert error.frames[-1].span.line == 5


# -- the instruction each construct shows in the MuranoPL stack --------------------------
INSTRUCTION_TEXT = [
    ("- Return: 1 / 0\n", "Return: 1 / 0"),
    ("- If: 1 / 0\n  Then: []\n", "If: 1 / 0"),
    ("- While: 1 / 0\n  Do: []\n", "While: 1 / 0"),
    ("- For: x\n  In: 1 / 0\n  Do: []\n", "For: x"),
    ("- Repeat: 1 / 0\n  Do: []\n", "Repeat: 1 / 0"),
    ("- Match: {}\n  Value: 1 / 0\n", "Match: 1 / 0"),
    ("- Switch: {1 / 0: []}\n", "Switch"),
    ("- Parallel:\n    - $x: 1\n  Limit: 1 / 0\n", "Parallel"),
    ("- Throw: One\n  Message: 1 / 0\n", "Throw One: 1 / 0"),
    ("- Throw: 1 / 0\n", "Throw 1 / 0"),
    ("- $x: {a: 1 / 0}\n", "$x: ..."),
    ("- $x: [1 / 0]\n", "$x: ..."),
    ("- 1 / 0\n", "1 / 0"),
]


@pytest.mark.parametrize(("body", "text"), INSTRUCTION_TEXT, ids=[t for _, t in INSTRUCTION_TEXT])
def test_failing_construct_shows_its_instruction(body, text):
    error = failure("m:\n  Body:\n" + textwrap.indent(body, "    "))
    assert error.names == ["ZeroDivisionError"]
    assert error.frames[-1].instruction == text
    assert error.frames[-1].span.line == 5


def test_do_and_try_show_their_keyword_while_their_body_runs_in_a_called_method():
    error = failure("""\
        m:
          Body:
            - Do:
                - $.fail()
        fail:
          Body:
            - Throw: X
        """)
    assert [f.instruction for f in error.frames] == ["$.fail()", "Throw X"]


def test_block_heads_may_call_yaql_functions():
    assert call("""\
        m:
          Body:
            - $r: []
            - If: len(range(1)) = 1
              Then: [$r: $r + list(if)]
            - Match:
                3: [$r: $r + list(match)]
              Value: len(range(3))
            - Switch:
                len(range(2)) = 2: [$r: $r + list(switch)]
            - Repeat: len(range(2))
              Do: [$r: $r + list(repeat)]
            - Parallel:
                - $x: 1
              Limit: len(range(2))
            - Return: $r
        """) == ("if", "match", "switch", "repeat", "repeat")


def test_a_try_inside_a_catch_restores_the_exception_being_handled():
    error = failure("""\
        m:
          Body:
            - Try:
                - Throw: Outer
              Catch:
                - Do:
                    - Try:
                        - Throw: Inner
                      Catch:
                        - Do: []
                    - Rethrow:
        """)
    assert error.names == ["Outer"]
