"""The dashboard's "Add application" through the application in process (the
browser's part is tests/browser/test_dashboard_forms.py): what it answers to
a package without forms, a draft it cannot read or whose earlier answers are
refused, and the end of a form, the model in the session a cookie names, a
stale session replaced by a new one."""

from __future__ import annotations

import html
import re
import shutil
import typing as t
from pathlib import Path

import httpx

from laguna.dashboard import signin
from laguna.dashboard.wizard import MAX_DRAFT, Draft
from tests.unit.api.conftest import EXAMPLES, Api
from tests.unit.api.test_environments import create

FORMS = Path(__file__).parents[2] / "fixtures" / "forms"


def package_id(api: Api, token: str, fqn: str) -> str:
    listed = api.client.get("/v1/catalog/packages", params={"fqn": fqn},
                            headers=api.headers(token)).json()
    return t.cast(str, listed["packages"][0]["id"])


def signed_in(api: Api) -> tuple[str, str]:
    token = api.token()
    api.client.cookies.set(signin.COOKIE, token)
    return token, signin.form_key(token)


def post(api: Api, env_id: str, package: str, key: str, draft: str,
         action: str = "next", **fields: str) -> httpx.Response:
    return api.client.post(f"/dashboard/environments/{env_id}/add/{package}",
                           data={"form_key": key, "draft": draft, "action": action, **fields},
                           follow_redirects=False)


def test_refusals_of_the_forms_pages(api: Api) -> None:
    api.import_package(EXAMPLES / "keyvalue")
    api.import_package(EXAMPLES / "webserver")
    token, key = signed_in(api)
    env_id = create(api, token)["id"]
    keyvalue = package_id(api, token, "org.laguna.examples.KeyValueStore")
    web = package_id(api, token, "org.laguna.examples.WebServer")

    shown = api.client.get(f"/dashboard/environments/{env_id}/add/{keyvalue}")
    assert shown.status_code == 422
    assert "package org.laguna.examples.KeyValueStore has no UI/ui.yaml: no forms to fill" \
        in shown.text
    for draft, message in [("{", "the form&#39;s draft is not JSON"),
                           ("x" * (MAX_DRAFT + 1),
                            f"the form&#39;s draft has more than {MAX_DRAFT} characters"),
                           (Draft(keyvalue).dump(), "The form&#39;s draft is of another package.")]:
        refused = post(api, env_id, web, key, draft)
        assert (refused.status_code, message in refused.text) == (400, True), refused.text
    assert post(api, env_id, web, key, Draft(web).dump(), "jump").status_code == 400
    assert post(api, env_id, web, "not-the-key", Draft(web).dump()).status_code == 403

    # a draft whose first step's answers are refused (changed by hand) is sent
    # back to that step, whatever step it says it is at
    tampered = Draft(web, 1, {"appConfiguration": {"port": "80"}})
    back = post(api, env_id, web, key, tampered.dump())
    assert back.status_code == 422
    assert "Step 1 of 3: App configuration" in back.text
    assert "The port is 1024 or above (the server runs unprivileged)." in back.text
    assert back.headers["cache-control"] == "no-store"
    # a field's validator refuses with its own message, beside the field
    refused = post(api, env_id, web, key, Draft(web).dump(), message="<b>bold</b>")
    assert refused.status_code == 422
    assert '<p class="error" id="field-message-error">The page text is plain text, ' \
        "without &lt; or &gt;.</p>" in refused.text


def test_the_last_step_adds_the_model_to_the_session_of_the_cookie(api: Api) -> None:
    api.import_package(EXAMPLES / "webserver")
    token, key = signed_in(api)
    env_id = create(api, token)["id"]
    web = package_id(api, token, "org.laguna.examples.WebServer")
    answers = {"appConfiguration": {"name": "one", "message": "hi", "port": "8100"},
               "instanceConfiguration": {}}
    done = post(api, env_id, web, key, Draft(web, 2, answers).dump(),
                application_name="first")
    assert (done.status_code, done.headers["location"]) == (
        303, f"/dashboard/environments/{env_id}")
    session_id = done.cookies[f"laguna_session_{env_id}"]
    services = api.client.get(f"/v1/environments/{env_id}/services",
                              headers=api.headers(token, session_id)).json()
    assert [(s["?"]["name"], s["name"], s["port"]) for s in services] == [
        ("first", "one", 8100)]
    page = api.client.get(f"/dashboard/environments/{env_id}")
    assert f"configuration session <code>{session_id}</code>" in page.text

    # a session the API no longer has open is not used: a new one is opened
    api.client.delete(f"/v1/environments/{env_id}/sessions/{session_id}",
                      headers=api.headers(token))
    again = post(api, env_id, web, key, Draft(web, 2, answers).dump(),
                 application_name="second")
    fresh = again.cookies[f"laguna_session_{env_id}"]
    assert fresh != session_id
    services = api.client.get(f"/v1/environments/{env_id}/services",
                              headers=api.headers(token, fresh)).json()
    assert [s["?"]["name"] for s in services] == ["second"]


