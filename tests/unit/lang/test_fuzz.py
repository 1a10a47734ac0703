"""The sandbox under fuzzing (laguna.testing.fuzz): MuranoPL bodies and YAQL
expressions from a grammar, and issue 11's attacks, each end within their time
limit with a result or a clean error, in a process that stays under a fixed
memory bound. A short, derandomized run in a subprocess bounded in memory and
time; benchmarks/fuzz.py runs longer ones."""

from __future__ import annotations

import json
import re
import os
import pathlib
import subprocess
import sys

import pytest

from laguna.testing import fuzz

EXAMPLES = 20
MEMORY_MB = 1024
PEAK_KIB = 400 * 1024


@pytest.fixture(scope="module")
def summary() -> dict[str, object]:
    src = str(pathlib.Path(__file__).parents[3] / "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-m", "laguna.testing.fuzz", "--examples", str(EXAMPLES),
         "--memory-mb", str(MEMORY_MB)],
        capture_output=True, text=True, timeout=180, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return t_cast(json.loads(done.stdout))


def t_cast(value: object) -> dict[str, object]:
    assert isinstance(value, dict)
    return value


def test_every_input_ends_with_a_result_or_a_clean_error(summary):
    assert summary["findings"] == []
    assert summary["tried"] == EXAMPLES + len(fuzz.ATTACKS)
    assert set(summary["outcomes"]) <= {"result", "error", "load"}


def test_the_attacks_end_with_limit_errors(summary):
    # the attacks come first; each crosses a limit (counted among the errors)
    assert summary["outcomes"]["error"] >= len(fuzz.ATTACKS)


def test_fuzzing_stays_under_a_fixed_memory_bound(summary):
    assert summary["maxrss_kib"] < PEAK_KIB


def test_the_grammar_writes_loadable_class_files():
    text = fuzz.class_text("F", [{fuzz.Expr("$x"): fuzz.Expr("pow(2, 3)")},
                                 {"Return": fuzz.Expr("$x")}])
    assert text == ("Namespaces:\n  '=': t.fuzz\nName: F\nMethods:\n  run:\n    Body:\n"
                    "    - !yaql '$x': !yaql 'pow(2, 3)'\n    - Return: !yaql '$x'\n")


def test_a_call_working_past_its_deadline_is_a_finding(monkeypatch):
    # the slack is CPU time: a call that keeps working after its deadline burns
    # it (a slack of minus the limit makes any CPU spent one, whatever the load)
    monkeypatch.setattr(fuzz, "TIME_SLACK", -fuzz.FUZZ_LIMITS.execution_seconds)
    fuzzer = fuzz.Fuzzer()
    outcome = fuzzer.run([{"Return": fuzz.Expr("range(100000000).sum()")}])
    assert outcome.kind == "finding"
    assert re.fullmatch(r"ran \d+\.\d s \(\d+\.\d s of CPU\): \['LimitExceededError'\]: .*",
                        outcome.detail), outcome.detail


def test_a_call_within_its_slack_is_no_finding():
    fuzzer = fuzz.Fuzzer()
    outcome = fuzzer.run([{"Return": fuzz.Expr("range(100000000).sum()")}])
    assert outcome.kind == "error"
