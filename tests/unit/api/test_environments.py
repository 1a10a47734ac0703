"""Environments, sessions, services, deployments and actions through the API,
with the original's codes and messages."""

from __future__ import annotations

import concurrent.futures
import threading
import typing as t

import pytest

from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends import builtin_frontends
from laguna.store.models import ConfigurationSession
from tests.unit.api.conftest import EXAMPLES, Api, RecordingResources
from tests.unit.api.packages import fault

APP = {"?": {"id": "app1", "type": "org.laguna.examples.WebServer"}, "name": "web",
       "instance": {"?": {"id": "vm1", "type": "io.murano.resources.LinuxMuranoInstance"},
                    "name": "w1", "image": "ubuntu", "flavor": "m1.small"}}


def create(api: Api, token: str, name: str = "shop") -> dict[str, t.Any]:
    response = api.client.post("/v1/environments", json={"name": name},
                               headers=api.headers(token))
    assert response.status_code == 200, response.text
    return t.cast(dict[str, t.Any], response.json())


def configure(api: Api, token: str, env_id: str) -> str:
    response = api.client.post(f"/v1/environments/{env_id}/configure",
                               headers=api.headers(token))
    assert response.status_code == 200, response.text
    return t.cast(str, response.json()["id"])


def with_application(api: Api, token: str) -> tuple[str, str]:
    """A new environment and an open session holding :data:`APP`."""
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                    headers=api.headers(token, session_id))
    return env_id, session_id


def deployed(api: Api, token: str) -> tuple[str, str]:
    env_id, session_id = with_application(api, token)
    response = api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                               headers=api.headers(token))
    assert response.status_code == 200
    assert api.run_tasks() == 1
    return env_id, session_id


# -- identity -------------------------------------------------------------------------
def test_a_request_without_a_token_is_401(api: Api) -> None:
    response = api.client.get("/v1/environments")
    assert response.status_code == 401
    assert response.json() == fault(401, "Authentication required: send a token in "
                                         "X-Auth-Token")


def test_an_unknown_token_is_401(api: Api) -> None:
    response = api.client.get("/v1/environments", headers=api.headers("nope"))
    assert response.status_code == 401
    assert response.json() == fault(401, "The token in X-Auth-Token is not valid or has expired")


# -- environments -----------------------------------------------------------------------
def test_create_list_show_rename(api: Api) -> None:
    token = api.token()
    made = create(api, token)
    assert set(made) == {"id", "name", "created", "updated", "tenant_id", "version",
                         "description_text"}
    assert (made["name"], made["tenant_id"], made["version"]) == ("shop", "p1", 0)
    listed = api.client.get("/v1/environments", headers=api.headers(token)).json()
    assert [(e["id"], e["status"]) for e in listed["environments"]] == [(made["id"], "ready")]
    shown = api.client.get(f"/v1/environments/{made['id']}", headers=api.headers(token)).json()
    assert shown["services"] == [] and shown["acquired_by"] is None
    renamed = api.client.put(f"/v1/environments/{made['id']}", json={"name": "shop2"},
                             headers=api.headers(token))
    assert renamed.status_code == 200 and renamed.json()["name"] == "shop2"


def test_description_text_is_kept_and_shown(api: Api) -> None:
    """Murano's ``description_text``: set by create (and kept in the model, as
    the rest of the body), changed by a rename's body, shown by list and show."""
    token = api.token()
    made = api.client.post("/v1/environments", json={"name": "shop", "description_text":
                                                     "the shop's servers"},
                           headers=api.headers(token)).json()
    assert made["description_text"] == "the shop's servers"
    shown = api.client.get(f"/v1/environments/{made['id']}", headers=api.headers(token))
    assert shown.json()["description_text"] == "the shop's servers"
    renamed = api.client.put(f"/v1/environments/{made['id']}",
                             json={"name": "shop2", "description_text": "moved"},
                             headers=api.headers(token)).json()
    assert (renamed["name"], renamed["description_text"]) == ("shop2", "moved")
    # a rename without it leaves it
    api.client.put(f"/v1/environments/{made['id']}", json={"name": "shop3"},
                   headers=api.headers(token))
    listed = api.client.get("/v1/environments", headers=api.headers(token)).json()
    assert [(e["name"], e["description_text"]) for e in listed["environments"]] == [
        ("shop3", "moved")]
    assert create(api, token, "plain")["description_text"] == ""
    bad = api.client.post("/v1/environments", json={"name": "x", "description_text": 5},
                          headers=api.headers(token))
    assert (bad.status_code, bad.json()) == (400, fault(400, "description_text must be text"))


