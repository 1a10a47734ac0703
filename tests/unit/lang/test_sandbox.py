"""Untrusted MuranoPL code: limits end runaway code with a clear MuranoPL error,
and nothing reaches the host."""

import gc
import pathlib
import sys
import textwrap
import time

import pytest

from laguna import process
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir
from laguna.yaql.engine import Limits

CLASS = """\
Namespaces:
  =: t.sandbox
Name: Runaway
Methods:
  spin:
    Body:
      - While: 1 = 1
        Do:
          - $x: 1
  recurse:
    Arguments:
      - n:
          Contract: $.int()
    Body:
      - Return: $.recurse($n + 1)
  bigRange:
    Body:
      - Return: range(1000000).select($ * 2).len()
  hostAccess:
    Body:
      - Return: $.extension
  stringAttribute:
    Body:
      - Return: str(abc).upper
  pythonFormat:
    Body:
      - Return: format('{0.__class__}', 1)
  bigString:
    Body:
      - Return: len(str(x) * 100000)
  doubling:
    Body:
      - $s: abcd
      - For: i
        In: range(30)
        Do:
          - $s: $s + $s
      - Return: len($s)
"""


@pytest.fixture
def make(tmp_path: pathlib.Path):
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.sandbox\n"
        "Classes:\n  t.sandbox.Runaway: Runaway.yaml\n")
    (package / "Classes" / "Runaway.yaml").write_text(textwrap.dedent(CLASS))

    def build(limits: Limits = Limits()):
        registry = core_registry()
        registry.add(read_package_dir(package))
        executor = Executor(registry, limits)
        return executor, executor.new_object(registry.find("t.sandbox.Runaway"), None, {})
    return build


def test_endless_loop_hits_the_time_limit(make):
    executor, obj = make(Limits(execution_seconds=0.2))
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "spin")
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == "execution_seconds limit of 0.2 s exceeded at Classes/Runaway.yaml:9"
    assert info.value.frames[-1].method_name == "spin"
    # the frame points at the last instruction the loop ran
    assert info.value.frames[-1].span.line == 9


def test_a_top_level_call_may_be_given_its_own_time_limit(make):
    # (a front end deploying applications at once gives them one deadline,
    # as long as rounds of them one by one would have had)
    executor, obj = make(Limits(execution_seconds=0.2))
    started = time.monotonic()
    with pytest.raises(MuranoPlError) as info:
        executor.run(lambda: executor.call(obj, "spin"), seconds=0.6)
    assert 0.6 <= time.monotonic() - started < 5
    # the limit named is the setting's: the call had three rounds of it
    assert info.value.message == "execution_seconds limit of 0.2 s exceeded at Classes/Runaway.yaml:9"
    with pytest.raises(MuranoPlError):      # and the next call has the setting's again
        started = time.monotonic()
        executor.call(obj, "spin")
    assert time.monotonic() - started < 0.6


def test_endless_recursion_hits_the_call_depth_limit(make):
    executor, obj = make(Limits(call_depth=50))
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "recurse", 0)
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == "call_depth limit of 50 calls exceeded at Classes/Runaway.yaml:15"
    assert len(info.value.frames) == 51


def test_default_call_depth_limit_ends_recursion_before_python_does(make):
    # the process raised the interpreter's limit once (tests/conftest.py, as
    # the `laguna` command does): the engine's own counter is the bound
    executor, obj = make()
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "recurse", 0)
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == "call_depth limit of 400 calls exceeded at Classes/Runaway.yaml:15"
    assert len(info.value.frames) == 401


def test_constructing_an_executor_leaves_the_recursion_limit_alone(make, monkeypatch):
    monkeypatch.setattr(sys, "getrecursionlimit", lambda: 1000)
    changed: list[int] = []
    monkeypatch.setattr(sys, "setrecursionlimit", changed.append)
    make()
    assert changed == []


def test_prepare_raises_the_recursion_limit_but_never_lowers_it(monkeypatch):
    limit = [1000]
    monkeypatch.setattr(sys, "getrecursionlimit", lambda: limit[0])
    monkeypatch.setattr(sys, "setrecursionlimit", lambda value: limit.__setitem__(0, value))
    process.prepare()
    assert limit == [process.RECURSION_LIMIT]
    limit[0] = 50_000
    process.prepare()
    assert limit == [50_000]


def test_prepare_makes_full_collections_rarer_but_never_more_frequent(monkeypatch):
    thresholds = [(700, 10, 10)]
    monkeypatch.setattr(gc, "get_threshold", lambda: thresholds[0])
    monkeypatch.setattr(gc, "set_threshold", lambda *values: thresholds.__setitem__(0, values))
    process.prepare()
    assert thresholds == [(700, 10, process.FULL_COLLECTION_THRESHOLD)]
    thresholds[0] = (1000, 20, 500)
    process.prepare()
    assert thresholds == [(1000, 20, 500)]


def test_huge_collection_hits_the_iterator_limit(make):
    executor, obj = make(Limits(iterators=1000))
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "bigRange")
    assert info.value.names == ["LimitExceededError"]


def test_collection_limit_is_per_executor(make):
    executor, obj = make(Limits(iterators=1000))
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "bigRange")
    assert info.value.message == "iterators limit of 1000 items exceeded by a collection of more than 1000 items at Classes/Runaway.yaml:18"
    # the same compiled code under the default limits goes further
    default_executor, default_obj = make()
    with pytest.raises(MuranoPlError) as info:
        default_executor.call(default_obj, "bigRange")
    assert info.value.message == "iterators limit of 100000 items exceeded by a collection of more than 100000 items at Classes/Runaway.yaml:18"


def test_big_string_hits_the_memory_quota(make):
    executor, obj = make(Limits(memory_quota=10_000))
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "bigString")
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == ("memory_quota limit of 10000 bytes exceeded by an argument "
                                  "or a result of a yaql function at Classes/Runaway.yaml:30")
    assert info.value.frames[-1].method_name == "bigString"
    default_executor, default_obj = make()
    assert default_executor.call(default_obj, "bigString") == 100_000


def test_doubling_a_string_hits_the_default_memory_quota(make):
    executor, obj = make()
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "doubling")
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == ("memory_quota limit of 524288 bytes exceeded by a string of "
                                  "524288 characters at Classes/Runaway.yaml:37")


def test_python_attributes_are_not_reachable(make):
    executor, obj = make()
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "hostAccess")
    # Python attributes of the object are not MuranoPL properties
    assert info.value.names == ["murano.dsl.exceptions.UninitializedPropertyAccessError"]
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "stringAttribute")
    assert info.value.names == ["yaql.language.exceptions.NoFunctionRegisteredException"]


def test_format_fields_cannot_reach_python_attributes(make):
    executor, obj = make()
    with pytest.raises(MuranoPlError) as info:
        executor.call(obj, "pythonFormat")
    assert "may only name an argument" in info.value.message
