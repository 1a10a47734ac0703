"""Method calls serialised while MuranoPL runs in threads (lang/synchronize.py):
the same method on the same object waits, re-entry by the same thread does
not, other objects and other methods run at once, and Synchronize meta
(onThis, onArgs) changes the key as in the original engine."""

from __future__ import annotations

import pathlib
import textwrap
import time

import pytest

from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir
from laguna.yaql.engine import Limits

# `meet` waits (at most 2 s) until the other thread has arrived at the board:
# it ends only when both calls run at the same time
CLASSES = {
    "Board": """\
        Namespaces:
          =: t.sync
          m: io.murano.metadata.engine
        Name: Board
        Properties:
          arrived: {Contract: [$.string()], Usage: InOut}
        Methods:
          arrive:
            Arguments: [who: {Contract: $.string()}]
            Body:
              - $.arrived: $.arrived + [$who]
          meet:
            Meta:
              - m:Synchronize:
                  onThis: false
            Arguments: [who: {Contract: $.string()}]
            Body:
              - $this.arrive($who)
              - $n: 0
              - While: len($.arrived) < 2
                Do:
                  - If: $n >= 200
                    Then:
                      - Throw: NeverMet
                        Message: nobody met
                  - sleep(0.01)
                  - $n: $n + 1
        """,
    "Worker": """\
        Namespaces:
          =: t.sync
          m: io.murano.metadata.engine
        Name: Worker
        Properties:
          log: {Contract: [$.string()], Usage: InOut}
          board: {Contract: $.class(Board), Usage: InOut}
        Methods:
          step:
            Arguments: [tag: {Contract: $.string()}]
            Body:
              - $.log: $.log + [$tag + '-in']
              - sleep(0.05)
              - $.log: $.log + [$tag + '-out']
          stepOn:
            Meta:
              - m:Synchronize:
                  onThis: false
                  onArgs: agent
            Arguments:
              - agent: {Contract: $.string()}
              - tag: {Contract: $.string()}
            Body:
              - $.log: $.log + [$tag + '-in']
              - sleep(0.05)
              - $.log: $.log + [$tag + '-out']
          meetOn:
            Meta:
              - m:Synchronize:
                  onThis: false
                  onArgs: agent
            Arguments:
              - agent: {Contract: $.string()}
              - tag: {Contract: $.string()}
            Body:
              - $.board.meet($tag)
          meetFree:
            Meta:
              - m:Synchronize:
                  onThis: false
            Arguments: [tag: {Contract: $.string()}]
            Body:
              - $.board.meet($tag)
          meetPlain:
            Arguments: [tag: {Contract: $.string()}]
            Body:
              - $.board.meet($tag)
          countdown:
            Arguments: [n: {Contract: $.int()}]
            Body:
              - If: $n > 0
                Then:
                  - Return: $this.countdown($n - 1) + 1
              - Return: 0
          stepTwice:
            Body:
              - list(a, b).pselect($this.step($))
              - Return: $.log
          stepTwiceInParallel:
            Body:
              - Parallel:
                  - $this.step(a)
                  - $this.step(b)
              - Return: $.log
          stepOnAgents:
            Arguments: [agents: {Contract: [$.string()]}]
            Body:
              - $tags: list(a, b)
              - range(2).pselect($this.stepOn($agents[$], $tags[$]))
              - Return: $.log
          meetOnAgents:
            Body:
              - list(a, b).pselect($this.meetOn($, $))
              - Return: $.board.arrived
          meetFreely:
            Body:
              - list(a, b).pselect($this.meetFree($))
              - Return: $.board.arrived
          meetPlainly:
            Body:
              - list(a, b).pselect($this.meetPlain($))
              - Return: $.board.arrived
          meetWith:
            Arguments: [other: {Contract: $.class(Worker).notNull()}]
            Body:
              - list($this, $other).pselect($.meetPlain(id($)))
              - Return: len($.board.arrived)
          recurseInThreads:
            Body:
              - Return: list(3, 4).pselect($this.countdown($))
          cross:
            Arguments: [other: {Contract: $.class(Worker).notNull()}, depth: {Contract: $.int()}]
            Body:
              - If: $depth > 0
                Then:
                  - sleep(0.2)
                  - $other.cross($this, $depth - 1)
              - Return: $depth
          crossWith:
            Arguments: [other: {Contract: $.class(Worker).notNull()}]
            Body:
              - Return: list(list($this, $other), list($other, $this)).pselect(
                  $[0].cross($[1], 1))
        """,
}
PAIRS = (["a-in", "a-out", "b-in", "b-out"], ["b-in", "b-out", "a-in", "a-out"])


