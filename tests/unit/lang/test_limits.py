"""Issue 11's attacks on the sandbox's limits: each ends, quickly and before
the allocation or the work, with a LimitExceededError naming the limit, its
value, what crossed it and where.

The attacks run in one subprocess (attacks/run_attacks.py) bounded in memory
(RLIMIT_AS) and time, so a limit that stops holding fails these tests instead
of taking the machine down.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from laguna.lang.errors import ClassLoadError
from laguna.lang.loader import parse_class_file
from laguna.yamlio import loader as yaml_loader
from laguna.yamlio.loader import YamlError, load_all
from laguna.yaql import engine
from laguna.yaql.engine import ExpressionTooDeep, Limits

HERE = pathlib.Path(__file__).parent / "attacks"
# a method's execution time limit, where the default (600 s) would be the attack
SHORT_LIMITS = {"backtracking": 0.5, "endless": 0.3, "timeStaysOut": 0.3, "endlessFor": 0.3}
# every attack ends well within this (the subprocess loads the core library first)
BATCH_TIMEOUT = 120
MAX_RSS_KIB = 400 * 1024
AT = "Classes/Attacks.yaml"


@pytest.fixture(scope="module")
def attacks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    package = tmp_path_factory.mktemp("attacks")
    (package / "Classes").mkdir()
    (package / "Classes" / "Attacks.yaml").write_bytes((HERE / "Attacks.yaml").read_bytes())
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.attacks\n"
        "Classes:\n  t.attacks.Attacks: Attacks.yaml\n")
    src = str(pathlib.Path(__file__).parents[3] / "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, str(HERE / "run_attacks.py"), str(package),
         *(f"{method}={seconds}" for method, seconds in SHORT_LIMITS.items())],
        capture_output=True, text=True, timeout=BATCH_TIMEOUT, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in done.stdout.splitlines()]
    by_method = {r["method"]: r for r in records if "method" in r}
    by_method["<process>"] = records[-1]
    return by_method


LIMIT = "[LimitExceededError]"
EXPECTED = {
    "doubleString": ("memory_quota limit of 524288 bytes exceeded by a string of 524288 "
                     f"characters at {AT}:11", 0.1),
    "doubleList": ("memory_quota limit of 524288 bytes exceeded by a collection of 98304 "
                   f"items at {AT}:18", 0.2),
    "forHugeRange": ("iterators limit of 100000 items exceeded by a collection of more than "
                     f"100000 items at {AT}:21", 1.0),
    "forRange": ("iterators limit of 100000 items exceeded by a collection of more than "
                 f"100000 items at {AT}:28", 1.0),
    # the regex library looks at its timeout every so often, not at once
    "backtracking": ("execution_seconds limit of 0.5 s exceeded by a regular expression (=~) "
                     f"at {AT}:34", 5.0),
    "power": ("integer_bits limit of 8192 bits exceeded by an integer of 300000001 bits "
              f"at {AT}:37", 0.1),
    "squaring": ("integer_bits limit of 8192 bits exceeded by an integer of 12986 bits "
                 f"at {AT}:44", 0.1),
    "formatWidth": ("memory_quota limit of 524288 bytes exceeded by a string of 2000000000 "
                    f"characters at {AT}:47", 0.1),
    "shift": ("integer_bits limit of 8192 bits exceeded by an integer of 4000000001 bits "
              f"at {AT}:50", 0.1),
    "endless": (f"execution_seconds limit of 0.3 s exceeded at {AT}:55", 1.0),
    "joinBig": ("memory_quota limit of 524288 bytes exceeded by a string of 800000 "
                f"characters at {AT}:59", 0.1),
    "replaceGrows": ("memory_quota limit of 524288 bytes exceeded by a string of 1600000 "
                     f"characters at {AT}:63", 0.1),
    "hugeLazyResult": ("iterators limit of 100000 items exceeded by a collection of more "
                       f"than 100000 items at {AT}:66", 1.0),
    "hugeList": ("iterators limit of 100000 items exceeded by a collection of more than "
                 f"100000 items at {AT}:69", 1.0),
    "textOfSharedItems": ("memory_quota limit of 524288 bytes exceeded by the text of a "
                          f"collection at {AT}:73", 0.5),
    "timeStaysOut": (f"execution_seconds limit of 0.3 s exceeded at {AT}:94", 1.0),
    # at the inner loop that noticed (lang/macros.py For), wherever its body was
    "endlessFor": (f"execution_seconds limit of 0.3 s exceeded at {AT}:107", 1.0),
}


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_attack_ends_with_the_limit_it_crossed(attacks, method):
    message, seconds = EXPECTED[method]
    record = attacks[method]
    assert record.get("names") == ["LimitExceededError"], record
    assert record["message"] == message
    assert record["seconds"] < seconds


def test_attacks_stay_within_a_fixed_memory_bound(attacks):
    assert attacks["<process>"]["maxrss_kib"] < MAX_RSS_KIB


def test_a_limit_error_is_a_muranopl_exception_a_catch_all_catch_sees(attacks):
    assert attacks["caught"]["result"] == repr((
        "LimitExceededError", "memory_quota limit of 524288 bytes exceeded by a string of "
        f"524288 characters at {AT}:82", 262144))


# -- limits from settings ----------------------------------------------------------------
def test_limits_from_settings_change_only_the_named_limits():
    limits = Limits.from_settings({"iterators": 10, "execution_seconds": 2.5})
    assert limits == Limits(iterators=10, execution_seconds=2.5)


@pytest.mark.parametrize("settings, message", [
    ({"iterator": 1}, "unknown limit iterator; known limits: call_depth, execution_seconds, "
                      "integer_bits, iterators, memory_quota"),
    ({"iterators": 0}, "limit iterators must be a positive number, not 0"),
    ({"memory_quota": "1M"}, "limit memory_quota must be a positive number, not '1M'"),
    ({"call_depth": 2.5}, "limit call_depth must be a whole number, not 2.5"),
    ({"integer_bits": 8}, "limit integer_bits must be at least 64"),
])
def test_limits_from_settings_refuse_bad_values(settings, message):
    with pytest.raises(ValueError) as info:
        Limits.from_settings(settings)
    assert str(info.value) == message


# -- load time: YAML and expressions ------------------------------------------------------
def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_alias_expansion_is_bounded_while_loading():
    with pytest.raises(YamlError) as info:
        load_all(_laughs(9), "laughs.yaml")
    assert str(info.value) == ("laughs.yaml:6:20: error[LAG-E0104]: the document holds more "
                               "than 250000 nodes once its aliases are expanded")


def test_aliases_within_the_bound_load():
    assert load_all("a: &x {b: 1}\nc: *x\nd: {<<: *x, e: 2}\n", "a.yaml") == [
        {"a": {"b": 1}, "c": {"b": 1}, "d": {"b": 1, "e": 2}}]


def test_nesting_is_bounded_while_loading():
    with pytest.raises(YamlError) as info:
        load_all("x: " + "[" * 400 + "]" * 400, "deep.yaml")
    assert str(info.value) == ("deep.yaml:1:103: error[LAG-E0103]: collections nest more "
                               "than 100 levels deep")
    assert yaml_loader.MAX_DEPTH == 100
    load_all("x: " + "[" * 99 + "]" * 99, "deep.yaml")


@pytest.mark.parametrize("text", ["(" * 1000 + "1" + ")" * 1000, "1" + " + 1" * 1000,
                                  "-" * 1000 + "1", "$a" + ".b" * 1000])
def test_deeply_nested_expressions_are_refused_when_parsed(text):
    with pytest.raises(ExpressionTooDeep) as info:
        engine.parse(text, False)
    assert info.value.message == "the expression nests more than 100 levels deep"


def test_a_deeply_nested_yaql_scalar_is_a_class_load_error():
    text = ("Name: A\nMethods:\n  m:\n    Body:\n      - Return: !yaql '"
            + "(" * 200 + "1" + ")" * 200 + "'\n")
    with pytest.raises(ClassLoadError) as info:
        parse_class_file(text, "A.yaml", False)
    assert info.value.code == "LAG-E0223"
    assert str(info.value).startswith("A.yaml:5:17: error[LAG-E0223]: invalid YAQL expression ")
    assert str(info.value).endswith(": the expression nests more than 100 levels deep")
