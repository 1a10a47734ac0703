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


def test_an_environment_s_choices_are_its_cloud_s_and_fill_its_forms(api: Api) -> None:
    from laguna.deploy.workdir import Workdir
    from laguna.forms import AnswersRefused
    from laguna.hosts.choice import CloudChoice, keep_choice
    from tests.unit.cloud.test_offers import write_image_map

    api.import_package(EXAMPLES / "webserver")
    token = api.token()
    env_id = create(api, token)["id"]
    local = api.client.get(f"/v1/environments/{env_id}/choices", headers=api.headers(token))
    assert (local.status_code, local.json()["images"]) == (200, ["ubuntu", "debian"])

    # the environment kept on the container cloud offers its image map's names
    write_image_map(api.workdir)
    keep_choice(Workdir(api.workdir).cloud_dir, env_id, CloudChoice("containers"))
    answer = api.client.get(f"/v1/environments/{env_id}/choices", headers=api.headers(token))
    assert (answer.status_code, answer.json()) == (200, {
        "flavors": ["m1.small", "m1.tiny", "m1.medium", "m1.large"],
        "images": ["web", "alpine", "debian-12"], "keypairs": [""], "zones": ["nova"],
        "networks": ["auto"]})

    # the answer, as the dashboard passes it, is what the form's cloud fields offer
    ui = read((EXAMPLES / "webserver" / "UI" / "ui.yaml").read_text(), "ui.yaml")
    model = fill(ui, {}, "Web Server", answer.json())
    assert (model["instance"]["flavor"], model["instance"]["image"]) == ("m1.small", "web")
    chosen = fill(ui, {"instanceConfiguration.osImage": "alpine",
                       "instanceConfiguration.flavor": "m1.large"}, "Web Server", answer.json())
    assert (chosen["instance"]["flavor"], chosen["instance"]["image"]) == ("m1.large", "alpine")
    try:
        fill(ui, {"instanceConfiguration.osImage": "ubuntu"}, "Web Server", answer.json())
        raise AssertionError("the local cloud's image was accepted on the container cloud")
    except AnswersRefused as refused:
        assert [(p.where, p.message) for p in refused.problems] == [
            ("instanceConfiguration.osImage",
             "Select a valid choice. ubuntu is not one of the available choices.")]


def test_choices_are_scoped_like_the_environment(api: Api) -> None:
    env_id = create(api, api.token())["id"]
    other = api.client.get(f"/v1/environments/{env_id}/choices",
                           headers=api.headers(api.token("p2", "u2")))
    missing = api.client.get("/v1/environments/nope/choices", headers=api.headers(api.token()))
    assert (other.status_code, missing.status_code) == (403, 404)


def test_choices_of_a_cloud_that_cannot_open_here_say_why(api: Api) -> None:
    from laguna.deploy.workdir import Workdir
    from laguna.hosts.choice import CloudChoice, keep_choice

    token = api.token()
    env_id = create(api, token)["id"]
    # the ssh cloud without an inventory (none given, none remembered)
    keep_choice(Workdir(api.workdir).cloud_dir, env_id, CloudChoice("ssh"))
    answer = api.client.get(f"/v1/environments/{env_id}/choices", headers=api.headers(token))
    assert answer.status_code == 409
    assert answer.json()["error"]["message"] == (
        "no inventory: give one (--inventory FILE); none is remembered in "
        f"{(Workdir(api.workdir).cloud_dir / 'ssh').resolve()}")
