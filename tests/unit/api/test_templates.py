"""``/v1/templates``: environment templates, their applications, environments made
from them and clones, with the original's codes and messages."""

from __future__ import annotations

import typing as t

import pytest

from laguna.store.models import ConfigurationSession, EnvironmentRecord
from tests.unit.api.conftest import Api
from tests.unit.api.packages import fault

APP: dict[str, t.Any] = {
    "instance": {"flavor": "m1.medium", "image": "cloud-fedora-v3", "name": "vm1",
                 "?": {"type": "io.murano.resources.Instance", "id": "instance-1"}},
    "name": "telnet",
    "server": "instance-1",
    "?": {"type": "io.murano.apps.linux.Telnet", "id": "app-1",
          "_26411a1861294160833743e45d0eaad9": {"name": "Telnet"}},
}
OTHER_APP: dict[str, t.Any] = {"name": "other", "?": {"type": "t.Other", "id": "app-2"}}


class Caller:
    """One project's user talking to the API."""

    def __init__(self, api: Api, project: str = "p1", user: str = "u1",
                 admin: bool = False) -> None:
        self.api = api
        self.project = project
        self.user = user
        self.headers = api.headers(api.token(project, user, admin))

    def get(self, path: str, **params: t.Any) -> t.Any:
        return self.api.client.get(f"/v1{path}", headers=self.headers, params=params)

    def post(self, path: str, body: t.Any = None) -> t.Any:
        return self.api.client.post(f"/v1{path}", headers=self.headers, json=body)

    def put(self, path: str, body: t.Any = None) -> t.Any:
        return self.api.client.put(f"/v1{path}", headers=self.headers, json=body)

    def delete(self, path: str) -> t.Any:
        return self.api.client.delete(f"/v1{path}", headers=self.headers)

    def template(self, name: str = "tmpl", **more: t.Any) -> dict[str, t.Any]:
        response = self.post("/templates", {"name": name, **more})
        assert response.status_code == 200, response.text
        return t.cast(dict[str, t.Any], response.json())


@pytest.fixture()
def alice(api: Api) -> Caller:
    return Caller(api, "p1", "alice")


@pytest.fixture()
def bob(api: Api) -> Caller:
    return Caller(api, "p2", "bob")


# -- create -------------------------------------------------------------------------------
def test_create_answers_the_template(alice: Caller) -> None:
    created = alice.template("web")
    assert set(created) == {"id", "name", "tenant_id", "is_public", "version",
                            "description_text", "created", "updated"}
    assert (created["name"], created["tenant_id"], created["is_public"],
            created["version"]) == ("web", alice.project, False, 0)
    assert len(created["id"]) == 32


def test_description_text_is_kept_and_shown(alice: Caller) -> None:
    created = alice.template("web", description_text="two web servers")
    assert created["description_text"] == "two web servers"
    assert alice.get(f"/templates/{created['id']}").json()["description_text"] == (
        "two web servers")
    updated = alice.put(f"/templates/{created['id']}",
                        {"name": "web2", "description_text": "three"}).json()
    assert (updated["name"], updated["description_text"]) == ("web2", "three")
    alice.put(f"/templates/{created['id']}", {"name": "web3"})
    assert [(tm["name"], tm["description_text"]) for tm in alice.get("/templates").json()[
        "templates"]] == [("web3", "three")]
    assert alice.template("plain")["description_text"] == ""


def test_create_with_applications_answers_them(alice: Caller) -> None:
    created = alice.template("web", services=[APP], is_public=True)
    assert created["services"] == [APP]
    assert created["is_public"] is True


@pytest.mark.parametrize("body", [{}, {"name": "  "}, {"name": 5}, ["x"]])
def test_create_without_a_name_is_400(alice: Caller, body: t.Any) -> None:
    response = alice.post("/templates", body)
    assert response.status_code == 400
    assert response.json() == fault(400, "Please, specify a name of the environment template.")


def test_create_with_a_long_name_is_400(alice: Caller) -> None:
    response = alice.post("/templates", {"name": "x" * 256})
    assert response.status_code == 400
    assert response.json()["error"]["explanation"] == (
        "Environment template name should be 255 characters maximum")


def test_create_with_a_taken_name_is_409(alice: Caller, bob: Caller) -> None:
    alice.template("web")
    response = alice.post("/templates", {"name": "web"})
    assert response.status_code == 409
    assert response.json() == fault(409, "Env Template with specified name already exists")
    bob.template("web")     # names are per project


def test_create_without_a_token_is_401(api: Api) -> None:
    response = api.client.post("/v1/templates", json={"name": "x"})
    assert response.status_code == 401