def test_create_needs_a_name_with_a_non_blank_symbol(api: Api) -> None:
    token = api.token()
    for body in ({"name": "   "}, {}, None):
        response = api.client.post("/v1/environments", json=body, headers=api.headers(token))
        assert response.status_code == 400
        assert response.json() == fault(400, "Please, specify a name of the environment "
                                             "to create")
    response = api.client.post("/v1/environments", json={"name": "x" * 256},
                               headers=api.headers(token))
    assert response.json() == fault(400, "Environment name should be 255 characters maximum")


def test_duplicate_names_conflict_within_a_project_only(api: Api) -> None:
    create(api, api.token())
    response = api.client.post("/v1/environments", json={"name": "shop"},
                               headers=api.headers(api.token()))
    assert response.status_code == 409
    assert response.json() == fault(409, "Environment with specified name already exists")
    create(api, api.token(project="p2"))    # another project may use the name
    other = create(api, api.token(), "other")
    response = api.client.put(f"/v1/environments/{other['id']}", json={"name": "shop"},
                              headers=api.headers(api.token()))
    assert response.status_code == 409
    response = api.client.put(f"/v1/environments/{other['id']}", json={"name": " "},
                              headers=api.headers(api.token()))
    assert response.json() == fault(400, "Environment name must contain at least one "
                                         "non-white space symbol")


def test_another_projects_environment_is_403_and_a_missing_one_404(api: Api) -> None:
    theirs = create(api, api.token(project="p2", user="u2"))
    mine = api.token()
    for method, path in (("GET", ""), ("PUT", ""), ("DELETE", ""), ("POST", "/configure"),
                         ("GET", "/services"), ("GET", "/deployments")):
        response = api.client.request(method, f"/v1/environments/{theirs['id']}{path}",
                                      json={"name": "x"}, headers=api.headers(mine))
        assert response.status_code == 403, (method, path)
        assert response.json() == fault(403, "User is not authorized to access these tenant "
                                             "resources")
    listed = api.client.get("/v1/environments", headers=api.headers(mine)).json()
    assert listed == {"environments": []}
    response = api.client.get("/v1/environments/nothing", headers=api.headers(mine))
    assert response.json() == fault(404, "Environment with id nothing not found")


def test_all_tenants_needs_an_admin(api: Api) -> None:
    create(api, api.token(project="p2", user="u2"))
    create(api, api.token(), "mine")
    response = api.client.get("/v1/environments?all_tenants=True",
                              headers=api.headers(api.token()))
    assert response.status_code == 403
    admin = api.token(project="p1", user="root", admin=True)
    listed = api.client.get("/v1/environments?all_tenants=True",
                            headers=api.headers(admin)).json()["environments"]
    assert sorted(e["tenant_id"] for e in listed) == ["p1", "p2"]
    scoped = api.client.get("/v1/environments?all_tenants=False",
                            headers=api.headers(admin)).json()["environments"]
    assert [e["name"] for e in scoped] == ["mine"]


def test_abandon_forgets_the_environment_at_once(api: Api) -> None:
    token = api.token()
    env = create(api, token)
    response = api.client.delete(f"/v1/environments/{env['id']}?abandon=True",
                                 headers=api.headers(token))
    assert (response.status_code, response.json()) == (200, None)
    assert api.client.get(f"/v1/environments/{env['id']}",
                          headers=api.headers(token)).status_code == 404


# -- sessions and services --------------------------------------------------------------
def test_services_are_edited_in_a_session_and_traversed_by_path(api: Api) -> None:
    token = api.token()
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    added = api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                            headers=api.headers(token, session_id))
    assert (added.status_code, added.json()) == (200, APP)
    # outside the session nothing changed; inside it the application is there
    assert api.client.get(f"/v1/environments/{env_id}/services",
                          headers=api.headers(token)).json() == []
    in_session = api.client.get(f"/v1/environments/{env_id}/services",
                                headers=api.headers(token, session_id)).json()
    assert [s["?"]["status"] for s in in_session] == ["pending"]
    name = api.client.get(f"/v1/environments/{env_id}/services/app1/name",
                          headers=api.headers(token, session_id))
    assert name.json() == "web"
    flavor = api.client.get(f"/v1/environments/{env_id}/services/app1/instance/flavor",
                            headers=api.headers(token, session_id))
    assert flavor.json() == "m1.small"
    put = api.client.put(f"/v1/environments/{env_id}/services/app1/name", json="shop-web",
                         headers=api.headers(token, session_id))
    assert put.status_code == 200
    assert api.client.get(f"/v1/environments/{env_id}/services/app1/name",
                          headers=api.headers(token, session_id)).json() == "shop-web"
    missing = api.client.get(f"/v1/environments/{env_id}/services/nothing",
                             headers=api.headers(token, session_id))
    assert missing.status_code == 404
    removed = api.client.delete(f"/v1/environments/{env_id}/services/app1",
                                headers=api.headers(token, session_id))
    assert removed.status_code == 200
    assert api.client.get(f"/v1/environments/{env_id}/services",
                          headers=api.headers(token, session_id)).json() == []


