"""The object model written back: owned objects in place, references by id,
and objects nothing in the tree owns written in full at their first reference."""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir

NODE = """\
Namespaces:
  =: t.ser
Name: Node
Properties:
  label:
    Contract: $.string()
  first:
    Contract: $.class(Node)
    Usage: InOut
  second:
    Contract: $.class(Node)
    Usage: InOut
  scratch:
    Contract: $.class(Node)
    Usage: Runtime
Methods:
  build:
    Body:
      - $stray: new(Node, label => stray)
      - $.first: new(Node, $this, label => owned, first => $stray)
      - $.second: $stray
      - $.scratch: new(Node, $this, label => runtime)
"""


@pytest.fixture
def executor(tmp_path: pathlib.Path) -> Executor:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.ser\nVersion: 1.2.3\n"
        "Classes:\n  t.ser.Node: Node.yaml\n")
    (package / "Classes" / "Node.yaml").write_text(textwrap.dedent(NODE))
    registry = core_registry()
    registry.add(read_package_dir(package))
    return Executor(registry)


def _header(obj_id: str) -> dict[str, object]:
    return {"type": "t.ser.Node", "id": obj_id, "package": "t.ser", "version": "1.2.3"}


def test_unowned_object_is_written_once_at_its_first_reference(executor: Executor) -> None:
    root = executor.new_object(executor.classes.find("t.ser.Node"), None,
                               {"label": "root"}, object_id="root")
    executor.call(root, "build")
    owned = root.values["first"]
    stray = root.values["second"]
    model = executor.serialize_object(root)
    from laguna.lang.dispatch import thaw
    model = thaw(model)
    assert model == {
        "?": _header("root"),
        "label": "root",
        "first": {"?": _header(owned.id), "label": "owned",
                  "first": {"?": _header(stray.id), "label": "stray",
                            "first": None, "second": None},
                  "second": None},
        "second": stray.id,
    }


def test_written_model_loads_back_with_the_same_graph(executor: Executor) -> None:
    root = executor.new_object(executor.classes.find("t.ser.Node"), None,
                               {"label": "root"}, object_id="root")
    executor.call(root, "build")
    model = executor.serialize(root)
    again = Executor(executor.classes).load_model(model)
    assert again.values["label"] == "root"
    assert again.values["second"].values["label"] == "stray"
    assert again.values["second"] is again.values["first"].values["first"]
