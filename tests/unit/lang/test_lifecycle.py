"""Objects' life: garbage collection, `.destroy` order, destruction handlers,
model updates between deployments. Traces are collected in a static list
(`Trace.log`) and compared in full, order included."""

from __future__ import annotations

import logging
import pathlib
import textwrap
import typing as t

import pytest

from laguna.lang.errors import MuranoPlError, ObjectDestroyedError
from laguna.lang.executor import Executor
from laguna.lang.objects import MuranoObject
from laguna.testing.packages import core_registry, read_package_dir

CLASSES = """\
Namespaces:
  =: t.gc
  sys: io.murano.system
  std: io.murano

Name: Trace
Properties:
  log:
    Usage: Static
    Contract: []
    Default: []
Methods:
  add:
    Usage: Static
    Arguments:
      - entry:
          Contract: $
    Body:
      - $.log: $.log + [$entry]
---
Name: Node
Properties:
  value:
    Contract: $.string()
  nodes:
    Contract: [$.class(Node)]
    Default: []
  extra:
    Usage: Runtime
    Contract: $
Methods:
  touch:
    Body:
      - :Trace.add(touch)
  noticeDestruction:
    Arguments:
      - obj:
          Contract: $.class(Node).notNull()
    Body:
      - :Trace.add('noticed ' + $obj.value)
  .destroy:
    Body:
      - :Trace.add($.value)
---
# asks the collector about its neighbours while being destroyed
Name: Doomsayer
Extends: Node
Methods:
  .destroy:
    Body:
      - :Trace.add(list($.nodes.select(sys:GC.isDoomed($))))
      - :Trace.add(sys:GC.isDoomed($.find(std:Object)))
---
# keeps objects in a Runtime property and in a private (undeclared) value
Name: Hoarder
Extends: Node
Methods:
  .init:
    Body:
      - $.extra: new(Node, value => runtime)
      - $this.hidden: new(Node, value => private)
  runtimeObject:
    Body:
      - Return: $.extra
---
# creates an unreferenced object while being destroyed
Name: Breeder
Extends: Node
Methods:
  .destroy:
    Body:
      - new(Node, value => offspring)
---
Name: Failing
Extends: Node
Methods:
  .destroy:
    Body:
      - Throw: Boom
        Message: cannot go
---
Name: BadInit
Extends: Node
Methods:
  .init:
    Body:
      - Throw: Boom
        Message: no init
---
# collects garbage while a model is being loaded
Name: Collector
Extends: Node
Methods:
  .init:
    Body:
      - sys:GC.collect()
---
Name: Base
Methods:
  .destroy:
    Body:
      - :Trace.add(Base)
---
Name: Left
Extends: Base
Methods:
  .destroy:
    Body:
      - :Trace.add(Left)
---
Name: Right
Extends: Base
Methods:
  .destroy:
    Body:
      - :Trace.add(Right)
---
Name: Diamond
Extends: [Left, Right]
Methods:
  .destroy:
    Body:
      - :Trace.add(Diamond)
---
Name: Driver
Properties:
  out:
    Usage: Out
    Contract: $.class(Node)
  kept:
    Usage: Static
    Contract: $.class(Node)
Methods:
  dropOneKeepOne:
    Body:
      - $model:
          '?': {type: Node}
          value: A
          nodes:
            - '?': {type: Node}
              value: B
      - new($model)
      - $held: new($model)
      - sys:GC.collect()
      - :Trace.add($held.value)

  notifySubscribers:
    Body:
      - $model:
          '?': {type: Node}
          value: A
          nodes:
            - '?': {type: Node}
              value: B
      - $x: new($model)
      - sys:GC.subscribeDestruction($x, $this, onDestroyed)
      - sys:GC.subscribeDestruction($x.nodes[0], $this, onDestroyed)
      - sys:GC.subscribeDestruction($x.nodes[0], $x, noticeDestruction)
      - $x: null
      - sys:GC.collect()

  onDestroyed:
    Arguments:
      - obj:
          Contract: $.class(Node).notNull()
    Body:
      - :Trace.add('handler ' + $obj.value)

  unsubscribed:
    Body:
      - $x: new(Node, value => X)
      - sys:GC.subscribeDestruction($x, $this, onDestroyed)
      - sys:GC.subscribeDestruction($x, $this, onDestroyed)
      - sys:GC.unsubscribeDestruction($x, $this, onDestroyed)
      - $x: null
      - sys:GC.collect()

  subscribeUnknownHandler:
    Body:
      - sys:GC.subscribeDestruction(new(Node), $this, noSuchMethod)

  callDestroyed:
    Body:
      - $x: new(Node, value => X)
      - sys:GC.subscribeDestruction($x, $this, keepVictim)
      - $x: null
      - sys:GC.collect()
      - $this.victim.touch()

  keepVictim:
    Arguments:
      - obj:
          Contract: $.class(Node).notNull()
    Body:
      - :Trace.add(sys:GC.isDestroyed($obj))
      - $obj.touch()
      - $this.victim: $obj

  destroyedFlag:
    Body:
      - $x: new(Node, value => X)
      - sys:GC.subscribeDestruction($x, $this, keepVictim)
      - $x: null
      - sys:GC.collect()
      - :Trace.add(sys:GC.isDestroyed($this.victim))

  doomedNeighbours:
    Body:
      - $model:
          '?': {type: Doomsayer}
          value: A
          nodes:
            - '?': {type: Doomsayer}
              value: B
      - new($model, $this)
      - sys:GC.collect()

  staticKeeps:
    Body:
      - :Driver.kept: new(Node, value => A)
      - sys:GC.collect()

  argumentKeeps:
    Body:
      - $.collectWith(new(Node, value => A))

  collectWith:
    Arguments:
      - obj:
          Contract: $.class(Node).notNull()
    Body:
      - sys:GC.collect()

  propertiesKeep:
    Body:
      - $node: new(Hoarder, value => A)
      - sys:GC.collect()
      - :Trace.add(sys:GC.isDestroyed($node.runtimeObject()))

  diamond:
    Body:
      - new(Diamond)
      - sys:GC.collect()

  breeder:
    Body:
      - new(Breeder, value => parent)
      - sys:GC.collect()

  failing:
    Body:
      - $model:
          '?': {type: Node}
          value: owner
          nodes:
            - '?': {type: Failing}
              value: child
      - new($model)
      - sys:GC.collect()

  badInit:
    Body:
      - Try:
          - new(BadInit, value => bad)
        Catch:
          - As: e
            Do:
              - :Trace.add($e.message)
      - sys:GC.collect()

  mutualSubscribers:
    Body:
      - $a: new(Node, value => A)
      - $b: new(Node, value => B)
      - sys:GC.subscribeDestruction($a, $b, noticeDestruction)
      - sys:GC.subscribeDestruction($b, $a, noticeDestruction)
      - $a: null
      - $b: null
      - sys:GC.collect()

  parallelCollect:
    Body:
      - new(Node, value => A)
      - new(Node, value => B)
      - $held: new(Node, value => held)
      - Parallel:
          - sys:GC.collect()
          - sys:GC.collect()
          - sys:GC.collect()
          - sys:GC.collect()

  subscribeOut:
    Body:
      - $model:
          '?': {type: Node}
          value: A
          nodes:
            - '?': {type: Node}
              value: B
      - $.out: new($model, $this)
      - sys:GC.subscribeDestruction($.out, $this, onDestroyed)
      - sys:GC.subscribeDestruction($.out.nodes[0], $this, onDestroyed)
"""