# -- list ---------------------------------------------------------------------------------
def test_list_shows_own_and_public_templates(alice: Caller, bob: Caller) -> None:
    mine = alice.template("mine")
    shared = bob.template("shared", is_public=True)
    bob.template("hidden")
    listed = alice.get("/templates").json()["templates"]
    assert [item["id"] for item in listed] == [mine["id"], shared["id"]]


@pytest.mark.parametrize("value, expected", [("True", ["a-public", "b-public"]),
                                             ("true", ["a-public", "b-public"]),
                                             ("False", ["a-private"]),
                                             ("no", ["a-private"])])
def test_list_filters_on_is_public(alice: Caller, bob: Caller, value: str,
                                   expected: list[str]) -> None:
    alice.template("a-public", is_public=True)
    alice.template("a-private")
    bob.template("b-public", is_public=True)
    bob.template("b-private")
    listed = alice.get("/templates", is_public=value).json()["templates"]
    assert [item["name"] for item in listed] == expected


# -- show, update, delete ----------------------------------------------------------------
def test_show_answers_the_applications(alice: Caller) -> None:
    created = alice.template("web", services=[APP])
    shown = alice.get(f"/templates/{created['id']}").json()
    assert shown == {**created, "services": [APP]}


def test_show_of_a_template_without_applications(alice: Caller) -> None:
    created = alice.template("web")
    assert alice.get(f"/templates/{created['id']}").json()["services"] == []


def test_show_of_an_unknown_template_is_404(alice: Caller) -> None:
    response = alice.get("/templates/nothing")
    assert response.status_code == 404
    assert response.json() == fault(404, "EnvTemplate <TempId nothing> is not found")


def test_another_projects_private_template_is_403(alice: Caller, bob: Caller) -> None:
    hidden = bob.template("hidden", services=[APP])
    for response in (alice.get(f"/templates/{hidden['id']}"),
                     alice.put(f"/templates/{hidden['id']}", {"name": "x"}),
                     alice.delete(f"/templates/{hidden['id']}"),
                     alice.post(f"/templates/{hidden['id']}/create-environment",
                                {"name": "env"})):
        assert response.status_code == 403
        assert response.json() == fault(403, "User has no access to these resources.")


def test_another_projects_public_template_is_readable_not_writable(
        alice: Caller, bob: Caller) -> None:
    shared = bob.template("shared", is_public=True, services=[APP])
    assert alice.get(f"/templates/{shared['id']}").json()["services"] == [APP]
    assert alice.put(f"/templates/{shared['id']}", {"name": "mine"}).status_code == 403
    assert alice.delete(f"/templates/{shared['id']}").status_code == 403
    assert bob.get(f"/templates/{shared['id']}").json()["name"] == "shared"


def test_an_admin_sees_any_template(api: Api, bob: Caller) -> None:
    hidden = bob.template("hidden")
    admin = Caller(api, "p3", "root", admin=True)
    assert admin.get(f"/templates/{hidden['id']}").status_code == 200


def test_update_renames_and_publishes(alice: Caller) -> None:
    created = alice.template("web")
    response = alice.put(f"/templates/{created['id']}", {"name": "web2", "is_public": True})
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["is_public"]) == ("web2", True)
    assert alice.get(f"/templates/{created['id']}").json()["name"] == "web2"


@pytest.mark.parametrize("body", [{}, {"name": " "}, None, {"is_public": True}])
def test_update_without_a_name_is_400(alice: Caller, body: t.Any) -> None:
    created = alice.template("web")
    response = alice.put(f"/templates/{created['id']}", body)
    assert response.status_code == 400
    assert response.json() == fault(400, "EnvTemplate body is incorrect")


def test_update_to_a_taken_name_is_409_and_changes_nothing(alice: Caller) -> None:
    alice.template("one")
    two = alice.template("two")
    response = alice.put(f"/templates/{two['id']}", {"name": "one", "is_public": True})
    assert response.status_code == 409
    shown = alice.get(f"/templates/{two['id']}").json()
    assert (shown["name"], shown["is_public"]) == ("two", False)