@pytest.fixture
def worker(tmp_path: pathlib.Path):
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.sync\nClasses:\n"
        + "".join(f"  t.sync.{name}: {name}.yaml\n" for name in CLASSES))
    for name, text in CLASSES.items():
        (package / "Classes" / f"{name}.yaml").write_text(textwrap.dedent(text))
    registry = core_registry()
    registry.add(read_package_dir(package))
    executor = Executor(registry, Limits(execution_seconds=20))
    board = executor.new_object(registry.find("t.sync.Board"), None, {"arrived": []})
    return executor, executor.new_object(registry.find("t.sync.Worker"), None,
                                         {"log": [], "board": board})


def test_the_same_method_on_the_same_object_waits_for_the_other_thread(worker):
    executor, obj = worker
    assert list(executor.call(obj, "stepTwice")) in PAIRS


def test_parallel_branches_are_serialised_the_same_way(worker):
    executor, obj = worker
    assert list(executor.call(obj, "stepTwiceInParallel")) in PAIRS


def test_a_thread_re_enters_the_method_it_runs(worker):
    executor, obj = worker
    assert list(executor.call(obj, "recurseInThreads")) == [3, 4]


def test_calls_of_one_method_on_one_object_never_overlap(worker):
    executor, obj = worker
    with pytest.raises(MuranoPlError) as error:
        executor.call(obj, "meetPlainly")
    assert (error.value.names[0], error.value.message) == ("t.sync.NeverMet", "nobody met")


def test_other_objects_run_the_same_method_at_once(worker):
    executor, obj = worker
    other = executor.new_object(obj.type, None, {"log": [], "board": obj.values["board"]})
    assert executor.call(obj, "meetWith", other) == 2


def test_on_this_false_lets_calls_on_one_object_overlap(worker):
    executor, obj = worker
    assert sorted(executor.call(obj, "meetFreely")) == ["a", "b"]


def test_on_args_serialises_equal_values_only(worker):
    executor, obj = worker
    assert list(executor.call(obj, "stepOnAgents", ["x", "x"])) in PAIRS
    assert sorted(executor.call(obj, "meetOnAgents")) == ["a", "b"]


def test_serial_code_takes_no_lock(worker):
    executor, obj = worker
    assert executor.call(obj, "countdown", 5) == 5
    assert (executor.method_locks.parallel, executor.method_locks._held) == (0, {})
    executor.call(obj, "stepTwice")
    assert (executor.method_locks.parallel, executor.method_locks._held) == (0, {})


def test_threads_waiting_for_each_other_fail_at_once_naming_the_calls(worker):
    # a.cross holds a and calls b.cross; b.cross holds b and calls a.cross:
    # without the check both would wait until the time limit (20 s)
    executor, obj = worker
    other = executor.new_object(obj.type, None, {"log": [], "board": obj.values["board"]})
    started = time.monotonic()
    with pytest.raises(MuranoPlError) as error:
        executor.call(obj, "crossWith", other)
    assert time.monotonic() - started < 5
    assert (error.value.names, error.value.message) == (
        ["DeadlockError"], "threads wait for each other's method calls: this one waits "
        "for t.sync.Worker.cross, held by a thread that waits for t.sync.Worker.cross, "
        "held by this one")
    assert executor.method_locks._held == {} and executor.method_locks._waiting == {}
