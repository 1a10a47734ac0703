import pytest

from laguna.lang.loader import expression_hook
from laguna.source import Span
from laguna.yamlio import YamlError, load_all
from laguna.yaql.expressions import YaqlExpression


def load(text: str):
    return load_all(text, "Classes/Foo.yaml", expression_hook(False))[0]


def test_plain_dollar_scalar_is_expression_with_its_span():
    doc = load("a: 1\nb: $.something()\n")
    assert isinstance(doc["b"], YaqlExpression)
    assert doc["b"].text == "$.something()"
    assert doc["b"].span == Span("Classes/Foo.yaml", 2, 4, 2, 17)


def test_quoted_scalar_is_string():
    doc = load('b: "$.something()"\n')
    assert doc["b"] == "$.something()" and not isinstance(doc["b"], YaqlExpression)


def test_explicit_str_tag_is_string():
    doc = load("b: !!str $\n")
    assert doc["b"] == "$" and not isinstance(doc["b"], YaqlExpression)


def test_yaql_tag_forces_expression():
    doc = load('b: !yaql "text"\n')
    assert isinstance(doc["b"], YaqlExpression) and doc["b"].text == "text"


def test_words_only_scalar_is_string():
    doc = load("b: Some text - a string\nc: hello world\n")
    assert doc["b"] == "Some text - a string"
    assert doc["c"] == "hello world"


def test_function_call_scalar_is_expression():
    assert isinstance(load("b: foo()\n")["b"], YaqlExpression)


def test_numbers_and_booleans_keep_their_types():
    doc = load("a: 12\nb: true\nc: null\nd: 1.5\n")
    assert doc == {"a": 12, "b": True, "c": None, "d": 1.5}


def test_duplicate_key_names_file_and_line():
    with pytest.raises(YamlError) as info:
        load("a: 1\nb: 2\na: 3\n")
    assert str(info.value) == "Classes/Foo.yaml:3:1: error[LAG-E0101]: duplicate key 'a'"


def test_broken_yaml_names_file_and_line():
    with pytest.raises(YamlError) as info:
        load("a: [1, 2\nb: 3\n")
    assert info.value.span.source == "Classes/Foo.yaml"
    assert info.value.span.line == 2
    assert "invalid YAML" in info.value.message


def test_key_spans_are_recorded():
    doc = load("Name: Foo\nProperties:\n  x:\n    Contract: $.int()\n")
    assert doc.key_spans["Properties"] == Span("Classes/Foo.yaml", 2, 1, 2, 11)
    assert doc["Properties"].key_spans["x"].line == 3


def test_several_documents():
    docs = load_all("Name: A\n---\nName: B\n", "f.yaml")
    assert [d["Name"] for d in docs] == ["A", "B"]


def test_plain_strips_every_position_wrapper():
    from laguna.yamlio import YMap, YSeq, YStr, plain
    [document] = load_all("a: [x, {b: c}]\n1: two\n", "f.yaml")
    assert (type(document), type(document["a"]), type(document["a"][0])) == (YMap, YSeq, YStr)
    value = plain(document)
    assert value == {"a": ["x", {"b": "c"}], 1: "two"}
    assert type(value) is dict and type(value["a"]) is list
    assert type(value["a"][0]) is str and type(value["a"][1]) is dict
    assert [type(k) for k in value] == [str, int]
    assert type(next(iter(value["a"][1]))) is str and type(value["a"][1]["b"]) is str


def test_plain_leaves_other_values_alone():
    from laguna.yamlio import plain
    marker = object()
    assert plain([marker, 1.5, None])[0] is marker
    assert plain([marker, 1.5, None])[1:] == [1.5, None]
