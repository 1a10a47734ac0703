"""``POST /v1/actions``: static actions of classes in the catalog, called
synchronously, with the original's codes."""

from __future__ import annotations

import textwrap
import typing as t
from pathlib import Path

import pytest

from laguna.packages.package import load_package
from laguna.store.packages import import_package
from tests.unit.api.conftest import Api
from tests.unit.api.packages import fault

CLASS = """\
Namespaces:
  =: test.static
Name: Calc
Methods:
  add:
    Usage: Static
    Scope: Public
    Arguments:
      - a:
          Contract: $.int().notNull()
      - b:
          Contract: $.int().notNull()
    Body:
      - Return: $a + $b
  describe:
    Usage: Static
    Scope: Public
    Body:
      - Return:
          version: '{version}'
          items: [1, 2]
          none: null
  fail:
    Usage: Static
    Scope: Public
    Body:
      - Throw: test.static.Broken
        Message: it broke
  addInside:
    Usage: Static
    Scope: Public
    Body:
      - Return: :Calc.add(a => 'x', b => 1)
  hidden:
    Usage: Static
    Body:
      - Return: 1
  instanceAction:
    Scope: Public
    Body:
      - Return: 1
"""


def add_package(api: Api, tmp_path: Path, name: str, version: str, *,
                owner: str = "p1", public: bool = False) -> None:
    folder = tmp_path / f"{name}-{version}"
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(textwrap.dedent(f"""\
        Format: 1.4
        Type: Library
        FullName: {name}
        Name: {name}
        Version: {version}
        Classes:
          test.static.Calc: Calc.yaml
        """))
    (folder / "Classes" / "Calc.yaml").write_text(CLASS.replace("{version}", version))
    with api.database.session() as session:
        import_package(session, load_package(folder), is_public=public, owner_id=owner)


@pytest.fixture()
def calc(api: Api, tmp_path: Path) -> Api:
    add_package(api, tmp_path, "test.static", "0.1.0")
    add_package(api, tmp_path, "test.static", "1.0.0")
    return api


def call(api: Api, body: t.Any, project: str = "p1") -> t.Any:
    return api.client.post("/v1/actions", headers=api.headers(api.token(project, "u1")),
                           json=body)


def test_a_static_action_answers_its_result(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "add",
                           "parameters": {"a": 2, "b": 3}})
    assert (response.status_code, response.json()) == (200, 5)


def test_the_result_is_json(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "describe"})
    assert response.json() == {"version": "0.1.0", "items": [1, 2], "none": None}


def test_without_a_version_the_original_asks_for_0_x(calc: Api) -> None:
    body = {"className": "test.static.Calc", "methodName": "describe"}
    assert call(calc, body).json()["version"] == "0.1.0"
    assert call(calc, {**body, "classVersion": ""}).json()["version"] == "0.1.0"
    assert call(calc, {**body, "classVersion": "=1"}).json()["version"] == "1.0.0"
    assert call(calc, {**body, "classVersion": ">=0"}).json()["version"] == "1.0.0"


def test_the_package_may_be_named(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "describe",
                           "packageName": "test.static", "classVersion": "1.0.0"})
    assert response.json()["version"] == "1.0.0"


@pytest.mark.parametrize("body", [{}, {"className": "test.static.Calc"},
                                  {"methodName": "add"}, {"className": "", "methodName": "a"},
                                  ["test.static.Calc"], None])
def test_a_body_without_class_or_method_is_400(calc: Api, body: t.Any) -> None:
    response = call(calc, body)
    assert response.status_code == 400
    assert response.json() == fault(
        400, "Class name and method name must be specified for static action")


def test_parameters_that_are_not_an_object_are_400(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "add",
                           "parameters": [1, 2]})
    assert response.status_code == 400


def test_a_contract_violation_of_a_parameter_is_400(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "add",
                           "parameters": {"a": "x", "b": 1}})
    assert response.status_code == 400
    assert response.json()["error"]["explanation"].startswith(
        "argument a of method test.static.Calc::add: ")


def test_an_unknown_argument_is_404(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "add",
                           "parameters": {"c": 1}})
    assert response.status_code == 404
    assert response.json() == fault(404, "Method add has no argument named c")


@pytest.mark.parametrize("body, message", [
    ({"className": "test.static.Nothing", "methodName": "add"},
     'Package for class "test.static.Nothing" is not found in a version matching '
     "'=0' (>=0.0.0,<1.0.0-0)"),
    ({"className": "test.static.Calc", "methodName": "nothing"},
     'Method "nothing" is not found in class test.static.Calc'),
    ({"className": "test.static.Calc", "methodName": "hidden"}, "hidden is not an action"),
    ({"className": "test.static.Calc", "methodName": "instanceAction"},
     "instanceAction is not a static action of class test.static.Calc"),
    ({"className": "test.static.Calc", "methodName": "add", "packageName": "test.none"},
     'Package "test.none" is not found in a version matching \'=0\' (>=0.0.0,<1.0.0-0)'),
])
def test_what_is_not_there_is_404(calc: Api, body: dict[str, str], message: str) -> None:
    response = call(calc, body)
    assert response.status_code == 404
    assert response.json() == fault(404, message)


def test_an_exception_of_the_method_is_503(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "fail"})
    assert response.status_code == 503
    assert response.json() == fault(503, "[test.static.Broken]: it broke")


def test_a_contract_violation_inside_the_method_is_503(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "addInside"})
    assert response.status_code == 503
    assert "ContractViolationException" in response.json()["error"]["explanation"]


def test_a_version_requirement_that_does_not_parse_is_400(calc: Api) -> None:
    response = call(calc, {"className": "test.static.Calc", "methodName": "describe",
                           "classVersion": "=garbage"})
    assert response.status_code == 400
    assert "invalid version requirement '=garbage'" in response.json()["error"]["explanation"]


def test_another_projects_private_package_is_not_there(api: Api, tmp_path: Path) -> None:
    add_package(api, tmp_path, "test.static", "0.1.0", owner="p2")
    body = {"className": "test.static.Calc", "methodName": "add",
            "parameters": {"a": 1, "b": 1}}
    assert call(api, body, "p2").json() == 2
    response = call(api, body, "p1")
    assert response.status_code == 404
    named = call(api, {**body, "packageName": "test.static"}, "p1")
    assert (named.status_code, named.json()["error"]["explanation"]) == (
        404, 'Package "test.static" is not found in a version matching \'=0\' '
        "(>=0.0.0,<1.0.0-0)")


def test_a_public_package_of_another_project_is_there(api: Api, tmp_path: Path) -> None:
    add_package(api, tmp_path, "test.static", "0.1.0", owner="p2", public=True)
    response = call(api, {"className": "test.static.Calc", "methodName": "add",
                          "parameters": {"a": 1, "b": 1}}, "p1")
    assert (response.status_code, response.json()) == (200, 2)


def test_a_static_action_needs_a_token(api: Api) -> None:
    response = api.client.post("/v1/actions", json={"className": "a", "methodName": "b"})
    assert response.status_code == 401