def test_update_of_an_unknown_template_is_404(alice: Caller) -> None:
    response = alice.put("/templates/nothing", {"name": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["explanation"] == "EnvTemplate <TempId nothing> is not found"


def test_delete_answers_200_without_a_body(alice: Caller) -> None:
    created = alice.template("web")
    response = alice.delete(f"/templates/{created['id']}")
    assert (response.status_code, response.content) == (200, b"")
    assert alice.get(f"/templates/{created['id']}").status_code == 404
    assert alice.get("/templates").json() == {"templates": []}


# -- applications -------------------------------------------------------------------------
def test_add_list_show_and_remove_applications(alice: Caller) -> None:
    created = alice.template("web")
    base = f"/templates/{created['id']}/services"
    assert alice.post(base, APP).json() == APP
    assert alice.post(base, [OTHER_APP]).json() == [OTHER_APP]
    assert alice.get(base).json() == [APP, OTHER_APP]
    assert alice.get(f"{base}/app-1").json() == APP
    assert alice.get(f"{base}/app-1/instance/name").json() == "vm1"
    removed = alice.delete(f"{base}/app-1")
    assert removed.status_code == 200
    assert removed.json()["services"] == [OTHER_APP]
    assert alice.get(base).json() == [OTHER_APP]


def test_update_an_application_by_id(alice: Caller) -> None:
    created = alice.template("web", services=[APP, OTHER_APP])
    base = f"/templates/{created['id']}/services"
    changed = {**OTHER_APP, "name": "renamed"}
    assert alice.put(f"{base}/app-2", changed).json() == changed
    assert alice.get(base).json() == [APP, changed]
    assert alice.put(f"{base}/app-1/name", "telnet2").status_code == 200
    assert alice.get(f"{base}/app-1/name").json() == "telnet2"


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_an_unknown_application_is_404(alice: Caller, method: str) -> None:
    created = alice.template("web", services=[APP])
    path = f"/templates/{created['id']}/services/nothing"
    response = alice.put(path, {}) if method == "put" else getattr(alice, method)(path)
    assert response.status_code == 404
    assert response.json() == fault(404, f"The template does not exist {created['id']}")


def test_adding_nothing_is_400(alice: Caller) -> None:
    created = alice.template("web")
    response = alice.post(f"/templates/{created['id']}/services")
    assert response.status_code == 400
    assert response.json()["error"]["explanation"] == (
        "Request body is empty: please, provide application object model")


def test_applications_of_an_unknown_template_are_404(alice: Caller) -> None:
    response = alice.get("/templates/nothing/services")
    assert response.status_code == 404
    assert response.json() == fault(404, "Environment Template with id nothing not found")


def test_applications_of_another_projects_template_are_403(alice: Caller,
                                                           bob: Caller) -> None:
    # even of a public one, as the original's application routes answered
    shared = bob.template("shared", is_public=True, services=[APP])
    base = f"/templates/{shared['id']}/services"
    for response in (alice.get(base), alice.get(f"{base}/app-1"), alice.post(base, APP),
                     alice.put(f"{base}/app-1", APP), alice.delete(f"{base}/app-1")):
        assert response.status_code == 403
        assert response.json() == fault(
            403, "User is not authorized to access this tenant resources")
    assert bob.get(base).json() == [APP]


# -- create-environment -------------------------------------------------------------------
def test_create_environment_opens_a_session_with_the_applications(api: Api,
                                                                 alice: Caller) -> None:
    created = alice.template("web", services=[APP])
    response = alice.post(f"/templates/{created['id']}/create-environment", {"name": "env1"})
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == {"session_id", "environment_id"}
    with api.database.session() as session:
        environment = session.get(EnvironmentRecord, answer["environment_id"])
        configuration = session.get(ConfigurationSession, answer["session_id"])
        assert environment is not None and configuration is not None
        assert (environment.name, environment.project_id) == ("env1", alice.project)
        assert (configuration.environment_id, configuration.user_id, configuration.state,
                configuration.version) == (environment.id, "alice", "opened", 0)
        services = configuration.description["Objects"]["services"]
        # the environment itself keeps no applications until the session deploys
        assert "services" not in (environment.description or {})["Objects"]
    assert configuration.description["Objects"]["name"] == "env1"
    [app] = services
    # fresh object ids, the reference between the two objects following along
    assert app["?"]["id"] != "app-1" and app["instance"]["?"]["id"] != "instance-1"
    assert app["server"] == app["instance"]["?"]["id"]
    assert {**app, "?": {**app["?"], "id": "app-1"}, "server": "instance-1",
            "instance": {**app["instance"], "?": APP["instance"]["?"]}} == APP


def test_two_environments_from_one_template_share_no_object_id(api: Api,
                                                               alice: Caller) -> None:
    created = alice.template("web", services=[APP])
    ids = []
    for name in ("env1", "env2"):
        answer = alice.post(f"/templates/{created['id']}/create-environment",
                            {"name": name}).json()
        with api.database.session() as session:
            configuration = session.get(ConfigurationSession, answer["session_id"])
            assert configuration is not None
            ids.append(configuration.description["Objects"]["services"][0]["?"]["id"])
    assert ids[0] != ids[1]


def test_create_environment_from_a_public_template_of_another_project(
        api: Api, alice: Caller, bob: Caller) -> None:
    shared = bob.template("shared", is_public=True, services=[APP])
    answer = alice.post(f"/templates/{shared['id']}/create-environment",
                        {"name": "env1"}).json()
    with api.database.session() as session:
        environment = session.get(EnvironmentRecord, answer["environment_id"])
        assert environment is not None and environment.project_id == alice.project


def test_create_environment_with_a_taken_name_is_409(alice: Caller) -> None:
    created = alice.template("web")
    path = f"/templates/{created['id']}/create-environment"
    assert alice.post(path, {"name": "env1"}).status_code == 200
    response = alice.post(path, {"name": "env1"})
    assert response.status_code == 409
    assert response.json() == fault(409, "Environment with specified name already exists")


def test_create_environment_without_a_name_is_400(alice: Caller) -> None:
    created = alice.template("web")
    response = alice.post(f"/templates/{created['id']}/create-environment", {})
    assert response.status_code == 400
    assert response.json()["error"]["explanation"] == (
        "Please, specify a name of the environment template.")


def test_create_environment_of_an_unknown_template_is_404(alice: Caller) -> None:
    response = alice.post("/templates/nothing/create-environment", {"name": "env"})
    assert response.status_code == 404
    assert response.json()["error"]["explanation"] == "EnvTemplate <TempId nothing> is not found"


# -- clone --------------------------------------------------------------------------------
def test_clone_copies_a_public_template_into_the_callers_project(alice: Caller,
                                                                 bob: Caller) -> None:
    shared = bob.template("shared", is_public=True, services=[APP])
    response = alice.post(f"/templates/{shared['id']}/clone", {"name": "copy"})
    assert response.status_code == 200
    clone = response.json()
    assert (clone["name"], clone["tenant_id"], clone["is_public"], clone["services"]) == (
        "copy", alice.project, False, [APP])
    assert clone["id"] != shared["id"]
    assert alice.get(f"/templates/{clone['id']}/services").json() == [APP]


def test_clone_may_be_public(alice: Caller, bob: Caller) -> None:
    shared = bob.template("shared", is_public=True)
    clone = alice.post(f"/templates/{shared['id']}/clone",
                       {"name": "copy", "is_public": True}).json()
    assert clone["is_public"] is True


def test_clone_of_a_private_template_is_403(alice: Caller, bob: Caller) -> None:
    for template in (bob.template("hidden"), alice.template("own")):
        response = alice.post(f"/templates/{template['id']}/clone", {"name": "copy"})
        assert response.status_code == 403
        assert response.json() == fault(403, "User has no access to these resources.")


def test_clone_to_a_taken_name_is_409(alice: Caller, bob: Caller) -> None:
    shared = bob.template("shared", is_public=True)
    alice.template("copy")
    response = alice.post(f"/templates/{shared['id']}/clone", {"name": "copy"})
    assert response.status_code == 409
    assert response.json() == fault(409, "Env template with specified name already exists")


def test_clone_without_a_name_is_400(alice: Caller, bob: Caller) -> None:
    shared = bob.template("shared", is_public=True)
    response = alice.post(f"/templates/{shared['id']}/clone", {"name": ""})
    assert response.status_code == 400


def test_clone_of_an_unknown_template_is_404(alice: Caller) -> None:
    response = alice.post("/templates/nothing/clone", {"name": "copy"})
    assert response.status_code == 404
    assert response.json()["error"]["explanation"] == "EnvTemplate <TempId nothing> is not found"


def test_environment_shown_with_the_session_of_create_environment_has_the_applications(
        alice: Caller) -> None:
    created = alice.template("web", services=[APP, OTHER_APP])
    answer = alice.post(f"/templates/{created['id']}/create-environment",
                        {"name": "env1"}).json()
    path = f"/v1/environments/{answer['environment_id']}"
    headers = {**alice.headers, "X-Configuration-Session": answer["session_id"]}
    response = alice.api.client.get(path, headers=headers)
    assert response.status_code == 200
    shown = response.json()
    assert (shown["name"], shown["status"]) == ("env1", "pending")
    # the session's copies: the template's applications with fresh ids, in order
    assert [s["name"] for s in shown["services"]] == ["telnet", "other"]
    assert [s["?"]["type"] for s in shown["services"]] == [
        "io.murano.apps.linux.Telnet", "t.Other"]
    assert all(s["?"]["id"] not in ("app-1", "app-2") for s in shown["services"])
    # without the session the environment has none until the session deploys
    assert alice.get(f"/environments/{answer['environment_id']}").json()["services"] == []
