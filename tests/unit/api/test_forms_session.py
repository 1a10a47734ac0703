"""The path the dashboard will take: a package's ui.yaml from the catalog
(GET .../ui), filled by laguna.forms, the model added to an environment's
session (POST .../services) as murano-dashboard added it."""

from __future__ import annotations

from laguna.forms import fill, read
from tests.unit.api.conftest import EXAMPLES, Api
from tests.unit.api.test_environments import configure, create


def test_a_form_filled_from_the_catalog_is_added_to_a_session(api: Api) -> None:
    api.import_package(EXAMPLES / "webserver")
    token = api.token()
    listed = api.client.get("/v1/catalog/packages", headers=api.headers(token)).json()
    package_id = next(p["id"] for p in listed["packages"]
                      if p["fully_qualified_name"] == "org.laguna.examples.WebServer")
    text = api.client.get(f"/v1/catalog/packages/{package_id}/ui",
                          headers=api.headers(token)).text
    model = fill(read(text, "ui.yaml"), {"appConfiguration.message": "From the form"},
                 "Web Server")

    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    added = api.client.post(f"/v1/environments/{env_id}/services", json=model,
                            headers=api.headers(token, session_id))
    assert (added.status_code, added.json()) == (200, model)
    in_session = api.client.get(f"/v1/environments/{env_id}/services",
                                headers=api.headers(token, session_id)).json()
    [shown] = in_session
    assert (shown["?"]["id"], shown["message"], shown["instance"]["flavor"]) == (
        model["?"]["id"], "From the form", "m1.small")
