from __future__ import annotations

import re
import typing as t

import pytest

from tests.unit.api.conftest import Api
from tests.unit.api.packages import add_category, fault, package_zip, uploaded

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")


def _admin(api: Api) -> dict[str, str]:
    return api.headers(api.token("admin", "root", admin=True))


def _list(api: Api, **params: t.Any) -> t.Any:
    return api.client.get("/v1/catalog/categories", params=params,
                          headers=api.headers(api.token()))


def _names(response: t.Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [category["name"] for category in response.json()["categories"]]


def test_an_admin_adds_a_category(api: Api) -> None:
    response = api.client.post("/v1/catalog/categories", json={"name": "Web"},
                               headers=_admin(api))
    assert response.status_code == 200
    body = response.json()
    assert re.fullmatch("[0-9a-f]{32}", body["id"])
    assert TIME.match(body["created"]) and body["updated"] == body["created"]
    assert {k: body[k] for k in ("name", "package_count")} == {"name": "Web",
                                                               "package_count": 0}
    assert set(body) == {"id", "name", "created", "updated", "package_count"}


def test_only_an_admin_adds_a_category(api: Api) -> None:
    response = api.client.post("/v1/catalog/categories", json={"name": "Web"},
                               headers=api.headers(api.token()))
    assert response.status_code == 403
    assert response.json() == fault(403, "Access was denied to this resource.")


@pytest.mark.parametrize(("body", "code", "message"), [
    ({}, 400, "Please, specify a name of the category to create"),
    ({"name": ""}, 400, "Please, specify a name of the category to create"),
    ({"name": "c" * 81}, 400, "Category name should be 80 characters maximum"),
    ({"name": "Web"}, 409, "Category with specified name is already exist"),
])
def test_adding_a_category_is_refused(api: Api, body: dict[str, t.Any], code: int,
                                      message: str) -> None:
    add_category(api, "Web")
    response = api.client.post("/v1/catalog/categories", json=body, headers=_admin(api))
    assert response.status_code == code
    assert response.json() == fault(code, message)


@pytest.fixture()
def categories(api: Api) -> dict[str, str]:
    ids = {name: add_category(api, name)["id"] for name in ("Web", "Databases", "Caches")}
    uploaded(api, api.token(), package_zip("com.example.One"), {"categories": ["Web"]})
    uploaded(api, api.token(), package_zip("com.example.Two"), {"categories": ["Web",
                                                                               "Caches"]})
    return ids


def test_list_counts_the_packages_of_each_category(api: Api,
                                                    categories: dict[str, str]) -> None:
    response = _list(api)
    assert {c["name"]: c["package_count"] for c in response.json()["categories"]} == {
        "Caches": 1, "Databases": 0, "Web": 2}
    assert _names(response) == ["Caches", "Databases", "Web"]
    assert "next_marker" not in response.json()


def test_list_sorts_and_pages(api: Api, categories: dict[str, str]) -> None:
    assert _names(_list(api, sort_keys="package_count,name", sort_dir="desc")) == [
        "Web", "Caches", "Databases"]
    first = _list(api, limit=2).json()
    assert [c["name"] for c in first["categories"]] == ["Caches", "Databases"]
    assert first["next_marker"] == categories["Databases"]
    second = _list(api, limit=2, marker=first["next_marker"]).json()
    assert second == {"categories": second["categories"]}
    assert [c["name"] for c in second["categories"]] == ["Web"]


@pytest.mark.parametrize(("params", "code", "message"), [
    ({"name": "x"}, 400,
     "Bad value passed to filter. Got name, expected:sort_keys, sort_dir, limit, marker"),
    ({"sort_keys": "name,size"}, 400, "Invalid sort key: size. Must be one of the following: "
     "name, created, updated, package_count, id"),
    ({"sort_dir": "up"}, 400, "Invalid sort direction: up"),
    ({"limit": "-1"}, 400, "Limit param must be positive"),
    ({"marker": "nope"}, 404, "Category id 'nope' not found"),
])
def test_bad_listing_parameters(api: Api, params: dict[str, str], code: int,
                                message: str) -> None:
    response = _list(api, **params)
    assert response.status_code == code
    assert response.json() == fault(code, message)


def test_show_names_only_the_packages_the_caller_may_see(api: Api,
                                                         categories: dict[str, str]) -> None:
    uploaded(api, api.token("p2", "u2"), package_zip("com.example.Secret"),
             {"categories": ["Web"]})
    response = api.client.get(f"/v1/catalog/categories/{categories['Web']}",
                              headers=api.headers(api.token()))
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["package_count"]) == ("Web", 3)
    assert [(p["name"], p["fully_qualified_name"]) for p in body["packages"]] == [
        ("com.example.One", "com.example.One"), ("com.example.Two", "com.example.Two")]
    assert all(re.fullmatch("[0-9a-f]{32}", p["id"]) for p in body["packages"])


def test_show_an_unknown_category_answers_404(api: Api) -> None:
    response = api.client.get("/v1/catalog/categories/nope", headers=api.headers(api.token()))
    assert response.status_code == 404
    assert response.json() == fault(404, "Category id 'nope' not found")


def test_a_category_in_use_is_not_deleted(api: Api, categories: dict[str, str]) -> None:
    response = api.client.delete(f"/v1/catalog/categories/{categories['Web']}",
                                 headers=_admin(api))
    assert response.status_code == 403
    assert response.json() == fault(403, "It's impossible to delete categories assigned to "
                                         "the package, uploaded to the catalog")


def test_an_unused_category_is_deleted_by_an_admin(api: Api,
                                                   categories: dict[str, str]) -> None:
    path = f"/v1/catalog/categories/{categories['Databases']}"
    response = api.client.delete(path, headers=api.headers(api.token()))
    assert response.json() == fault(403, "Access was denied to this resource.")
    response = api.client.delete(path, headers=_admin(api))
    assert (response.status_code, response.content) == (200, b"")
    assert _names(_list(api)) == ["Caches", "Web"]
    assert api.client.delete(path, headers=_admin(api)).json() == fault(
        404, f"Category id '{categories['Databases']}' not found")
