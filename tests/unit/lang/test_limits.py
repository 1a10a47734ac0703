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
# a huge iterators limit (and memory quota) leaves only the deadline to end
# a loop inside one expression
ONLY_TIME = {"execution_seconds": 1.0, "iterators": 10**12, "memory_quota": 2**40,
             "run_memory": 256 * 2**20}
# a method's limits (a number: its execution time limit), where the defaults
# (600 s) would be the attack or would not show the limit it is about
SHORT_LIMITS: dict[str, object] = {
    "backtracking": 0.5, "endless": 0.3, "timeStaysOut": 0.3, "endlessFor": 0.3,
    **dict.fromkeys(["lenOfHugeRange", "sumOfHugeRange", "minOfHugeRange", "maxOfHugeRange",
                     "distinctOfHugeRange", "orderByCostlyKeys", "joinOfHugeRange",
                     "concatOfHugeRanges", "dictOfHugeRange", "legacyLenOfRange"], ONLY_TIME),
    "aggregateCopies": 1.0, "legacyAggregateCopies": 1.0,
    # the process stays under MAX_RSS_KIB: a run may gain 64 MiB
    **dict.fromkeys(["bigStringsInList", "bigStringsInDict", "bigStringsInAttributes",
                     "bigStringsInObjects"], {"run_memory": 64 * 2**20}),
}
# every attack ends well within this (the subprocess loads the core library first)
BATCH_TIMEOUT = 120
MAX_RSS_KIB = 400 * 1024
AT = "Classes/Attacks.yaml"
LEGACY_AT = "Classes/LegacyAttacks.yaml"
ITEMS = "iterators limit of 100000 items exceeded by a collection of more than 100000 items"


@pytest.fixture(scope="module")
def attacks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    root = tmp_path_factory.mktemp("attacks")
    packages = []
    for name, format_, classes in (("Attacks", "1.4", ("Attacks", "Holder")),
                                   ("LegacyAttacks", "1.0", ("LegacyAttacks",))):
        package = root / name
        (package / "Classes").mkdir(parents=True)
        for cls in classes:
            (package / "Classes" / f"{cls}.yaml").write_bytes((HERE / f"{cls}.yaml").read_bytes())
        (package / "manifest.yaml").write_text(
            f"Format: {format_}\nType: Library\nFullName: t.attacks.{name.lower()}\nClasses:\n"
            + "".join(f"  t.attacks.{cls}: {cls}.yaml\n" for cls in classes))
        packages.append(str(package))
    src = str(pathlib.Path(__file__).parents[3] / "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, str(HERE / "run_attacks.py"), os.pathsep.join(packages),
         *(f"{method}={json.dumps(value)}" for method, value in SHORT_LIMITS.items())],
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
    # issue 21: len/count of an endless sequence reads it within the iterators limit
    "lenOfEndless": (f"{ITEMS} at {AT}:114", 1.0),
    "lenMethodOfEndless": (f"{ITEMS} at {AT}:117", 1.0),
    "countOfEndless": (f"{ITEMS} at {AT}:120", 1.0),
    "legacyLenOfEndless": (f"{ITEMS} at {LEGACY_AT}:11", 1.0),
    # issue 21: the deadline inside one expression (ONLY_TIME: a 1 s limit)
    **{method: (f"execution_seconds limit of 1.0 s exceeded at {AT}:{line}", 5.0)
       for method, line in (("lenOfHugeRange", 124), ("aggregateCopies", 127),
                            ("sumOfHugeRange", 130), ("minOfHugeRange", 133),
                            ("maxOfHugeRange", 136), ("distinctOfHugeRange", 139),
                            ("orderByCostlyKeys", 142), ("joinOfHugeRange", 145),
                            ("concatOfHugeRanges", 148), ("dictOfHugeRange", 151))},
    "legacyLenOfRange": (f"execution_seconds limit of 1.0 s exceeded at {LEGACY_AT}:8", 5.0),
    "legacyAggregateCopies": (f"execution_seconds limit of 1.0 s exceeded at {LEGACY_AT}:14",
                              5.0),
    # issue 21: patterns bounded before the regex library compiles them
    "regexHugeCount": ("regex_size limit of 100000 characters exceeded by a pattern of "
                       "1000000000 characters once its repetitions are written out at "
                       f"{AT}:155", 0.5),
    "regexNestedCounts": ("regex_size limit of 100000 characters exceeded by a pattern of "
                          "1000000000 characters once its repetitions are written out at "
                          f"{AT}:158", 0.5),
    "regexLong": ("regex_length limit of 10000 characters exceeded by a pattern of 10001 "
                  f"characters at {AT}:161", 0.5),
    # issue 21: 500 KB strings, each under the quota, held by a list, a dict,
    # attributes, objects: the run's memory (64 MiB here) ends them
    **{method: (f"run_memory limit of 67108864 bytes exceeded by the memory the run holds "
                f"at {AT}:{line}", 5.0)
       for method, line in (("bigStringsInList", 169), ("bigStringsInDict", 176),
                            ("bigStringsInAttributes", 182), ("bigStringsInObjects", 189))},
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
                      "integer_bits, iterators, memory_quota, regex_length, regex_size, run_memory"),
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


# -- counting steps -----------------------------------------------------------------------
@pytest.mark.parametrize("size", [0, 3, 4095, 4096, 4097, 10_000])
def test_ticking_reads_lazily_and_counts_every_item(monkeypatch, size):
    from laguna.lang import limits
    read = []

    def source():
        for i in range(size):
            read.append(i)
            yield i
    spent = []
    monkeypatch.setattr(limits, "spend", spent.append)
    items = limits.ticking(Limits(iterators=10_000), source())
    assert limits.is_ticking(items)
    assert next(items, None) == (0 if size else None)
    assert len(read) == min(size, 1)            # an item read only when asked for
    assert list(items) == list(range(1, size))
    assert sum(spent) == size and max(spent, default=0) <= limits.CHECK_EVERY


def test_ticking_refuses_the_item_past_the_iterators_limit():
    from laguna.lang import errors, limits
    items = limits.ticking(Limits(iterators=5000), iter(range(5002)))
    assert len([next(items) for _ in range(5000)]) == 5000
    with pytest.raises(errors.LimitExceededError) as info:
        next(items)
    assert str(info.value).startswith(
        "iterators limit of 5000 items exceeded by a collection of more than 5000 items")
