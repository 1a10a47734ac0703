"""yaql's parser tables kept in the user's cache folder (laguna.yaql.parsetables)."""

from __future__ import annotations

import json
import pathlib
import typing as t

import pytest
from yaql.language import exceptions as yaql_exceptions

from laguna.yaql import parsetables
from laguna.yaql.engine import build_parsing_engine

# every operator level, calls, indexers, lists, maps, keyword arguments, lambdas
EXPRESSIONS = [
    "$.a.where($ > 2).select([$, 1 + 2 * 3])",
    "not $x and $y or -$z mod 4 >= 2 != true",
    "$a?.b[1]['k'] in list(1, 2) is null",
    "{a => 1, 'b' => [1, 2]}.get(a, default => $x =~ '^a' -> $y)",
    "ns:Name.method($y, x => 1)",
    "$.f(:T) !~ 'b' = 'c' <= 1 / 2",
]
BROKEN = ["1 +", "f(", "$a[", "=> 1", "a b"]


def parsed(engine: object, text: str) -> str:
    return str(engine(text))  # type: ignore[operator]


def error_of(engine: object, text: str) -> tuple[str, str]:
    with pytest.raises(yaql_exceptions.YaqlParsingException) as caught:
        engine(text)  # type: ignore[operator]
    return type(caught.value).__name__, str(caught.value)


def table_file(folder: pathlib.Path) -> pathlib.Path:
    files = list(folder.glob("yaql-tables-*.json"))
    assert len(files) == 1
    return files[0]


def test_the_tables_written_then_read_parse_as_ply_s_own(tmp_path: pathlib.Path) -> None:
    computed = build_parsing_engine(None)
    writing = build_parsing_engine(tmp_path)
    reading = build_parsing_engine(tmp_path)
    assert writing._parser.action == computed._parser.action
    assert reading._parser.action == computed._parser.action
    assert reading._parser.goto == computed._parser.goto
    assert reading._parser is not writing._parser
    for text in EXPRESSIONS:
        assert parsed(reading, text) == parsed(computed, text)
    assert parsed(reading, EXPRESSIONS[0]) == (
        "#operator_.(#operator_.(#operator_.($, 'a'), where(#operator_>($, 2))), "
        "select(#list($, #operator_+(1, #operator_*(2, 3)))))")
    for text in BROKEN:
        assert error_of(reading, text) == error_of(computed, text)


def test_a_file_read_back_is_the_one_written(tmp_path: pathlib.Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    build_parsing_engine(tmp_path)
    computed: list[object] = []
    real_yacc = parsetables.yacc.yacc
    monkeypatch.setattr(parsetables.yacc, "yacc",
                        lambda **kw: computed.append(kw) or real_yacc(**kw))
    build_parsing_engine(tmp_path)
    assert computed == []   # read, not computed


@pytest.mark.parametrize("damage", [
    lambda data: "not json {",
    lambda data: json.dumps({**data, "key": "0" * 64}),
    lambda data: json.dumps({**data, "action": {"0": {"NUMBER": "import os"}}}),
    lambda data: json.dumps({**data, "goto": []}),
    lambda data: json.dumps({"key": data["key"]}),
])
def test_a_damaged_or_stale_file_is_computed_and_written_again(
        tmp_path: pathlib.Path, damage: t.Callable[[dict[str, t.Any]], str]) -> None:
    computed = build_parsing_engine(None)
    build_parsing_engine(tmp_path)
    path = table_file(tmp_path)
    good = path.read_text()
    path.write_text(damage(json.loads(good)))
    engine = build_parsing_engine(tmp_path)
    assert engine._parser.action == computed._parser.action
    assert parsed(engine, EXPRESSIONS[1]) == parsed(computed, EXPRESSIONS[1])
    assert json.loads(path.read_text()) == json.loads(good)


def test_a_folder_that_cannot_be_written_means_no_cache(tmp_path: pathlib.Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    engine = build_parsing_engine(blocked / "cache")
    assert parsed(engine, "1 + 2") == "#operator_+(1, 2)"
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_cache_folder() -> None:
    assert parsetables.cache_dir({"LAGUNA_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x",
                                  "HOME": "/h"}) == pathlib.Path("/c")
    assert parsetables.cache_dir({"LAGUNA_CACHE_DIR": "", "HOME": "/h"}) is None
    assert parsetables.cache_dir({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == pathlib.Path(
        "/x/laguna")
    assert parsetables.cache_dir({"HOME": "/h"}) == pathlib.Path("/h/.cache/laguna")
