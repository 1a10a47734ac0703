"""Creating an object writes its properties through their declarations looked
up once per class (MuranoClass.property_declarations, properties.write_declared):
the same values and the same errors as writing each through set_property
(the general path, taken when the declarations are not available)."""

from __future__ import annotations

import typing as t
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laguna.errors import LagunaError
from laguna.lang.executor import Executor
from laguna.lang.objects import generate_id
from laguna.lang.types import MuranoClass
from laguna.testing.packages import core_registry, read_package_dir

BASE = """\
Namespaces: {=: t.objs}
Name: Base
Properties:
  weight:
    Contract: $.int().check($ != 2, 'not 2 here')
  note:
    Contract: $.string()
    Default: base
"""
RECORD = """\
Namespaces: {=: t.objs}
Name: Record
Extends: Base
Properties:
  index:
    Contract: $.int().notNull()
  weight:
    Contract: $.int().check($ >= 0)
  label:
    Contract: $.string().notNull()
  tags:
    Contract: [$.string()]
    Default: [small, plain]
  double:
    Contract: $.int()
    Default: $.index * 2
  seen:
    Contract: $
    Usage: Runtime
    Default: [1]
  hidden:
    Contract: $
    Usage: Runtime
"""


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> t.Any:
    package = tmp_path_factory.mktemp("objs") / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.objs\nClasses:\n"
        "  t.objs.Base: Base.yaml\n  t.objs.Record: Record.yaml\n")
    (package / "Classes" / "Base.yaml").write_text(BASE)
    (package / "Classes" / "Record.yaml").write_text(RECORD)
    registry = core_registry()
    registry.add(read_package_dir(package))
    return registry


def created(registry: t.Any, params: dict[str, t.Any]) -> t.Any:
    executor = Executor(registry)
    try:
        obj = executor.run(lambda: executor.new_object(registry.find("t.objs.Record"), None,
                                                       params))
    except LagunaError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", dict(obj.values))


def general(registry: t.Any, params: dict[str, t.Any],
            monkeypatch: pytest.MonkeyPatch) -> t.Any:
    with monkeypatch.context() as patch:
        patch.setattr(MuranoClass, "property_declarations", lambda self: None)
        return created(registry, params)


def test_an_object_s_properties(registry: t.Any) -> None:
    assert created(registry, {"index": "3", "weight": 1, "label": 7}) == ("ok", {
        "weight": 1, "note": "base", "index": 3, "label": "7", "tags": ("small", "plain"),
        "double": 6, "seen": (1,)})
    assert created(registry, {"index": 1, "weight": -1, "label": "a"}) == (
        "error", "ContractViolationException", "property t.objs.Record.weight: Value -1 "
        "doesn't match predicate (contract: $.int().check($ >= 0))")
    # the base class's declaration checks what the derived one made of the value
    assert created(registry, {"index": 1, "weight": "2", "label": "a"}) == (
        "error", "ContractViolationException", "property t.objs.Record.weight: not 2 here "
        "(contract: $.int().check($ >= 0))")


# (monkeypatch is only used in a context undone at each example)
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(
    st.sampled_from(["index", "weight", "label", "tags", "note", "double", "seen"]),
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.just("2"), st.text(max_size=2),
              st.lists(st.one_of(st.integers(0, 2), st.text(max_size=1)), max_size=2)),
    max_size=7))
def test_creation_equals_the_general_path(registry: t.Any, monkeypatch: pytest.MonkeyPatch,
                                          params: dict[str, t.Any]) -> None:
    assert created(registry, params) == general(registry, params, monkeypatch)


def test_a_new_objects_id_is_a_random_version_4_uuid_in_hex() -> None:
    ids = {generate_id() for _ in range(200)}
    assert len(ids) == 200
    for text in ids:
        parsed = uuid.UUID(hex=text)
        assert (parsed.hex, parsed.version, parsed.variant) == (text, 4, uuid.RFC_4122)
