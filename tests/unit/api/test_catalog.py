from __future__ import annotations

import json
import re
import typing as t

import pytest

from tests.unit.api.conftest import Api
from tests.unit.api.packages import (
    add_category,
    fault,
    fixture_zip,
    package_zip,
    upload,
    uploaded,
)

PATCH = "application/murano-packages-json-patch"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")


def _get(api: Api, token: str, path: str, **params: t.Any) -> t.Any:
    return api.client.get(f"/v1/catalog/packages{path}", params=params,
                          headers=api.headers(token))


def _patch(api: Api, token: str, package_id: str, operations: t.Any,
           content_type: str = PATCH) -> t.Any:
    return api.client.patch(f"/v1/catalog/packages/{package_id}",
                            content=json.dumps(operations),
                            headers={"X-Auth-Token": token, "Content-Type": content_type})


def _names(response: t.Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [package["fully_qualified_name"] for package in response.json()["packages"]]


# -- upload ----------------------------------------------------------------------------


def test_upload_answers_the_package_in_the_original_shape(api: Api) -> None:
    add_category(api, "Web")
    body = uploaded(api, api.token(), package_zip(
        "com.example.One", name="One", description="the first", author="me", tags=["a"],
        manifest={"Supplier": {"Name": "ACME"}}), {"tags": ["b", "a"], "categories": ["Web"],
                                                  "name": "ignored", "enabled": False})
    assert re.fullmatch("[0-9a-f]{32}", body["id"])
    assert TIME.match(body["created"]) and TIME.match(body["updated"])
    assert {k: v for k, v in body.items() if k not in ("id", "created", "updated")} == {
        "fully_qualified_name": "com.example.One", "name": "One", "type": "Application",
        "description": "the first", "author": "me", "supplier": {"Name": "ACME"},
        "enabled": False, "is_public": False, "owner_id": "p1", "tags": ["a", "b"],
        "categories": ["Web"], "class_definitions": ["com.example.One.Main"]}


def test_upload_runs_the_import_checks_and_lists_every_problem(api: Api) -> None:
    response = upload(api, api.token(), fixture_zip("bad-files"))
    assert response.status_code == 400
    message = response.json()["error"]["explanation"]
    assert message.startswith("Couldn't load package from file: Classes/Broken.yaml:3:1: "
                              "error[LAG-E0538]: invalid YAML")
    assert "manifest.yaml:4:3: error[LAG-E0531]: file 'Classes/Missing.yaml' of class " \
        "'com.example.Missing' does not exist" in message
    assert message.count("error[") == 7


def test_an_upload_that_is_no_zip_is_refused_without_the_server_s_paths(api: Api) -> None:
    response = upload(api, api.token(), b"not an archive")
    assert response.status_code == 400
    assert response.json() == fault(
        400, "Couldn't load package from file: the uploaded archive is not "
             "a zip archive: File is not a zip file")


def test_upload_of_a_package_whose_requirement_is_missing_is_refused(api: Api) -> None:
    response = upload(api, api.token(), fixture_zip("app"))
    assert response.status_code == 400
    assert response.json() == fault(
        400, "Couldn't load package from file: Classes/App.yaml:5:1: error[LAG-E0242]: class "
             "com.example.App: Extends names class com.example.lib.Base, which is not found")


def test_upload_resolves_requirements_from_the_catalog(api: Api) -> None:
    token = api.token()
    uploaded(api, token, fixture_zip("lib"))
    assert uploaded(api, token, fixture_zip("app"))["fully_qualified_name"] == "com.example.App"


def test_upload_of_the_same_name_and_version_answers_409(api: Api) -> None:
    uploaded(api, api.token(), package_zip("com.example.One"))
    response = upload(api, api.token("p2", "u2"), package_zip("com.example.One"))
    assert response.status_code == 409
    assert response.json() == fault(409, "Package with specified full name is already registered")


def test_upload_of_an_unknown_category_answers_400(api: Api) -> None:
    response = upload(api, api.token(), package_zip("com.example.One"), {"categories": ["Nope"]})
    assert response.status_code == 400
    assert response.json() == fault(400, "Category 'Nope' doesn't exist")


def test_only_an_admin_uploads_a_public_package(api: Api) -> None:
    response = upload(api, api.token(), package_zip("com.example.One"), {"is_public": True})
    assert response.status_code == 403
    assert response.json() == fault(403, "Access was denied to this resource.")
    body = uploaded(api, api.token("admin", "root", admin=True), package_zip("com.example.One"),
                    {"is_public": True})
    assert body["is_public"] is True and body["owner_id"] == "admin"


@pytest.mark.parametrize(("metadata", "message"), [
    ({"colour": "red"}, "Additional properties are not allowed ('colour' was unexpected)"),
    ({"is_public": "yes"}, "'yes' is not of type 'boolean'"),
    ({"tags": ["a", "a"]}, "['a', 'a'] has non-unique elements"),
])
def test_upload_metadata_is_checked_against_the_original_schema(
        api: Api, metadata: dict[str, t.Any], message: str) -> None:
    response = upload(api, api.token(), package_zip("com.example.One"), metadata)
    assert response.status_code == 400
    assert response.json() == fault(400, f"Package schema is not valid: {message}")


def test_upload_without_multipart_answers_400(api: Api) -> None:
    response = api.client.post("/v1/catalog/packages", json={"a": 1},
                               headers=api.headers(api.token()))
    assert response.status_code == 400
    assert response.json() == fault(400, "Content-Type must be 'multipart/form-data'")


def test_upload_without_a_file_answers_400(api: Api) -> None:
    response = api.client.post("/v1/catalog/packages", headers={"X-Auth-Token": api.token()},
                               data={"__metadata__": "{}"}, files={"x": ("e.zip", b"", "")})
    assert response.status_code == 400
    assert response.json() == fault(400, "Uploading file can't be empty")
    response = api.client.post("/v1/catalog/packages", headers={"X-Auth-Token": api.token()},
                               files={"__metadata__": (None, "{}")})
    assert response.json() == fault(400, "There is no file package with application description")


def test_upload_with_three_parts_answers_400(api: Api) -> None:
    response = api.client.post(
        "/v1/catalog/packages", headers={"X-Auth-Token": api.token()},
        data={"__metadata__": "{}", "other": "x"},
        files={"p": ("p.zip", package_zip("com.example.One"), "application/zip")})
    assert response.status_code == 400
    assert response.json()["error"]["explanation"] == (
        "'multipart/form-data' request body should contain 1 or 2 parts: json string and zip "
        "archive. Current body consists of 3 part(s)")


# -- visibility ------------------------------------------------------------------------


@pytest.fixture()
def tenants(api: Api) -> dict[str, str]:
    """p1's private One, p2's private Two, and a public Three of the admin's project."""
    ids = {}
    ids["one"] = uploaded(api, api.token("p1", "u1"), package_zip("com.example.One"))["id"]
    ids["two"] = uploaded(api, api.token("p2", "u2"), package_zip("com.example.Two"))["id"]
    ids["three"] = uploaded(api, api.token("admin", "root", admin=True),
                            package_zip("com.example.Three"), {"is_public": True})["id"]
    return ids


def test_a_project_lists_its_own_and_public_packages(api: Api, tenants: dict[str, str]) -> None:
    assert _names(_get(api, api.token("p1", "u1"), "")) == ["com.example.One",
                                                            "com.example.Three"]
    assert _names(_get(api, api.token("p2", "u2"), "", owned="True")) == ["com.example.Two"]


def test_an_admin_lists_every_package_unless_in_catalog_mode(
        api: Api, tenants: dict[str, str]) -> None:
    admin = api.token("admin", "root", admin=True)
    assert _names(_get(api, admin, "")) == [
        "com.example.One", "com.example.Three", "com.example.Two"]
    assert _names(_get(api, admin, "", catalog="True")) == ["com.example.Three"]


def test_another_projects_private_package_answers_403_without_content(
        api: Api, tenants: dict[str, str]) -> None:
    token = api.token("p2", "u2")
    one = tenants["one"]
    message = f"Package '{one}' is not public and not owned by tenant 'p2' "
    for path in ("", "/download", "/logo", "/supplier_logo", "/ui"):
        response = _get(api, token, f"/{one}{path}")
        assert response.status_code == 403
        assert response.json() == fault(403, message)
    assert _patch(api, token, one, [{"op": "replace", "path": "/name", "value": "x"}]
                  ).json() == fault(403, message)
    response = api.client.delete(f"/v1/catalog/packages/{one}", headers=api.headers(token))
    assert response.json() == fault(403, message)


def test_an_unknown_package_answers_404(api: Api) -> None:
    response = _get(api, api.token(), "/0123456789abcdef0123456789abcdef")
    assert response.status_code == 404
    assert response.json() == fault(404,
                                    "Package id '0123456789abcdef0123456789abcdef' not found")
    assert _get(api, api.token(), "/not-an-id").json() == fault(
        404, "Package id 'not-an-id' not found")


def test_a_public_package_is_shown_to_every_project(api: Api, tenants: dict[str, str]) -> None:
    response = _get(api, api.token("p2", "u2"), f"/{tenants['three']}")
    assert response.status_code == 200
    assert response.json()["fully_qualified_name"] == "com.example.Three"


def test_only_the_owner_deletes_a_public_package(api: Api, tenants: dict[str, str]) -> None:
    three = tenants["three"]
    response = api.client.delete(f"/v1/catalog/packages/{three}",
                                 headers=api.headers(api.token("p1", "u1")))
    assert response.status_code == 403
    assert response.json() == fault(403, "Package is not owned by the tenant 'p1'")
    response = api.client.delete(f"/v1/catalog/packages/{three}",
                                 headers=api.headers(api.token("admin", "root", admin=True)))
    assert (response.status_code, response.content) == (200, b"")
    assert _get(api, api.token(), f"/{three}").status_code == 404


# -- search, filters and paging ----------------------------------------------------------


@pytest.fixture()
def catalog(api: Api) -> str:
    token = api.token()
    add_category(api, "Databases")
    add_category(api, "Web")
    uploaded(api, token, package_zip("org.db.Store", name="Storage", description="keeps rows",
                                     tags=["sql"]), {"categories": ["Databases"]})
    uploaded(api, token, package_zip("org.web.Front", name="Front end", author="sql team",
                                     tags=["http"]), {"categories": ["Web"]})
    uploaded(api, token, package_zip("org.lib.Util", name="Util", kind="Library"),
             {"enabled": False})
    uploaded(api, token, package_zip("org.web.Proxy", name="Proxy", description="an sql proxy",
                                     tags=["http", "sql"]))
    return token


def test_disabled_packages_are_listed_only_when_asked(api: Api, catalog: str) -> None:
    assert _names(_get(api, catalog, "")) == ["org.web.Front", "org.web.Proxy", "org.db.Store"]
    assert "org.lib.Util" in _names(_get(api, catalog, "", include_disabled="True"))


@pytest.mark.parametrize(("params", "expected"), [
    ({"type": "library", "include_disabled": "True"}, ["org.lib.Util"]),
    ({"tag": "sql"}, ["org.web.Proxy", "org.db.Store"]),
    ({"tag": ["sql", "http"]}, ["org.web.Front", "org.web.Proxy", "org.db.Store"]),
    ({"tag": 'in:nothing,"http"'}, ["org.web.Front", "org.web.Proxy"]),
    ({"category": "Web"}, ["org.web.Front"]),
    ({"category": "in:Web,Databases"}, ["org.web.Front", "org.db.Store"]),
    ({"fqn": "org.db.Store"}, ["org.db.Store"]),
    ({"name": "Proxy"}, ["org.web.Proxy"]),
    ({"class_name": "org.web.Proxy.Main"}, ["org.web.Proxy"]),
    ({"unknown": "x"}, ["org.web.Front", "org.web.Proxy", "org.db.Store"]),
])
def test_search_filters(api: Api, catalog: str, params: dict[str, t.Any],
                        expected: list[str]) -> None:
    assert _names(_get(api, catalog, "", **params)) == expected


def test_search_ranks_a_name_match_before_a_description_or_tag_match(
        api: Api, catalog: str) -> None:
    # Storage: "sql" only in a tag (rank 4); Proxy: in the description (2);
    # Front end: only its author (6); the same rank sorts by name
    assert _names(_get(api, catalog, "", search="SQL")) == [
        "org.web.Proxy", "org.db.Store", "org.web.Front"]
    assert _names(_get(api, catalog, "", search="stor;front")) == [
        "org.web.Front", "org.db.Store"]


def test_filter_by_ids(api: Api, catalog: str) -> None:
    ids = {p["fully_qualified_name"]: p["id"] for p in _get(api, catalog, "").json()["packages"]}
    response = _get(api, catalog, "", id=f"in:{ids['org.db.Store']},{ids['org.web.Front']},bad")
    assert _names(response) == ["org.web.Front", "org.db.Store"]


def test_sorting_by_fqn_descending(api: Api, catalog: str) -> None:
    assert _names(_get(api, catalog, "", order_by="fqn", sort_dir="desc")) == [
        "org.web.Proxy", "org.web.Front", "org.db.Store"]


def test_paging_follows_next_marker_to_the_end(api: Api, catalog: str) -> None:
    first = _get(api, catalog, "", limit=2, order_by="fqn").json()
    assert [p["fully_qualified_name"] for p in first["packages"]] == [
        "org.db.Store", "org.web.Front"]
    assert first["next_marker"] == first["packages"][-1]["id"]
    second = _get(api, catalog, "", limit=2, order_by="fqn", marker=first["next_marker"]).json()
    assert second == {"packages": second["packages"]}   # no next_marker: the last page
    assert [p["fully_qualified_name"] for p in second["packages"]] == ["org.web.Proxy"]


def test_paging_a_search_keeps_its_ranking(api: Api, catalog: str) -> None:
    first = _get(api, catalog, "", search="sql", limit=1).json()
    second = _get(api, catalog, "", search="sql", limit=1, marker=first["next_marker"]).json()
    assert [first["packages"][0]["name"], second["packages"][0]["name"]] == ["Proxy", "Storage"]


@pytest.mark.parametrize(("params", "message"), [
    ({"limit": "ten"}, "Limit param must be an integer"),
    ({"limit": "0"}, "Limit param must be positive"),
    ({"sort_dir": "up"}, "Invalid sort direction: up"),
    ({"marker": "feedfeedfeedfeedfeedfeedfeedfeed"},
     "Package id 'feedfeedfeedfeedfeedfeedfeedfeed' not found"),
])
def test_bad_listing_parameters(api: Api, params: dict[str, str], message: str) -> None:
    response = _get(api, api.token(), "", **params)
    assert response.json() == fault(404 if "marker" in params else 400, message)


# -- update ----------------------------------------------------------------------------


@pytest.fixture()
def one(api: Api) -> str:
    add_category(api, "Web")
    add_category(api, "Databases")
    return t.cast(str, uploaded(api, api.token(), package_zip("com.example.One", tags=["a", "b"]),
                                {"categories": ["Web"]})["id"])


def test_patch_changes_fields_tags_and_categories(api: Api, one: str) -> None:
    response = _patch(api, api.token(), one, [
        {"op": "replace", "path": "/name", "value": "Renamed"},
        {"op": "replace", "path": "/description", "value": "new text"},
        {"op": "replace", "path": "/enabled", "value": False},
        {"op": "add", "path": "/tags", "value": ["c", "a"]},
        {"op": "remove", "path": "/tags", "value": ["b"]},
        {"op": "replace", "path": "/categories", "value": ["Databases"]},
    ])
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["name"], body["description"], body["enabled"], body["tags"],
            body["categories"]) == ("Renamed", "new text", False, ["a", "c"], ["Databases"])
    assert _get(api, api.token(), f"/{one}").json() == body