def test_changing_services_needs_the_session_header_and_a_body(api: Api) -> None:
    token = api.token()
    env_id = create(api, token)["id"]
    response = api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                               headers=api.headers(token))
    assert response.status_code == 400
    assert response.json() == fault(400, "X-Configuration-Session header which indicates "
                                          "to the session is missed")
    session_id = configure(api, token, env_id)
    response = api.client.post(f"/v1/environments/{env_id}/services",
                               headers=api.headers(token, session_id))
    assert response.status_code == 400
    response = api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                               headers=api.headers(token, "nosuch"))
    assert response.json() == fault(404, "Session <SessionId nosuch> is not found")


def test_a_session_is_its_users_and_answers_401_to_another(api: Api) -> None:
    token = api.token()
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    shown = api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                           headers=api.headers(token)).json()
    assert set(shown) == {"id", "environment_id", "created", "updated", "user_id",
                          "version", "state"}
    assert (shown["state"], shown["user_id"], shown["version"]) == ("opened", "u1", 0)
    other = api.token(user="u9")
    response = api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                              headers=api.headers(other))
    assert response.json() == fault(401, f"User <UserId u9> is not authorized to access "
                                         f"session <SessionId {session_id}>.")
    deleted = api.client.delete(f"/v1/environments/{env_id}/sessions/{session_id}",
                                headers=api.headers(token))
    assert (deleted.status_code, deleted.json()) == (200, None)
    assert api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                          headers=api.headers(token)).status_code == 404


def _not_yours(session_id: str) -> dict[str, t.Any]:
    return fault(401, f"User <UserId u9> is not authorized to access session "
                      f"<SessionId {session_id}>.")


@pytest.mark.parametrize("method, path, with_header", [
    # the seed's table of each session verb: 401 "User is not authorized to access
    # this session" (murano-api-v1.txt: Deploy session, Get session details,
    # Delete session, POST applications)
    ("POST", "/sessions/{sid}/deploy", False),
    ("GET", "/sessions/{sid}", False),
    ("DELETE", "/sessions/{sid}", False),
    ("POST", "/services", True),
    ("PUT", "/services/app1/name", True),
    ("DELETE", "/services/app1", True),
])
def test_another_user_of_the_project_gets_401_from_every_session_verb(
        api: Api, method: str, path: str, with_header: bool) -> None:
    token = api.token()
    env_id, session_id = with_application(api, token)
    other = api.token(user="u9")    # the same project, another user
    response = api.client.request(
        method, f"/v1/environments/{env_id}" + path.format(sid=session_id),
        json=APP if method in ("POST", "PUT") and with_header else None,
        headers=api.headers(other, session_id if with_header else None))
    assert (response.status_code, response.json()) == (401, _not_yours(session_id))
    # the session is as its user left it: opened, its application there, no task queued
    shown = api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                           headers=api.headers(token)).json()
    assert shown["state"] == "opened"
    services = api.client.get(f"/v1/environments/{env_id}/services",
                              headers=api.headers(token, session_id)).json()
    assert [(s["?"]["id"], s["name"]) for s in services] == [("app1", "web")]
    assert api.run_tasks() == 0


# -- deploying ------------------------------------------------------------------------------
def test_a_deployed_session_moves_opened_deploying_deployed(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                    headers=api.headers(token, session_id))
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    url = f"/v1/environments/{env_id}/sessions/{session_id}"
    assert api.client.get(url, headers=api.headers(token)).json()["state"] == "deploying"
    environment = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token))
    assert environment.json()["status"] == "deploying"
    assert environment.json()["acquired_by"] == session_id
    # while it deploys: no new session, the session cannot be deleted or deployed again
    assert api.client.post(f"/v1/environments/{env_id}/configure",
                           headers=api.headers(token)).status_code == 403
    assert api.client.delete(url, headers=api.headers(token)).json() == fault(
        403, f"Session <SessionId: {session_id}> is in deploying state and could not be "
             "deleted")
    assert api.client.post(f"{url}/deploy", headers=api.headers(token)).json() == fault(
        403, f"Session <SessionId {session_id}> is already deployed or deployment is in "
             "progress")
    assert api.run_tasks() == 1
    assert api.client.get(url, headers=api.headers(token)).json()["state"] == "deployed"
    shown = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token)).json()
    assert (shown["status"], shown["version"]) == ("ready", 1)
    [service] = shown["services"]
    assert service["url"] == "http://192.0.2.1:8080/"
    assert service["?"]["_actions"] == {"app1_setMessage": {
        "enabled": True, "name": "setMessage", "title": "setMessage"}}


