"""The compiler must compute what yaql computes: a differential test."""

import yaql
from hypothesis import given, settings
from hypothesis import strategies as st

from laguna.lang.compiler import compile_statement
from laguna.lang.dispatch import freeze
from laguna.lang.scope import Scope
from laguna.yaql import engine

ints = st.integers(min_value=-50, max_value=50)
scalars = st.one_of(ints, st.sampled_from(["'a'", "'bc'", "true", "false", "null", "1.5"]))


@st.composite
def expressions(draw, depth=0):
    if depth > 2 or draw(st.booleans()):
        return str(draw(scalars))
    op = draw(st.sampled_from(["+", "-", "*", "/", "mod", "<", ">", "<=", ">=", "=", "!=",
                               "and", "or", "in"]))
    left = draw(expressions(depth + 1))
    right = draw(expressions(depth + 1))
    if op == "in":
        right = f"[{right}, {draw(expressions(depth + 1))}]"
    return f"({left} {op} {right})"


def run_yaql(text):
    try:
        parsed = engine.parse(text, False)
        return ("ok", freeze(parsed.evaluate(context=yaql.create_context())))
    except Exception as exc:  # noqa: BLE001 - comparing failure kinds
        return ("error", type(exc).__name__)


def run_compiled(text):
    try:
        fn = compile_statement(engine.parse(text, False), False)
        return ("ok", fn(Scope(engine.create_root_context(False))))
    except Exception as exc:  # noqa: BLE001
        return ("error", type(exc).__name__)


@settings(max_examples=400, deadline=None)
@given(expressions())
def test_compiled_expressions_match_yaql(text):
    expected, actual = run_yaql(text), run_compiled(text)
    if expected[0] == "ok":
        assert actual == expected, text
    else:
        assert actual[0] == "error", text


def test_integer_division_is_floor_division():
    assert run_compiled("7 / 2") == ("ok", 3)
    assert run_compiled("7.0 / 2") == ("ok", 3.5)


def test_list_concatenation_gives_tuple():
    assert run_compiled("[1, 2] + [3]") == ("ok", (1, 2, 3))


def test_missing_dictionary_key_reads_null_like_the_original_engine():
    assert run_compiled("{a => 1}.b") == ("ok", None)


def test_bool_is_not_a_number_for_arithmetic():
    assert run_compiled("true + 1")[0] == "error"


def test_compile_cache_is_bounded_like_the_parse_cache():
    from laguna.lang.compiler import COMPILE_CACHE_SIZE
    assert compile_statement.cache_info().maxsize == COMPILE_CACHE_SIZE == 65536
    assert engine.parse.cache_info().maxsize == COMPILE_CACHE_SIZE


def test_compiled_statement_is_shared_per_parsed_statement():
    parsed = engine.parse("$x + 1", False)
    assert compile_statement(parsed, False) is compile_statement(parsed, False)
    assert compile_statement(parsed, False) is not compile_statement(parsed, True)
