"""laguna's own reads for clients such as the dashboard: the caller's open
sessions of an environment (with whether they change it), and what the last
deployment made (components, outputs, links, actions with their arguments)."""

from __future__ import annotations

from tests.unit.api.conftest import EXAMPLES, Api
from tests.unit.api.packages import fault
from tests.unit.api.test_environments import APP, configure, create, deployed


def test_the_callers_sessions_say_whether_they_change_the_environment(api: Api) -> None:
    token = api.token()
    api.import_package(EXAMPLES / "webserver")
    env_id = create(api, token)["id"]
    assert api.client.get(f"/v1/environments/{env_id}/sessions",
                          headers=api.headers(token)).json() == {"sessions": []}
    session_id = configure(api, token, env_id)
    listed = api.client.get(f"/v1/environments/{env_id}/sessions",
                            headers=api.headers(token)).json()["sessions"]
    assert [(s["id"], s["state"], s["changed"]) for s in listed] == [
        (session_id, "opened", False)]
    api.client.post(f"/v1/environments/{env_id}/services", json=APP,
                    headers=api.headers(token, session_id))
    listed = api.client.get(f"/v1/environments/{env_id}/sessions",
                            headers=api.headers(token)).json()["sessions"]
    assert [(s["id"], s["state"], s["changed"]) for s in listed] == [
        (session_id, "opened", True)]
    # another user of the project sees none of them (a session is its user's)
    other = api.token(user="u2")
    assert api.client.get(f"/v1/environments/{env_id}/sessions",
                          headers=api.headers(other)).json() == {"sessions": []}
    # deploying, it is listed so; deployed, it is not
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    listed = api.client.get(f"/v1/environments/{env_id}/sessions",
                            headers=api.headers(token)).json()["sessions"]
    assert [(s["id"], s["state"]) for s in listed] == [(session_id, "deploying")]
    assert api.run_tasks() == 1
    assert api.client.get(f"/v1/environments/{env_id}/sessions",
                          headers=api.headers(token)).json() == {"sessions": []}
    # another project's caller is refused as showing the environment is
    stranger = api.token(project="p2")
    assert api.client.get(f"/v1/environments/{env_id}/sessions",
                          headers=api.headers(stranger)).json() == fault(
        403, "User is not authorized to access these tenant resources")


def test_a_session_an_other_deployment_made_invalid_is_not_listed(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    stale = configure(api, token, env_id)
    fresh = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/sessions/{fresh}/deploy",
                    headers=api.headers(token))
    assert api.run_tasks() == 1
    listed = api.client.get(f"/v1/environments/{env_id}/sessions",
                            headers=api.headers(token)).json()["sessions"]
    assert stale not in [s["id"] for s in listed]
    assert listed == []


def test_components_outputs_and_actions_with_their_contracts(api: Api) -> None:
    token = api.token()
    env_id, _ = deployed(api, token)
    shown = api.client.get(f"/v1/environments/{env_id}/components",
                           headers=api.headers(token)).json()
    assert shown["language"] == "muranopl"
    assert shown["state"] == "ready"
    assert shown["components"] == {
        "app1": {"type": "org.laguna.examples.WebServer", "name": "web", "state": "deployed"},
        "vm1": {"type": "io.murano.resources.LinuxMuranoInstance", "name": "w1",
                "state": "deployed"}}
    assert list(shown["outputs"]) == ["web.url"]
    assert shown["links"] == [] and shown["intended_state"] is None
    assert [a for a in shown["actions"] if a["object"] == "app1"] == [{
        "id": "app1_setMessage", "object": "app1", "object_name": "web",
        "object_type": "org.laguna.examples.WebServer", "name": "setMessage",
        "arguments": [{"name": "message", "required": True, "type": "$.string().notNull()"}],
        "open": False}]
    # the id is the one the API runs
    started = api.client.post(f"/v1/environments/{env_id}/actions/app1_setMessage",
                              json={"message": "hi"}, headers=api.headers(token))
    assert started.status_code == 200
    stranger = api.token(project="p2")
    assert api.client.get(f"/v1/environments/{env_id}/components",
                          headers=api.headers(stranger)).json() == fault(
        403, "User is not authorized to access these tenant resources")
    assert api.client.get("/v1/environments/nothing/components",
                          headers=api.headers(token)).json() == fault(
        404, "Environment with id nothing not found")


def test_a_never_deployed_environment_has_no_components(api: Api) -> None:
    token = api.token()
    env_id = create(api, token)["id"]
    assert api.client.get(f"/v1/environments/{env_id}/components",
                          headers=api.headers(token)).json() == {
        "environment_id": env_id, "language": None, "state": "ready", "outputs": {},
        "components": {}, "links": [], "intended_state": None, "actions": None}