class Harness:
    def __init__(self, package: pathlib.Path) -> None:
        self.registry = core_registry()
        self.registry.add(read_package_dir(package))
        self.executor = Executor(self.registry)

    def cls(self, name: str) -> t.Any:
        return self.registry.find("t.gc." + name)

    @property
    def trace(self) -> list[t.Any]:
        from laguna.lang.dispatch import thaw
        return list(thaw(self.executor.get_static_property(self.cls("Trace"), "log", None)))

    def record_destroy(self) -> list[t.Any]:
        """Values of the objects whose `.destroy` methods run from now on (the
        static trace does not outlive finalize(), which resets statics)."""
        lifecycle = self.executor.lifecycle
        original = lifecycle._run_destroy
        seen: list[t.Any] = []

        def run_destroy(obj: MuranoObject) -> None:
            seen.append(obj.values.get("value"))
            original(obj)
        lifecycle._run_destroy = run_destroy  # type: ignore[method-assign]
        return seen

    def driver(self) -> MuranoObject:
        return self.executor.new_object(self.cls("Driver"), None, {})


@pytest.fixture
def package(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "pkg"
    (root / "Classes").mkdir(parents=True)
    names = ["Trace", "Node", "Doomsayer", "Hoarder", "Breeder", "Failing", "BadInit", "Collector", "Base",
             "Left", "Right", "Diamond", "Driver"]
    (root / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.gc\nClasses:\n"
        + "".join(f"  t.gc.{n}: Gc.yaml\n" for n in names))
    (root / "Classes" / "Gc.yaml").write_text(textwrap.dedent(CLASSES))
    return root


@pytest.fixture
def harness(package: pathlib.Path) -> Harness:
    return Harness(package)


def run(harness: Harness, method: str) -> list[t.Any]:
    harness.executor.call(harness.driver(), method)
    return harness.trace


def node(value: str, object_id: str, **extra: t.Any) -> dict[str, t.Any]:
    return {"?": {"type": "t.gc.Node", "id": object_id}, "value": value, **extra}


# -- collection from MuranoPL ----------------------------------------------------------

def test_unreferenced_graph_destroyed_owned_object_first(harness: Harness) -> None:
    # the graph held in a local variable survives; the other loses B, then A
    assert run(harness, "dropOneKeepOne") == ["B", "A", "A"]


def test_handlers_run_before_destroy_shallow_levels_first(harness: Harness) -> None:
    assert run(harness, "notifySubscribers") == [
        "handler A", "handler B", "noticed B", "B", "A"]


def test_unsubscribed_handler_is_not_called_and_duplicates_are_ignored(
        harness: Harness) -> None:
    assert run(harness, "unsubscribed") == ["X"]


def test_subscribing_an_unknown_handler_fails(harness: Harness) -> None:
    with pytest.raises(MuranoPlError) as info:
        run(harness, "subscribeUnknownHandler")
    assert info.value.names == ["murano.dsl.exceptions.NoMethodFound"]
    assert info.value.message == 'Method "noSuchMethod" is not found in class t.gc.Driver'


def test_calling_a_destroyed_object_raises(harness: Harness) -> None:
    with pytest.raises(MuranoPlError) as info:
        run(harness, "callDestroyed")
    assert info.value.names == ["murano.dsl.exceptions.ObjectDestroyedError"]
    assert info.value.message.startswith("Object <t.gc.Node/0.0.0 ")
    assert info.value.message.endswith("> is already destroyed")
    # the handler saw a living object, then `.destroy` ran once
    assert harness.trace == [False, "touch", "X"]


def test_is_destroyed_false_in_handler_true_after(harness: Harness) -> None:
    assert run(harness, "destroyedFlag") == [False, "touch", "X", True]


def test_is_doomed_inside_destroy(harness: Harness) -> None:
    # B first: no nodes, its owner A is doomed; then A: B is doomed (destroyed),
    # A's owner (the driver) is not
    assert run(harness, "doomedNeighbours") == [[], True, "B", [True], False, "A"]


def test_static_property_keeps_object(harness: Harness) -> None:
    assert run(harness, "staticKeeps") == []


def test_method_argument_keeps_object(harness: Harness) -> None:
    assert run(harness, "argumentKeeps") == []


def test_runtime_and_private_values_keep_objects(harness: Harness) -> None:
    assert run(harness, "propertiesKeep") == [False]


def test_destroy_of_each_class_once_most_derived_first(harness: Harness) -> None:
    assert run(harness, "diamond") == ["Diamond", "Left", "Right", "Base"]


def test_objects_dropped_while_destroying_are_collected_too(harness: Harness) -> None:
    assert run(harness, "breeder") == ["parent", "offspring"]


def test_error_in_destroy_is_logged_and_the_rest_still_runs(
        harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    # Failing's own .destroy throws; Node's .destroy of the same object and the
    # owner's still run
    with caplog.at_level(logging.WARNING, logger="laguna.lang.lifecycle"):
        assert run(harness, "failing") == ["child", "owner"]
    [record] = caplog.records
    assert record.getMessage().startswith("Muted error in t.gc.Failing::.destroy of <t.gc.Failing")
    assert record.getMessage().endswith(": [t.gc.Boom]: cannot go")


def test_object_whose_init_failed_is_dropped_without_destroy(harness: Harness) -> None:
    assert run(harness, "badInit") == ["no init"]
    assert [o for o in harness.executor.objects.values() if o.type.name == "t.gc.BadInit"] == []


def test_mutual_subscribers_each_destroyed_once(harness: Harness) -> None:
    trace = run(harness, "mutualSubscribers")
    assert sorted(trace) == ["A", "B", "noticed A", "noticed B"]
    assert trace[:2] in (["noticed A", "noticed B"], ["noticed B", "noticed A"])


# -- collection from the host ------------------------------------------------------------

def test_collect_garbage_counts_and_removes_objects(harness: Harness) -> None:
    executor = harness.executor
    executor.new_object(harness.cls("Node"), None, {"value": "loose"})
    before = len(executor.objects)
    assert executor.collect_garbage() == 1
    assert len(executor.objects) == before - 1
    assert harness.trace == ["loose"]
    assert executor.collect_garbage() == 0


def test_destroyed_object_leaves_store_and_attributes(harness: Harness) -> None:
    executor = harness.executor
    obj = executor.new_object(harness.cls("Node"), None, {"value": "x"})
    executor.set_attr(obj, harness.cls("Node"), "k", 1)
    object_id = obj.id
    del obj
    executor.collect_garbage()
    assert executor.objects.get(object_id) is None
    assert object_id not in executor.attributes


def test_objects_copy_only_objects_destroyed_at_load(harness: Harness) -> None:
    # the first deployment's model (ObjectsCopy) had two nodes referring to each
    # other and to the root; the new one has no objects at all
    copy = node("root", "r", nodes=[node("node1", "n1", nodes=["r", "n2"]),
                                    node("node2", "n2", nodes=["r", "n1"])])
    assert harness.executor.load_deployment({"Objects": None, "ObjectsCopy": copy}) is None
    assert harness.trace == ["node1", "node2", "root"]


def test_objects_copy_merge_keeps_new_state(harness: Harness) -> None:
    # node2 existed in the previous deployment and is gone now; its .destroy
    # sees the root as the new model has it
    old = node("old root", "root", nodes=[node("node2", "n2", nodes=["root"])])
    new = node("new root", "root", nodes=[])
    root = harness.executor.load_deployment({"Objects": new, "ObjectsCopy": old})
    assert root is not None and root.values["value"] == "new root"
    assert harness.trace == ["node2"]
    assert harness.executor.objects.get("n2") is None


def test_host_root_of_deployment_survives_collection(harness: Harness) -> None:
    executor = harness.executor
    executor.load_deployment({"Objects": node("root", "r", nodes=[node("child", "c")])})
    executor.collect_garbage()
    assert harness.trace == []
    assert executor.objects.get("c") is not None


def test_two_deployments_removed_object_destroyed_with_its_handlers(
        package: pathlib.Path) -> None:
    first = Harness(package)
    driver = first.executor.load_deployment(
        {"Objects": {"?": {"type": "t.gc.Driver", "id": "driver"}}})
    assert driver is not None
    first.executor.call(driver, "subscribeOut")
    retired = first.record_destroy()
    model = first.executor.finalize(driver)
    assert model is not None
    out = model["Objects"]["out"]
    dependencies = {"onDestruction": [{"subscriber": "driver", "handler": "onDestroyed"}]}
    assert out["?"]["dependencies"] == dependencies
    assert out["nodes"][0]["?"]["dependencies"] == dependencies
    assert model["ObjectsCopy"] == model["Objects"]
    # the previous deployment's objects are all retired, none destroyed
    assert retired == []
    assert len(first.executor.objects) == 0
    assert driver.destroyed

    # the user removed `out` from the model: the second deployment destroys it
    model["Objects"]["out"] = None
    second = Harness(package)
    second.executor.load_deployment(model)
    assert second.trace == ["handler A", "handler B", "B", "A"]


def test_finalize_destroys_objects_outside_the_model(harness: Harness) -> None:
    executor = harness.executor
    root = executor.load_deployment({"Objects": node("root", "r", nodes=[node("kid", "k")])})
    assert root is not None
    # referred to only by a Runtime property: not part of the model
    root.values["extra"] = executor.new_object(harness.cls("Node"), None, {"value": "runtime"})
    destroyed = harness.record_destroy()
    model = executor.finalize(root)
    assert destroyed == ["runtime"]
    assert harness.trace == []     # static properties are reset
    assert model is not None
    assert [n["value"] for n in model["Objects"]["nodes"]] == ["kid"]
    assert root.destroyed
    with pytest.raises(ObjectDestroyedError, match=r"^Object <t.gc.Node/0.0.0 r> is already "
                       "destroyed$"):
        executor.call(root, "touch")


def test_destroyed_header_loads_a_destroyed_object(harness: Harness) -> None:
    model = node("root", "r", nodes=[{"?": {"type": "t.gc.BadInit", "id": "d",
                                             "destroyed": True}, "value": "gone"}])
    root = harness.executor.load_model({"Objects": model})
    assert root is not None
    gone = root.values["nodes"][0]
    assert gone.destroyed and not gone.initialized   # BadInit's .init did not run
    with pytest.raises(ObjectDestroyedError, match=r"^Object <t.gc.BadInit/0.0.0 d> is "
                       "already destroyed$"):
        harness.executor.call(gone, "touch")


def test_host_local_variable_keeps_object(harness: Harness) -> None:
    executor = harness.executor
    held = executor.new_object(harness.cls("Node"), None, {"value": "held"})
    assert executor.collect_garbage() == 0
    assert not held.destroyed


def test_collect_while_loading_spares_the_graph(harness: Harness) -> None:
    # the collector's .init runs before its owner's: the owner, created but not
    # initialised yet, belongs to the graph being loaded and survives
    model = node("root", "r", nodes=[{"?": {"type": "t.gc.Collector", "id": "c"},
                                      "value": "collector"}])
    root = harness.executor.load_model({"Objects": model})
    assert root is not None and root.initialized and not root.destroyed
    assert root.values["nodes"][0].values["value"] == "collector"
    assert harness.trace == []


def test_collections_running_at_once_destroy_each_object_once(package: pathlib.Path) -> None:
    for _ in range(5):
        assert sorted(run(Harness(package), "parallelCollect")) == ["A", "B"]


def test_collection_passes_over_objects_another_thread_is_building(harness: Harness) -> None:
    """An engine worker runs deployments in threads of one process: every
    thread's frames are seeds, and another deployment's object may be half
    built there (no ``destroyed`` yet) or belong to another executor."""
    import threading

    executor = harness.executor
    executor.new_object(harness.cls("Node"), None, {"value": "loose"})
    holding, done = threading.Event(), threading.Event()

    def other_deployment() -> None:
        # as MuranoObject.__init__ leaves it halfway: real_this set, no destroyed
        half_built = MuranoObject.__new__(MuranoObject)
        half_built.real_this = half_built
        holding.set()
        done.wait(10)

    thread = threading.Thread(target=other_deployment)
    thread.start()
    try:
        assert holding.wait(10)
        assert executor.collect_garbage() == 1
    finally:
        done.set()
        thread.join(10)
    assert harness.trace == ["loose"]
