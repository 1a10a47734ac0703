"""Deploying and running actions from the dashboard, in process (the
browser's part is tests/browser/test_dashboard_deploy.py): the Deploy and
Redeploy buttons' effects, abandoning, an action's form to its result or its
error, and the API's refusals on the page."""

from __future__ import annotations

from laguna.dashboard import signin
from tests.unit.api.conftest import Api
from tests.unit.api.test_environments import create, deployed, with_application


def signed_in(api: Api) -> tuple[str, str]:
    token = api.token()
    api.client.cookies.set(signin.COOKIE, token)
    return token, signin.form_key(token)


def status(api: Api, token: str, env_id: str) -> str:
    return str(api.client.get(f"/v1/environments/{env_id}",
                              headers=api.headers(token)).json()["status"])


def test_deploy_the_session_with_changes_then_redeploy(api: Api) -> None:
    token, key = signed_in(api)
    env_id, session_id = with_application(api, token)
    page = api.client.get(f"/dashboard/environments/{env_id}")
    assert f'name="session" value="{session_id}"' in page.text
    assert "Redeploy" not in page.text
    sent = api.client.post(f"/dashboard/environments/{env_id}/deploy",
                           data={"form_key": key, "session": session_id},
                           follow_redirects=False)
    assert (sent.status_code, sent.headers["location"]) == (
        303, f"/dashboard/environments/{env_id}")
    assert status(api, token, env_id) == "deploying"
    assert api.run_tasks() == 1
    assert status(api, token, env_id) == "ready"
    page = api.client.get(f"/dashboard/environments/{env_id}")
    assert 'name="session"' not in page.text and ">Redeploy</button>" in page.text
    # the session is deployed: the API's refusal, on the page
    again = api.client.post(f"/dashboard/environments/{env_id}/deploy",
                            data={"form_key": key, "session": session_id})
    assert again.status_code == 403
    assert (f"Session &lt;SessionId {session_id}&gt; is already deployed or deployment is in "
            "progress") in again.text
    redeployed = api.client.post(f"/dashboard/environments/{env_id}/redeploy",
                                 data={"form_key": key}, follow_redirects=False)
    assert redeployed.status_code == 303
    assert api.run_tasks() == 1
    deployments = api.client.get(f"/v1/environments/{env_id}/deployments",
                                 headers=api.headers(token)).json()["deployments"]
    assert [d["state"] for d in deployments] == ["success", "success"]


def test_abandon_removes_at_once(api: Api) -> None:
    token, key = signed_in(api)
    env_id, _ = deployed(api, token)
    sent = api.client.post(f"/dashboard/environments/{env_id}/abandon",
                           data={"form_key": key}, follow_redirects=False)
    assert (sent.status_code, sent.headers["location"]) == (303, "/dashboard/environments")
    assert api.run_tasks() == 0
    assert api.client.get("/v1/environments", headers=api.headers(token)).json() == {
        "environments": []}
    # a form no page of the dashboard sent abandons nothing
    env_id = create(api, token, "spare")["id"]
    forged = api.client.post(f"/dashboard/environments/{env_id}/abandon", data={})
    assert forged.status_code == 403
    assert status(api, token, env_id) == "ready"


def test_an_action_from_its_form_to_its_result(api: Api) -> None:
    token, key = signed_in(api)
    env_id, _ = deployed(api, token)
    form = api.client.get(f"/dashboard/environments/{env_id}/actions/app1_setMessage")
    assert form.status_code == 200
    assert ('<input id="arg-app1_setMessage-message" name="arg.message" type="text" '
            'required>') in form.text
    sent = api.client.post(f"/dashboard/environments/{env_id}/actions/app1_setMessage",
                           data={"form_key": key, "arg.message": "hi"},
                           follow_redirects=False)
    assert sent.status_code == 303
    task_page = sent.headers["location"]
    running = api.client.get(task_page)
    assert "Running…" in running.text
    assert '<meta http-equiv="refresh" content="1">' in running.text
    assert api.run_tasks() == 1
    done = api.client.get(task_page)
    assert "The action finished." in done.text and '<pre aria-label="Result">null</pre>' \
        in done.text and "http-equiv" not in done.text
    assert api.client.get(f"/v1/environments/{env_id}/services/app1/message",
                          headers=api.headers(token)).json() == "hi"


def test_an_action_that_raises_shows_its_message(api: Api) -> None:
    token, _ = signed_in(api)
    env_id, _ = deployed(api, token)
    # null is what no form sends; the contract refuses it
    started = api.client.post(f"/v1/environments/{env_id}/actions/app1_setMessage",
                              json={"message": None}, headers=api.headers(token)).json()
    api.run_tasks()
    result = api.client.get(f"/v1/environments/{env_id}/actions/{started['task_id']}",
                            headers=api.headers(token)).json()["result"]
    shown = api.client.get(f"/dashboard/environments/{env_id}/tasks/{started['task_id']}")
    assert '<p role="alert" class="error">The action failed: ' in shown.text
    assert str(result["message"]).split("\n")[0].replace("'", "&#39;") in shown.text


def test_refusals_of_an_actions_form(api: Api) -> None:
    token, key = signed_in(api)
    env_id, _ = deployed(api, token)
    unknown = api.client.get(f"/dashboard/environments/{env_id}/actions/app1_nothing")
    assert unknown.status_code == 404
    assert "Action app1_nothing is not found" in unknown.text
    empty = api.client.post(f"/dashboard/environments/{env_id}/actions/app1_setMessage",
                            data={"form_key": key, "arg.message": ""})
    assert empty.status_code == 400
    assert '<p class="error" role="alert">message is required</p>' in empty.text
    assert api.run_tasks() == 0
    missing = api.client.get(f"/dashboard/environments/{env_id}/tasks/nothing")
    assert missing.status_code == 404
    assert (f"Result for task with environment_id: {env_id} and task_id: nothing was not "
            "found.") in missing.text
