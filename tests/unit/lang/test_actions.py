"""Actions through the engine's API: `_actions` in a serialised model,
run_action on a model and run_static_action by class name.

The classes are those of the conformance package `actions`, whose MuranoPL
tests check the same methods from inside the language.
"""

from __future__ import annotations

import copy
import pathlib
import textwrap
import typing as t

import pytest

from laguna.lang import errors
from laguna.lang.actions import ActionDisabled, ActionNotFound, action_methods
from laguna.lang.classes import PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry
from laguna.testing.runner import TestRunner as PackageRunner

PACKAGE = (pathlib.Path(__file__).resolve().parents[2]
           / "conformance" / "muranopl" / "packages" / "actions")
NS = "conformance.actions."

MODEL: dict[str, t.Any] = {
    "Objects": {
        "?": {"id": "env", "type": NS + "Env", "_26411a1861294160833743e45d0eaad9": {
            "name": "SimpleApp"}},
        "apps": [{"?": {"id": "a1", "type": NS + "App"}, "name": "web", "size": 1}],
    },
}

APP_ACTIONS = {
    "a1_scale": {"enabled": True, "name": "scale", "title": "Scale out",
                 "description": "Adds instances"},
    "a1_oldStyle": {"enabled": True, "name": "oldStyle", "title": "oldStyle"},
    "a1_report": {"enabled": True, "name": "report", "title": "report"},
    "a1_fail": {"enabled": True, "name": "fail", "title": "fail"},
    "a1_restart": {"enabled": True, "name": "restart", "title": "restart",
                   "helpText": "Restarts every instance"},
}


@pytest.fixture(scope="module")
def runner() -> PackageRunner:
    return PackageRunner(PACKAGE)


@pytest.fixture
def executor(runner: PackageRunner) -> Executor:
    return Executor(runner.registry)


def model(**app_header: t.Any) -> dict[str, t.Any]:
    data = copy.deepcopy(MODEL)
    data["Objects"]["apps"][0]["?"].update(app_header)
    return data


def app_of(serialised: dict[str, t.Any]) -> dict[str, t.Any]:
    return t.cast(dict[str, t.Any], serialised["Objects"]["apps"][0])


# -- listing ---------------------------------------------------------------------------
def test_serialised_model_lists_actions_of_each_object(executor: Executor) -> None:
    result = executor.serialize(executor.load_model(model()))
    assert app_of(result)["?"]["_actions"] == APP_ACTIONS
    assert result["Objects"]["?"]["_actions"] == {}


def test_listing_includes_inherited_and_deprecated_actions_only(runner: PackageRunner) -> None:
    app = runner.registry.find(NS + "App", runner.package.package)
    names = [m.name for m in action_methods(app)]
    # App's own, then Base's; `reset` is overridden by a plain method, `internal`
    # is Scope: Session
    assert names == ["scale", "oldStyle", "report", "fail", "restart"]


def test_designer_attributes_are_given_back(executor: Executor) -> None:
    result = executor.serialize(executor.load_model(model()))
    assert result["Objects"]["?"]["_26411a1861294160833743e45d0eaad9"] == {"name": "SimpleApp"}


def test_enabled_flag_from_the_model_is_kept_and_stale_entries_dropped(
        executor: Executor) -> None:
    given = {"a1_scale": {"enabled": False, "name": "scale", "note": "kept"},
             "a1_gone": {"enabled": True, "name": "gone"}}
    result = executor.serialize(executor.load_model(model(_actions=given)))
    actions = app_of(result)["?"]["_actions"]
    assert actions["a1_scale"] == {"enabled": False, "name": "scale", "note": "kept",
                                   "title": "Scale out", "description": "Adds instances"}
    assert "a1_gone" not in actions
    assert set(actions) == set(APP_ACTIONS)


def test_objects_wins_over_objects_copy_for_ui_data(executor: Executor) -> None:
    data = model(_actions={"a1_scale": {"enabled": False, "name": "scale"}})
    data["ObjectsCopy"] = model(_actions={"a1_scale": {"enabled": True, "name": "scale"}})[
        "Objects"]
    result = executor.serialize(executor.load_model(data))
    assert app_of(result)["?"]["_actions"]["a1_scale"]["enabled"] is False


def test_dump_of_an_object_has_no_actions(executor: Executor) -> None:
    root = executor.load_model(model())
    assert root is not None
    dumped = executor.serialize_object(root)
    assert "_actions" not in dumped["?"]


# -- run_action ------------------------------------------------------------------------
def test_run_action_returns_result_and_new_model(executor: Executor) -> None:
    outcome = executor.run_action(model(), "a1_scale", {"by": 2})
    assert outcome.error is None
    assert outcome.result == 3
    assert outcome.model is not None
    assert app_of(outcome.model)["size"] == 3
    assert app_of(outcome.model)["?"]["_actions"] == APP_ACTIONS


def test_run_inherited_and_deprecated_actions(runner: PackageRunner) -> None:
    assert Executor(runner.registry).run_action(model(), "a1_restart").result == "restarted"
    assert Executor(runner.registry).run_action(model(), "a1_oldStyle").result == "old style"


