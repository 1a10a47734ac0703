"""How MuranoPL's YAQL groups operators, in both engines (legacy and not).

The expected grouping is written out here on its own: each pair of binary
operators, and each prefix operator before each binary one, is parsed and the
tree compared with what the levels below say.
"""

from __future__ import annotations

import itertools

import pytest
from yaql.language import exceptions as yaql_exceptions

from laguna.yaql import engine

# tightest first; "left"/"right" is how a chain of one level groups
BINARY_LEVELS: list[tuple[str, tuple[str, ...]]] = [
    ("left", (":",)),
    ("left", (".", "?.")),
    ("left", ("=~", "!~")),
    ("left", ("*", "/", "mod")),
    ("left", ("+", "-")),
    ("left", (">", "<", ">=", "<=", "!=", "=", "in", "is")),
    ("left", ("and",)),
    ("left", ("or",)),
    ("right", ("->",)),
]
# a prefix operator binds tighter than the binary operators of a higher level
PREFIX_LEVEL = {":": 0, "+": 1.5, "-": 1.5, "not": 5.5}

LEVEL = {op: i for i, (_, ops) in enumerate(BINARY_LEVELS) for op in ops}
ASSOC = {op: assoc for assoc, ops in BINARY_LEVELS for op in ops}
BINARY = [op for _, ops in BINARY_LEVELS for op in ops]
MODES = [pytest.param(False, id="yaql"), pytest.param(True, id="legacy")]


def node(op: str, *args: str) -> str:
    name = {"=": "*equal", "!=": "*not_equal"}.get(op)
    if name is None:
        name = ("#unary_operator_" if len(args) == 1 else "#operator_") + op
    return f"{name}({', '.join(args)})"


def parsed(text: str, legacy: bool) -> str:
    return str(engine.parse(text, legacy))


@pytest.mark.parametrize("legacy", MODES)
def test_every_pair_of_binary_operators(legacy: bool) -> None:
    wrong = []
    for first, second in itertools.product(BINARY, BINARY):
        text = f"a {first} b {second} c"
        left_first = LEVEL[first] < LEVEL[second] or (
            LEVEL[first] == LEVEL[second] and ASSOC[first] == "left")
        if left_first:
            expected = node(second, node(first, "'a'", "'b'"), "'c'")
        else:
            expected = node(first, "'a'", node(second, "'b'", "'c'"))
        if parsed(text, legacy) != expected:
            wrong.append((text, parsed(text, legacy), expected))
    assert wrong == []


@pytest.mark.parametrize("legacy", MODES)
def test_every_prefix_operator_before_every_binary_operator(legacy: bool) -> None:
    wrong = []
    for prefix, binary in itertools.product(PREFIX_LEVEL, BINARY):
        text = f"{prefix} a {binary} b"
        if PREFIX_LEVEL[prefix] <= LEVEL[binary]:
            expected = node(binary, node(prefix, "'a'"), "'b'")
        else:
            expected = node(prefix, node(binary, "'a'", "'b'"))
        if parsed(text, legacy) != expected:
            wrong.append((text, parsed(text, legacy), expected))
    assert wrong == []


@pytest.mark.parametrize("legacy", MODES)
@pytest.mark.parametrize(("text", "tree"), [
    ("2 + 3 * 4", "#operator_+(2, #operator_*(3, 4))"),
    ("2 - 3 - 4", "#operator_-(#operator_-(2, 3), 4)"),
    ("-2 * 3", "#operator_*(#unary_operator_-(2), 3)"),
    ("- - a", "#unary_operator_-(#unary_operator_-('a'))"),
    ("not not a", "#unary_operator_not(#unary_operator_not('a'))"),
    ("not a = b", "#unary_operator_not(*equal('a', 'b'))"),
    ("a or b and c", "#operator_or('a', #operator_and('b', 'c'))"),
    ("a =~ b + c", "#operator_+(#operator_=~('a', 'b'), 'c')"),
    ("a * b !~ c", "#operator_*('a', #operator_!~('b', 'c'))"),
    ("1 + 2 in $x", "#operator_in(#operator_+(1, 2), $x)"),
    ("$o is ns:T", "#operator_is($o, #operator_:('ns', 'T'))"),
    ("$o is :T", "#operator_is($o, #unary_operator_:('T'))"),
    (":a:b", "#operator_:(#unary_operator_:('a'), 'b')"),
    ("x.a:b", "#operator_.('x', #operator_:('a', 'b'))"),
    ("$x[1][2]", "#indexer(#indexer($x, 1), 2)"),
    ("$x.y[0]", "#indexer(#operator_.($x, 'y'), 0)"),
    ("-$x.y", "#unary_operator_-(#operator_.($x, 'y'))"),
    ("-$x[1]", "#unary_operator_-(#indexer($x, 1))"),
    ("$x.f(1)[0]", "#indexer(#operator_.($x, f(1)), 0)"),
    ("$x?.y.z", "#operator_.(#operator_?.($x, 'y'), 'z')"),
    ("f(a => 1, b => 2 + 3)", "f('a' => 1, 'b' => #operator_+(2, 3))"),
    ("a -> b -> c", "#operator_->('a', #operator_->('b', 'c'))"),
    ("a -> b or c", "#operator_->('a', #operator_or('b', 'c'))"),
])
def test_grouping(legacy: bool, text: str, tree: str) -> None:
    assert parsed(text, legacy) == tree


@pytest.mark.parametrize("legacy", MODES)
@pytest.mark.parametrize("text", ["2 ** 3", "x => 1", "$x{a}", "a => b -> c"])
def test_not_operators(legacy: bool, text: str) -> None:
    with pytest.raises(yaql_exceptions.YaqlGrammarException):
        engine.parse(text, legacy)
