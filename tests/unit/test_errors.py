"""laguna.errors: SourceErrors' order and text, decode_text's span, and what importing it costs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from laguna.errors import SourceError, SourceErrors, decode_text
from laguna.source import Diagnostic, Span

SRC = Path(__file__).parents[2] / "src"


def test_source_errors_sorts_by_file_line_column_code_and_counts_errors() -> None:
    found = SourceErrors([
        Diagnostic(Span("b.yaml", 1, 1), "LAG-E2", "alpha"),
        Diagnostic(Span("a.yaml", 3, 2), "LAG-E9", "beta", "warning"),
        Diagnostic(Span("a.yaml", 3, 1), "LAG-E5", "gamma"),
        Diagnostic(Span("a.yaml", 3, 1), "LAG-E4", "delta"),
    ], "t.yaml")
    assert str(found) == "\n".join([
        "t.yaml has 3 error(s)",
        "a.yaml:3:1: error[LAG-E4]: delta",
        "a.yaml:3:1: error[LAG-E5]: gamma",
        "a.yaml:3:2: warning[LAG-E9]: beta",
        "b.yaml:1:1: error[LAG-E2]: alpha",
    ])


def test_decode_text_names_the_line_and_column_of_the_bad_byte() -> None:
    with pytest.raises(SourceError) as info:
        # column 5: \xc3\xa4 is one character; the code is the caller's (the file's)
        decode_text(b"ok\nn\xc3\xa4h \xff", "f.yaml", "LAG-E0538")
    assert (str(info.value), info.value.span) == (
        "f.yaml:2:5: error[LAG-E0538]: the file is not UTF-8 text: byte 0xff cannot be decoded",
        Span("f.yaml", 2, 5))


def test_importing_errors_loads_neither_source_nor_dataclasses() -> None:
    # The host agent's errors derive from LagunaError; spans are the engine's.
    probe = ("import json, sys; import laguna.errors; "
             "print(json.dumps([m in sys.modules for m in ('laguna.source', 'dataclasses')]))")
    output = subprocess.run([sys.executable, "-S", "-c", probe], env={"PYTHONPATH": str(SRC)},
                            capture_output=True, check=True, text=True, timeout=60).stdout
    assert json.loads(output) == [False, False]


def test_one_problem_shape_renders_one_line_and_one_json_object() -> None:
    from laguna.source import render

    placed = Diagnostic(Span("t.yaml", 8, 48), "LAG-E1502", "unknown keyname 'size'",
                        kind="invalid_template", entity="node app")
    assert render(placed) == \
        "t.yaml:8:48: error[LAG-E1502]: node app: unknown keyname 'size' [invalid_template]"
    assert render(placed, "blueprints") == ("blueprints/t.yaml:8:48: error[LAG-E1502]: node app: "
                                            "unknown keyname 'size' [invalid_template]")
    assert placed.to_json() == {
        "code": "LAG-E1502", "kind": "invalid_template", "severity": "error",
        "message": "unknown keyname 'size'", "file": "t.yaml", "line": 8, "column": 48,
        "entity": "node app"}
    assert Diagnostic.from_json(placed.to_json()) == placed
    # without a place; the kind is the code's when not given; the file as entity is said once
    assert render(Diagnostic(None, "LAG-E0560", "no such package")) == \
        "error[LAG-E0560]: no such package [package_not_found]"
    assert render(Diagnostic(Span("x.yaml", 1, 2), "LAG-E0101", "bad", entity="x.yaml")) == \
        "x.yaml:1:2: error[LAG-E0101]: bad [yaml_error]"
    assert str(placed) == "t.yaml:8:48: error[LAG-E1502]: node app: unknown keyname 'size'"


def test_one_collector_sorts_each_problem_once_and_raises_them_together() -> None:
    from laguna.source import Problems

    problems = Problems()
    later = Diagnostic(Span("b.yaml", 1, 1), "LAG-E0101", "later")
    first = Diagnostic(Span("a.yaml", 2, 1), "LAG-E0101", "first")
    warning = Diagnostic(None, "LAG-W0519", "odd", "warning")
    problems.extend([later, first, later])
    problems.append(warning)
    assert problems.sorted() == [warning, first, later]
    with pytest.raises(SourceErrors) as raised:
        problems.raise_errors(what="t")
    assert raised.value.diagnostics == [warning, first, later]
    assert raised.value.message == "t has 2 error(s)"
    Problems([warning]).raise_errors()      # warnings alone raise nothing