def test_deploying_one_session_invalidates_the_others(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    first = configure(api, token, env_id)
    second = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                    headers=api.headers(token, first))
    assert api.client.post(f"/v1/environments/{env_id}/sessions/{first}/deploy",
                           headers=api.headers(token)).status_code == 200
    invalid = fault(403, f"Session <SessionId {second}> is invalid: environment has been "
                         "updated or updating right now with other session")
    response = api.client.post(f"/v1/environments/{env_id}/sessions/{second}/deploy",
                               headers=api.headers(token))
    assert response.json() == invalid
    api.run_tasks()
    # deployed since it was opened: still invalid
    response = api.client.post(f"/v1/environments/{env_id}/sessions/{second}/deploy",
                               headers=api.headers(token))
    assert response.json() == invalid


def test_sessions_deployed_at_the_same_moment_admit_exactly_one(api: Api) -> None:
    # eight sessions of one environment, each deployed from its own thread at once
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    sessions = [configure(api, token, env_id) for _ in range(8)]
    start = threading.Barrier(len(sessions))

    def deploy(session_id: str) -> int:
        start.wait(timeout=30)
        return api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                               headers=api.headers(token)).status_code

    with concurrent.futures.ThreadPoolExecutor(len(sessions)) as pool:
        codes = list(pool.map(deploy, sessions))
    assert sorted(codes) == [200] + [403] * 7
    assert api.run_tasks() == 1
    with api.database.session() as session:
        states = [session.get(ConfigurationSession, session_id).state  # type: ignore[union-attr]
                  for session_id in sessions]
    assert sorted(states) == ["deployed"] + ["opened"] * 7


def test_deployments_and_their_reports(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    listed = api.client.get(f"/v1/environments/{env_id}/deployments",
                            headers=api.headers(token)).json()["deployments"]
    [deployment] = listed
    assert deployment["state"] == "success" and deployment["finished"] is not None
    assert deployment["description"]["services"][0]["?"]["id"] == "app1"
    assert deployment["action"] == {"object_id": env_id, "method": "deploy", "args": {}}
    reports = api.client.get(f"/v1/environments/{env_id}/deployments/{deployment['id']}",
                             headers=api.headers(token)).json()["reports"]
    assert [(r["level"], r["text"], r["entity_id"]) for r in reports] == [
        ("info", "Creating the web server instance", "app1"),
        ("info", "Starting the web server", "app1"),
        ("info", "Web server is available at http://192.0.2.1:8080/", "app1"),
        ("info", "the deployment finished", None)]
    only = api.client.get(f"/v1/environments/{env_id}/deployments/{deployment['id']}"
                          "?service_id=nothing", headers=api.headers(token)).json()
    assert only == {"reports": []}
    everywhere = api.client.get("/v1/deployments", headers=api.headers(token)).json()
    assert [d["id"] for d in everywhere["deployments"]] == [deployment["id"]]
    assert api.client.get("/v1/deployments", headers=api.headers(
        api.token(project="p2"))).json() == {"deployments": []}


def test_a_failed_deployment_fails_its_session_and_environment(api: Api) -> None:
    token = api.token()
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services",
                    json={"?": {"id": "x", "type": "no.such.App"}},
                    headers=api.headers(token, session_id))
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    api.run_tasks()
    session = api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                             headers=api.headers(token)).json()
    assert session["state"] == "deploy failure"
    shown = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token)).json()
    assert shown["status"] == "deploy failure"
    # recoverable: a new session opens and deploys again
    assert api.client.post(f"/v1/environments/{env_id}/configure",
                           headers=api.headers(token)).status_code == 200