def test_object_result_is_serialised_as_its_model(executor: Executor) -> None:
    outcome = executor.run_action(model(), "a1_report")
    assert outcome.result["?"]["type"] == NS + "Report"
    assert "_actions" not in outcome.result["?"]
    assert outcome.result["lines"] == ["web", "1"]


def test_exception_in_action_is_returned_with_the_model_it_left(executor: Executor) -> None:
    outcome = executor.run_action(model(), "a1_fail")
    assert outcome.result is None
    assert outcome.error is not None
    assert outcome.error.names == [NS + "scaleFailed"]
    assert outcome.error.message == "cannot scale"
    assert [f.method_name for f in outcome.error.frames] == ["fail"]
    assert outcome.model is not None
    assert app_of(outcome.model)["size"] == 99


def test_bad_parameters_are_an_error_of_the_action(executor: Executor) -> None:
    outcome = executor.run_action(model(), "a1_scale", {"by": "many"})
    assert outcome.error is not None
    assert outcome.error.names == ["murano.dsl.exceptions.ContractViolationException"]


@pytest.mark.parametrize("method", ["internal", "reset"])
def test_only_actions_can_be_run(executor: Executor, method: str) -> None:
    with pytest.raises(errors.MethodNotExposed) as info:
        executor.run_action(model(), f"a1_{method}")
    assert str(info.value) == f"{method} is not an action"
    assert info.value.code == "LAG-E0313"


@pytest.mark.parametrize("action", ["zz_scale", "a1_nothing", "a1_", "env"])
def test_unknown_action(executor: Executor, action: str) -> None:
    with pytest.raises(ActionNotFound) as info:
        executor.run_action(model(), action)
    assert str(info.value) == f'Action "{action}" is not found'
    assert info.value.code == "LAG-E0902"


def test_disabled_action_is_refused(executor: Executor) -> None:
    with pytest.raises(ActionDisabled) as info:
        executor.run_action(model(_actions={"a1_scale": {"enabled": False, "name": "scale"}}),
                            "a1_scale", {"by": 1})
    assert str(info.value) == 'Cannot execute disabled action "a1_scale"'
    assert info.value.code == "LAG-E0903"


# -- run_static_action -------------------------------------------------------------------
def test_static_action_of_the_reference(executor: Executor) -> None:
    outcome = executor.run_static_action(NS + "Bar", "staticAction", {"myName": "John"})
    assert (outcome.result, outcome.model, outcome.error) == ("Hello, John", None, None)


def test_static_action_from_a_package_version(executor: Executor) -> None:
    outcome = executor.run_static_action(NS + "Bar", "staticAction", {"myName": "John"},
                                         package="conformance.actions", version="1.2")
    assert outcome.result == "Hello, John"


def test_static_action_with_no_matching_version(executor: Executor) -> None:
    with pytest.raises(errors.DslError) as info:
        executor.run_static_action(NS + "Bar", "staticAction", {"myName": "John"},
                                   version=">=2")
    # the versions that do define it are named (issue 23)
    assert str(info.value) == ('Package for class "conformance.actions.Bar" is not found in a '
                               "version matching '>=2' (>=2.0.0); defined in "
                               "conformance.actions 1.2.0")


def test_static_method_that_is_not_an_action(executor: Executor) -> None:
    with pytest.raises(errors.MethodNotExposed) as info:
        executor.run_static_action(NS + "Bar", "notAnAction")
    assert str(info.value) == "notAnAction is not an action"


def test_instance_action_is_not_a_static_action(executor: Executor) -> None:
    with pytest.raises(errors.MethodNotExposed) as info:
        executor.run_static_action(NS + "App", "scale", {"by": 1})
    assert str(info.value) == "scale is not a static action of class conformance.actions.App"


def test_static_action_with_wrong_parameter(executor: Executor) -> None:
    outcome = executor.run_static_action(NS + "Bar", "staticAction", {"name": "John"})
    assert outcome.error is not None
    assert outcome.error.names == ["yaql.language.exceptions.NoMatchingMethodException"]
    assert outcome.error.message == "Method staticAction has no argument named name"


# -- declaration ------------------------------------------------------------------------
def test_usage_action_with_scope_session_is_rejected() -> None:
    registry = core_registry()
    body = textwrap.dedent("""\
        Name: t.A
        Methods:
          act:
            Usage: Action
            Scope: Session
            Body:
              - Return: 1
        """)
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [("Classes/A.yaml", lambda: body)]))
    with pytest.raises(errors.ClassLoadError) as info:
        registry.find("t.A")
    assert info.value.code == "LAG-E0233"
    assert info.value.message == (
        'Both "Usage: Action" and "Scope: Session" are provided for method act')
    assert (info.value.span.source, info.value.span.line) == ("Classes/A.yaml", 5)


def test_usage_action_with_scope_public_is_an_action() -> None:
    registry = core_registry()
    body = textwrap.dedent("""\
        Name: t.A
        Methods:
          act:
            Usage: Action
            Scope: Public
            Body:
              - Return: 1
        """)
    registry.add(PackageClasses(RuntimePackage("t.pkg"), [("Classes/A.yaml", lambda: body)]))
    assert [m.name for m in action_methods(registry.find("t.A"))] == ["act"]