@pytest.mark.parametrize(("operations", "code", "message"), [
    ({"op": "replace"}, 400, "JSON-patch must be a list."),
    ([["replace"]], 400, "Operations must be JSON objects."),
    ([{"path": "/name", "value": "x"}], 400, "Unable to find 'op' in JSON Schema change"),
    ([{"op": "replace", "path": "name", "value": "x"}], 400,
     'Pointer `name` does not start with "/".'),
    ([{"op": "replace", "path": "/tags/0", "value": "x"}], 400, "Nested paths are not allowed"),
    ([{"op": "remove", "path": "/tags"}], 400, 'Operation "remove" requires a member named '
     '"value".'),
    ([{"op": "replace", "path": "/owner_id", "value": "p2"}], 403,
     "Attribute 'owner_id' is invalid"),
    ([{"op": "add", "path": "/name", "value": "x"}], 403,
     "Method 'add' is not allowed for a path with name 'name'. Allowed operations are: "
     "replace"),
    ([{"op": "replace", "path": "/enabled", "value": "no"}], 400,
     "'no' is not of type 'boolean'"),
    ([{"op": "remove", "path": "/tags", "value": ["zzz"]}], 404,
     "Value 'zzz' of property 'tags' does not exist."),
    ([{"op": "add", "path": "/categories", "value": ["Nope"]}], 400,
     "Category 'Nope' doesn't exist"),
    ([{"op": "replace", "path": "/name", "value": "n" * 81}], 400,
     "Package name should be 80 characters maximum"),
    ([{"op": "replace", "path": "/is_public", "value": True}], 403,
     "Access was denied to this resource."),
])
def test_patch_is_refused_as_the_original_refused_it(
        api: Api, one: str, operations: t.Any, code: int, message: str) -> None:
    response = _patch(api, api.token(), one, operations)
    assert response.status_code == code
    assert response.json() == fault(code, message)