def test_an_action_runs_as_a_task_with_a_result(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    response = api.client.post(f"/v1/environments/{env_id}/actions/app1_setMessage",
                               json={"message": "hi"}, headers=api.headers(token))
    task_id = response.json()["task_id"]
    assert api.client.get(f"/v1/environments/{env_id}/actions/{task_id}",
                          headers=api.headers(token)).json() == {}
    assert api.run_tasks() == 1
    result = api.client.get(f"/v1/environments/{env_id}/actions/{task_id}",
                            headers=api.headers(token)).json()
    assert result == {"isException": False, "result": None}
    name = api.client.get(f"/v1/environments/{env_id}/services/app1/message",
                          headers=api.headers(token))
    assert name.json() == "hi"
    missing = api.client.post(f"/v1/environments/{env_id}/actions/app1_nothing", json={},
                              headers=api.headers(token))
    assert missing.json() == fault(404, "Action app1_nothing is not found")
    unknown = api.client.get(f"/v1/environments/{env_id}/actions/nothing",
                             headers=api.headers(token))
    assert unknown.json() == fault(404, f"Result for task with environment_id: {env_id} and "
                                        "task_id: nothing was not found.")


def test_an_action_that_raises_answers_is_exception(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    # the contract of setMessage refuses null
    response = api.client.post(f"/v1/environments/{env_id}/actions/app1_setMessage",
                               json={"message": None}, headers=api.headers(token))
    api.run_tasks()
    result = api.client.get(f"/v1/environments/{env_id}/actions/{response.json()['task_id']}",
                            headers=api.headers(token)).json()
    assert result["isException"] is True
    assert "message" in result["result"] and result["result"]["message"]


def test_delete_destroys_then_forgets_the_environment(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    response = api.client.delete(f"/v1/environments/{env_id}", headers=api.headers(token))
    assert (response.status_code, response.json()) == (200, None)
    shown = api.client.get(f"/v1/environments/{env_id}", headers=api.headers(token)).json()
    assert shown["status"] == "deleting"
    assert api.run_tasks() == 1
    assert api.client.get(f"/v1/environments/{env_id}",
                          headers=api.headers(token)).status_code == 404


# -- usage statistics -------------------------------------------------------------------
def test_a_deployment_tracks_its_servers_and_a_removed_one_stops_counting(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    path = f"/v1/environments/{env_id}/instance-statistics/raw"
    [row] = api.client.get(path, headers=api.headers(token)).json()
    assert {key: row[key] for key in ("type", "instance_id", "type_name", "type_title",
                                      "unit_count", "active")} == {
        "type": 200, "instance_id": "vm1", "active": True, "unit_count": 1,
        "type_name": "io.murano.resources.LinuxMuranoInstance", "type_title": None}

    session_id = configure(api, token, env_id)
    removed = api.client.delete(f"/v1/environments/{env_id}/services/app1",
                                headers=api.headers(token, session_id))
    assert removed.status_code == 200, removed.text
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    assert api.run_tasks() == 1
    [row] = api.client.get(path, headers=api.headers(token)).json()
    assert (row["instance_id"], row["active"]) == ("vm1", False)
    aggregated = api.client.get(f"/v1/environments/{env_id}/instance-statistics/aggregated",
                                headers=api.headers(token)).json()
    assert [(entry["type"], entry["count"]) for entry in aggregated] == [(200, 1)]


# -- one store for the CLI and the API --------------------------------------------------
def test_an_environment_the_cli_deployed_is_served_to_its_project(api: Api) -> None:
    service = Service(Workdir(api.workdir), FrontendRegistry(builtin_frontends()),
                      resources=RecordingResources(), project="local", database=api.database)
    result = service.deploy(EXAMPLES / "webserver" / "web.yaml",
                            PrepareOptions(libs=(EXAMPLES / "webserver",)))
    assert result.status == "ok", result.error
    token = api.token(project="local")
    [listed] = api.client.get("/v1/environments", headers=api.headers(token)).json()[
        "environments"]
    assert (listed["name"], listed["status"]) == ("web", "ready")
    shown = api.client.get(f"/v1/environments/{listed['id']}", headers=api.headers(token))
    assert [s["name"] for s in shown.json()["services"]] == ["web"]
    assert api.client.get("/v1/environments", headers=api.headers(api.token())).json() == {
        "environments": []}


def test_a_body_that_is_not_json_is_400_saying_where(api: Api) -> None:
    response = api.client.post("/v1/environments", content=b'{"name": "a",, }',
                               headers=api.headers(api.token()))
    assert response.status_code == 400
    assert response.json() == fault(400, "The request is invalid: the body is not JSON: "
                                         "Expecting property name enclosed in double quotes "
                                         "at character 13")