def test_parameters_source_gives_the_form_its_parameters(api: Api) -> None:
    """ParametersSource's static method is called through the API's static
    actions; what it answers is over the file's Parameters, the rest kept."""
    api.import_package(FORMS / "sourced")
    _token, _key = signed_in(api)
    env_id = create(api, _token)["id"]
    sourced = package_id(api, _token, "org.laguna.tests.Sourced")

    shown = api.client.get(f"/dashboard/environments/{env_id}/add/{sourced}")
    assert shown.status_code == 200, shown.text
    assert [(label, value) for label, value in re.findall(
        r'<label for="field-(\w+)".*?value="([^"]*)"', shown.text, re.S)] == [
        ("greeting", "Hello from a static method"), ("region", "south"),
        ("note", "written in the file")]


def test_a_parameters_source_that_fails_shows_the_api_s_refusal(api: Api, tmp_path: Path
                                                                ) -> None:
    package = tmp_path / "sourced"
    shutil.copytree(FORMS / "sourced", package)
    ui = package / "UI" / "ui.yaml"
    ui.write_text(ui.read_text().replace("ParametersSource: formParameters",
                                         "ParametersSource: org.laguna.tests.Sourced.nothing"))
    api.import_package(package)
    token, _key = signed_in(api)
    env_id = create(api, token)["id"]
    sourced = package_id(api, token, "org.laguna.tests.Sourced")

    shown = api.client.get(f"/dashboard/environments/{env_id}/add/{sourced}")
    assert shown.status_code == 404
    assert "Refused by the API" in shown.text
    message = re.search(r"<p[^>]*>(.*?)</p>", shown.text.split("Refused by the API", 1)[1], re.S)
    assert message is not None and message.group(1).strip() == \
        "Method &#34;nothing&#34; is not found in class org.laguna.tests.Sourced"


def test_a_class_made_by_two_packages_asks_which_then_cancel_goes_back(api: Api,
                                                                        tmp_path: Path) -> None:
    """Two versions of the datastore side by side both make the class the shop's
    field needs: "Add a new" lists both; the one chosen opens its own form
    under the shop's; Cancel goes back to the shop's form with its answers."""
    browser_packages = Path(__file__).parents[2] / "browser" / "packages"
    second = tmp_path / "datastore"
    shutil.copytree(browser_packages / "datastore", second)
    manifest = second / "manifest.yaml"
    manifest.write_text(manifest.read_text() + "Version: 2.0.0\n")
    for folder in (browser_packages / "datastore", second, browser_packages / "shop"):
        api.import_package(folder)
    token, key = signed_in(api)
    env_id = create(api, token)["id"]
    shop = package_id(api, token, "org.laguna.tests.Shop")
    stores = sorted(p["id"] for p in api.client.get(
        "/v1/catalog/packages", params={"fqn": "org.laguna.tests.Datastore"},
        headers=api.headers(token)).json()["packages"])
    assert len(stores) == 2

    chooser = post(api, env_id, shop, key, Draft(shop).dump(), "new:datastore", code="ABC")
    assert chooser.status_code == 200, chooser.text
    assert "<h1>A new application for Datastore</h1>" in chooser.text
    listed = re.findall(r'action="/dashboard/environments/\w+/add/(\w+)">\s*'
                        r'<input type="hidden" name="form_key" value="\w+">\s*'
                        r'<input type="hidden" name="draft" value="([^"]*)">\s*'
                        r'<button type="submit" name="action" value="start">Add Datastore',
                        chooser.text)
    assert sorted(chosen for chosen, _ in listed) == stores
    waiting = html.unescape(listed[0][1])

    started = post(api, env_id, stores[1], key, waiting, "start")
    assert started.status_code == 200, started.text
    assert re.search(r'id="asked-by"[^>]*>A new application for Datastore of Shop, in ',
                     started.text)
    assert '<label for="field-name">Store name' in started.text
    child = html.unescape(re.findall(r'name="draft" value="([^"]*)"', started.text)[0])
    assert Draft.load(child).package == stores[1]

    back = post(api, env_id, stores[1], key, child, "cancel")
    assert back.status_code == 200, back.text
    assert "<h1>Add Shop</h1>" in back.text
    assert re.search(r'id="field-code"[^>]*value="ABC"', back.text)