def test_patch_needs_the_patch_content_type(api: Api, one: str) -> None:
    response = _patch(api, api.token(), one, [], content_type="application/json")
    assert response.json() == fault(
        400, "Content-Type must be 'application/murano-packages-json-patch'")


def test_another_project_cannot_patch_a_public_package(api: Api) -> None:
    admin = api.token("admin", "root", admin=True)
    public = uploaded(api, admin, package_zip("com.example.Pub"), {"is_public": True})["id"]
    response = _patch(api, api.token(), public, [{"op": "replace", "path": "/name",
                                                  "value": "mine"}])
    assert response.json() == fault(403, f"Package '{public}' is not owned by tenant 'p1'")
    response = _patch(api, admin, public, [{"op": "replace", "path": "/is_public",
                                            "value": False}])
    assert response.json()["is_public"] is False


# -- files -----------------------------------------------------------------------------


def test_download_logo_and_ui(api: Api) -> None:
    token = api.token()
    uploaded(api, token, fixture_zip("lib"))
    archive = fixture_zip("app")
    app = uploaded(api, token, archive)["id"]
    response = _get(api, token, f"/{app}/download")
    assert (response.status_code, response.headers["content-type"], response.content) == (
        200, "application/octet-stream", archive)
    response = _get(api, token, f"/{app}/logo")
    assert response.content == b"\x89PNG\r\n\x1a\nfake"
    response = _get(api, token, f"/{app}/ui")
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text.startswith("Version: 2.4\nApplication:\n")


def test_supplier_logo_and_missing_files_answer_200(api: Api) -> None:
    token = api.token()
    with_logo = uploaded(api, token, package_zip(
        "com.example.One", manifest={"Supplier": {"Name": "ACME", "Logo": "acme.png"}},
        files={"acme.png": b"acme-logo"}))["id"]
    assert _get(api, token, f"/{with_logo}/supplier_logo").content == b"acme-logo"
    bare = uploaded(api, token, package_zip("com.example.Two"))["id"]
    for path in ("/logo", "/supplier_logo", "/ui"):
        response = _get(api, token, f"/{bare}{path}")
        assert (response.status_code, response.content) == (200, b"")
