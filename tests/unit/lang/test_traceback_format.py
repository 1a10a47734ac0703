"""How a MuranoPL error prints: repeated frames are counted, as Python does."""

from __future__ import annotations

from laguna.lang.errors import MuranoPlError, StackFrame
from laguna.source import Span


def frame(line: int, method: str = "recurse") -> StackFrame:
    return StackFrame("t.C", method, Span("Classes/C.yaml", line, 9), f"$.{method}()")


def test_a_frame_repeated_many_times_is_shown_three_times_then_counted():
    error = MuranoPlError(["LimitExceededError"], "call depth limit of 400 exceeded",
                          [frame(3, "test")] + [frame(7)] * 400)
    assert error.format().splitlines() == [
        "LimitExceededError: call depth limit of 400 exceeded",
        "Traceback (most recent call last):",
        '  File "Classes/C.yaml", line 3:9 in method test of type t.C',
        "      $.test()",
        *['  File "Classes/C.yaml", line 7:9 in method recurse of type t.C',
          "      $.recurse()"] * 3,
        "  [Previous line repeated 397 more times]",
    ]


def test_frames_repeated_up_to_three_times_are_all_shown():
    error = MuranoPlError(["E"], "m", [frame(7)] * 3 + [frame(8)] * 4)
    lines = error.format().splitlines()
    assert lines.count('  File "Classes/C.yaml", line 7:9 in method recurse of type t.C') == 3
    assert lines[-1] == "  [Previous line repeated 1 more time]"
