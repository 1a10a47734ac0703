"""`Return` inside blocks: the rest of every enclosing block skipped, loops
left, a Try's Else not run, its Finally run (and a Return in Finally winning
over the body's Return or error), a Parallel branch's Return reaching its
method. What any other way of handing a Return up (than its signal) must keep."""

from __future__ import annotations

import pytest

from laguna.lang import errors
from tests.unit.lang.test_instructions import call, failure

CASES = [
    ("in If then", """
     m:
       Body:
         - If: true
           Then: [Return: 1, Return: 2]
         - Return: 3
     """, 1),
    ("in If else", """
     m:
       Body:
         - If: false
           Then: [Return: 1]
           Else: [Return: 2]
         - Return: 3
     """, 2),
    ("out of nested loops", """
     m:
       Body:
         - $n: 0
         - While: $n < 100
           Do:
             - For: i
               In: range(10)
               Do:
                 - $n: $n + 1
                 - If: $i = 3
                   Then: [Return: [$n, $i]]
         - Return: never
     """, (4, 3)),
    ("Break only leaves the loop", """
     m:
       Body:
         - Repeat: 5
           Do: [Break: ]
         - Return: after
     """, "after"),
    ("in Repeat", """
     m:
       Body:
         - $n: 0
         - Repeat: 5
           Do:
             - $n: $n + 1
             - If: $n = 2
               Then: [Return: $n]
     """, 2),
    ("in Switch, later cases not tried", """
     m:
       Body:
         - Switch:
             true: [Return: first]
             $.fail(): [Return: second]
     """, "first"),
    ("in Match", """
     m:
       Body:
         - Match: {1: [Return: one], 2: [Return: two]}
           Value: 2
         - Return: none
     """, "two"),
    ("in Do", """
     m:
       Body:
         - Do: [Return: inner, Return: outer]
     """, "inner"),
    ("Try: Else not run, Finally run", """
     m:
       Body:
         - $.log: []
         - Try: [Return: body]
           Else: [$.log: $.log + list(else)]
           Finally: [$.log: $.log + list(finally)]
     n:
       Body:
         - $r: $.m()
         - Return: [$r, $.log]
     """, ("body", ("finally",))),
    ("Try: Return in Finally wins", """
     m:
       Body:
         - Try: [Return: body]
           Finally: [Return: finally]
     """, "finally"),
    ("Try: Return in Finally wins over an error", """
     m:
       Body:
         - Try:
             - Throw: t.E
               Message: lost
           Finally: [Return: finally]
     """, "finally"),
    ("Try: Return in Catch, Finally run", """
     m:
       Body:
         - $.log: []
         - Try: [Throw: t.E]
           Catch: [{With: t.E, Do: [Return: caught]}]
           Finally: [$.log: $.log + list(finally)]
     n:
       Body:
         - $r: $.m()
         - Return: [$r, $.log]
     """, ("caught", ("finally",))),
    ("Try: Else runs after a body without Return", """
     m:
       Body:
         - Try: [$x: 1]
           Else: [Return: else]
         - Return: after
     """, "else"),
    ("in a Parallel branch", """
     m:
       Body:
         - Parallel:
             - Return: branch
         - Return: after
     """, "branch"),
]


@pytest.mark.parametrize(("name", "methods", "expected"), CASES, ids=[c[0] for c in CASES])
def test_return_inside_blocks(name: str, methods: str, expected: object) -> None:
    method = "n" if "\n     n:" in methods else "m"
    properties = "log:\n  Contract: $\n  Usage: InOut\n" if "$.log" in methods else ""
    assert call(methods, properties=properties, method=method) == expected


def test_a_finally_without_return_keeps_the_error() -> None:
    error = failure("""
     m:
       Body:
         - Try:
             - Throw: t.E
               Message: kept
           Finally: [$x: 1]
     """)
    assert (error.names, error.message) == (["t.E"], "kept")


def test_break_outside_a_loop_is_still_an_error() -> None:
    error = failure("""
     m:
       Body:
         - If: true
           Then: [Break: ]
     """)
    assert error.message == "Break cannot be used on method level"
    assert isinstance(error, errors.MuranoPlError)


GUARDS = [
    ("an If's Return in its Else, nested", """
     m:
       Arguments: [n: {Contract: $.int()}]
       Body:
         - If: $n > 5
           Then: [Return: big]
           Else:
             - If: $n > 2
               Then: [$r: middle]
               Else: [Return: small]
         - Return: $r
     """, {1: "small", 3: "middle", 9: "big"}),
    ("an If without Else falls through", """
     m:
       Arguments: [n: {Contract: $.int()}]
       Body:
         - If: $n > 2
           Then: [$n: $n * 10]
         - If: $n > 20
           Then: [Return: [tens, $n]]
         - Return: [ones, $n]
     """, {1: ("ones", 1), 3: ("tens", 30)}),
]


@pytest.mark.parametrize(("name", "methods", "answers"), GUARDS, ids=[g[0] for g in GUARDS])
def test_guard_clauses_return_their_value(name: str, methods: str,
                                          answers: dict[int, object]) -> None:
    for n, expected in answers.items():
        assert call(methods, n) == expected


@pytest.mark.parametrize(("failing", "instruction", "line"), [
    ("condition", "If: $n / 0 > 1", 7),
    ("branch", "Return: 1 / $n", 10),
])
def test_a_guard_clause_error_shows_its_own_instruction(failing: str, instruction: str,
                                                        line: int) -> None:
    condition = "$n / 0 > 1" if failing == "condition" else "$n < 1"
    error = failure(f"""\
        m:
          Arguments: [n: {{Contract: $.int()}}]
          Body:
            - $x: 1
            - If: {condition}
              Then:
                - $y: 2
                - Return: 1 / $n
            - Return: 3
        """, 0)
    assert error.names == ["ZeroDivisionError"]
    assert (error.frames[-1].instruction, error.frames[-1].span.line) == (instruction, line)
