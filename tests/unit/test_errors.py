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
        decode_text(b"ok\nn\xc3\xa4h \xff", "f.yaml")  # column 5: \xc3\xa4 is one character
    assert (str(info.value), info.value.span) == (
        "f.yaml:2:5: error[LAG-E0103]: the file is not UTF-8 text: byte 0xff cannot be decoded",
        Span("f.yaml", 2, 5))


def test_importing_errors_loads_neither_source_nor_dataclasses() -> None:
    # The host agent's errors derive from LagunaError; spans are the engine's.
    probe = ("import json, sys; import laguna.errors; "
             "print(json.dumps([m in sys.modules for m in ('laguna.source', 'dataclasses')]))")
    output = subprocess.run([sys.executable, "-S", "-c", probe], env={"PYTHONPATH": str(SRC)},
                            capture_output=True, check=True, text=True, timeout=60).stdout
    assert json.loads(output) == [False, False]
