"""TOSCA templates and assembly descriptors of the catalog added to an
environment through forms generated from their inputs (types, constraints,
defaults, descriptions), in Chromium: a value the blueprint's constraints
refuse is refused with the front end's own message beside its field, valid
values are added to a session, and the session deploys through the API on the
local cloud (real agents) from the environment's page, its progress followed live, then the environment is deleted with its hosts."""

from __future__ import annotations

import contextlib
import json
import re
import time
import typing as t
from pathlib import Path

import httpx

from tests.browser.test_dashboard import EXAMPLES, signed_in
from tests.servers import Server, free_port, serve
from tests.unit.cloud.test_containers import needs_podman

if t.TYPE_CHECKING:
    from playwright.sync_api import Page

FORMS = Path(__file__).parents[1] / "fixtures" / "forms"
#: a deployment's and a deletion's bound, polled every half second
POLLS = 240


def environment_of(page: Page, server: Server, name: str) -> str:
    page.get_by_role("link", name="Environments").click()
    page.get_by_label("New environment's name").fill(name)
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(re.compile(r"/dashboard/environments/[0-9a-f]+$"))
    return page.url.rsplit("/", 1)[-1]


@contextlib.contextmanager
def environment(page: Page, server: Server, token: str, name: str) -> t.Iterator[str]:
    """A new environment's id; deleted at the end, its hosts with it, whatever
    the test found."""
    environment_id = environment_of(page, server, name)
    try:
        yield environment_id
    finally:
        deleted(server, token, environment_id)


def deployed(page: Page, server: Server, environment_id: str) -> list[str]:
    """The environment's session deployed from its page (the Deploy button), the
    status followed live until ``ready``; the Progress list's entries."""
    from playwright.sync_api import expect

    page.goto(f"{server.url}/dashboard/environments/{environment_id}")
    expect(page.locator("#status")).to_have_text("pending")
    page.get_by_role("button", name="Deploy", exact=True).click()
    progress = page.get_by_role("list", name="Progress")
    expect(progress).to_contain_text("deploy ended: success", timeout=POLLS * 500)
    expect(page.locator("#status")).to_have_text("ready")
    # each entry is "TIME TEXT"
    return [entry.split(" ", 1)[1] for entry in progress.get_by_role("listitem").all_inner_texts()]


def deleted(server: Server, token: str, environment_id: str) -> None:
    """The environment deleted (its hosts undeployed), waited for."""
    headers = {"X-Auth-Token": token}
    base = f"{server.url}/v1/environments/{environment_id}"
    assert httpx.delete(base, headers=headers, timeout=30).status_code == 200
    for _ in range(POLLS):
        if httpx.get(base, headers=headers, timeout=30).status_code == 404:
            return
        time.sleep(0.5)
    raise AssertionError("the environment was not deleted")


def test_a_tosca_template_added_through_its_inputs_form(browser: t.Any, tmp_path: Path,
                                                        screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        server.laguna("package", "import", "--public", str(FORMS / "greeter"))
        token = server.token()
        page = signed_in(browser, server, token)
        with environment(page, server, token, "greeter-env") as environment_id:
            page.get_by_role("link", name="Add a TOSCA template or an assembly").click()
            page.get_by_role("list", name="Blueprints").get_by_role("link", name="greeter").click()
            expect(page.get_by_role("heading", level=1)).to_have_text("greeter")

            # each input drawn from its type and constraints, its default the value
            greeting = page.get_by_label("greeting")
            expect(greeting).to_have_value("Hello from a form")
            expect(greeting).to_have_attribute("minlength", "2")
            expect(greeting).to_have_attribute("maxlength", "40")
            expect(greeting).to_have_accessible_description("The text of the page.")
            port = page.get_by_label("port")
            expect(port).to_have_attribute("type", "number")
            expect(port).to_have_attribute("min", "1024")
            expect(port).to_have_attribute("max", "65535")
            expect(page.get_by_label("colour").locator("option")).to_have_text(
                ["blue", "green", "red"])
            expect(page.get_by_label("colour")).to_have_value("blue")
            expect(page.get_by_label("code")).to_have_attribute("pattern", "[a-z]+")
            expect(page.get_by_label("ratio")).to_have_attribute("step", "any")
            expect(page.get_by_label("shout")).to_have_attribute("type", "checkbox")
            expect(page.get_by_label("tags")).to_have_accessible_description(
                "A list written as YAML or JSON.")
            page.screenshot(path=screenshots / "tosca-inputs.png", full_page=True)

            # constraints broken: refused by the TOSCA front end's own rules, each
            # message beside its field
            port.fill("80")
            page.get_by_label("code").fill("AB")
            page.get_by_role("button", name="Add to greeter-env").click()
            expect(page.get_by_role("alert")).to_contain_text(
                "The inputs of greeter are refused:")
            expect(port).to_have_accessible_description(re.compile(
                r"input port: the value given: 80 is not in range \[1024, 65535\]$"))
            expect(page.get_by_label("code")).to_have_accessible_description(
                "input code: the value given: 'AB' does not match the pattern '[a-z]+'")
            expect(port).to_have_attribute("aria-invalid", "true")
            page.screenshot(path=screenshots / "tosca-inputs-refused.png", full_page=True)

            # valid values are added to a session, deployed from the environment's page
            served_on = free_port()
            port.fill(str(served_on))
            page.get_by_label("code").fill("ok")
            page.get_by_label("colour").select_option("green")
            page.get_by_label("tags").fill("[a, b]")
            page.get_by_role("button", name="Add to greeter-env").click()
            expect(page.get_by_role("heading", level=1)).to_have_text(
                "greeter added to greeter-env")
            given = page.get_by_role("table", name="Inputs given")
            expect(given.get_by_role("row", name=f"port {served_on}")).to_be_visible()
            expect(given.get_by_role("row", name='tags ["a", "b"]')).to_be_visible()
            reports = deployed(page, server, environment_id)
            assert [r.split(":")[0] for r in reports] == [
                "deploy started", "Standard.create", "Standard.start", "deploy ended"], reports
            # the page the form's values made, at the URL the deployment gives
            shown = json.loads(server.laguna("status", "greeter-env", "--json"))
            url = shown["outputs"]["url"]
            assert url.endswith(f":{served_on}/"), url
            assert httpx.get(url, timeout=10).text == "Hello from a form\n"


def test_an_assembly_descriptor_added_through_its_properties_form(
        browser: t.Any, tmp_path: Path, screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        server.laguna("package", "import", "--public", str(EXAMPLES / "assembly" / "web"))
        server.laguna("package", "import", "--public", str(FORMS / "site"))
        token = server.token()
        page = signed_in(browser, server, token)
        with environment(page, server, token, "site-env") as environment_id:
            page.get_by_role("link", name="Add a TOSCA template or an assembly").click()
            blueprints = page.get_by_role("list", name="Blueprints")
            expect(blueprints.get_by_role("link")).to_have_text(["forms.site"])
            blueprints.get_by_role("link", name="forms.site").click()

            expect(page.get_by_label("greeting")).to_have_value("Hello from an assembly form")
            expect(page.get_by_label("port")).to_have_attribute("step", "1")
            expect(page.get_by_label("loud")).not_to_be_checked()
            expect(page.get_by_label("location")).to_have_value("local-cloud")
            page.screenshot(path=screenshots / "assembly-properties.png", full_page=True)

            # a number the browser takes, and the descriptor's integer does not
            page.get_by_label("port").fill("1.5")
            page.get_by_role("button", name="Add to site-env").click()
            expect(page.get_by_role("alert")).to_contain_text(
                "The inputs of assembly::forms.site::1.0 are refused:")
            expect(page.get_by_label("port")).to_have_accessible_description(
                "property 'port' (integer): \"1.5\" is not an integer")
            page.screenshot(path=screenshots / "assembly-properties-refused.png",
                            full_page=True)

            served_on = free_port()
            page.get_by_label("port").fill(str(served_on))
            page.get_by_label("greeting").fill("Hello from the dashboard")
            page.get_by_role("button", name="Add to site-env").click()
            expect(page.get_by_role("heading", level=1)).to_have_text(
                "forms.site added to site-env")
            deployed(page, server, environment_id)
            # the page the form's properties made, on a host of the local cloud
            shown = json.loads(server.laguna("status", "site-env", "--json"))
            url = shown["outputs"]["url"]
            assert url.startswith("http://127.42.") and url.endswith(f":{served_on}/"), url
            assert httpx.get(url, timeout=10).text == "Hello from the dashboard\n"


@needs_podman
def test_a_package_form_s_cloud_fields_offer_the_environment_s_cloud(
        browser: t.Any, tmp_path: Path, screenshots: Path) -> None:
    # an environment kept on the container cloud: its image field offers the
    # image map's names, the default first (GET .../choices, docs/CLOUD.md)
    from playwright.sync_api import expect

    from laguna.deploy.workdir import Workdir
    from laguna.hosts.choice import CloudChoice, keep_choice
    from tests.unit.cloud.test_offers import write_image_map

    with serve(tmp_path) as server:
        server.laguna("package", "import", "--public", str(EXAMPLES / "webserver"))
        write_image_map(server.workdir)
        token = server.token()
        page = signed_in(browser, server, token)
        with environment(page, server, token, "in-containers") as environment_id:
            keep_choice(Workdir(server.workdir).cloud_dir, environment_id,
                        CloudChoice("containers"))
            page.get_by_role("link", name="Add application").click()
            page.get_by_role("list", name="Applications to add").get_by_role(
                "link", name="Web Server").click()
            page.get_by_role("button", name="Next").click()
            expect(page.get_by_label("Instance image").locator("option")).to_have_text(
                ["web", "alpine", "debian-12"])
            expect(page.get_by_label("Instance flavor").locator("option")).to_have_text(
                ["m1.small", "m1.tiny", "m1.medium", "m1.large"])
            page.screenshot(path=screenshots / "form-container-choices.png", full_page=True)
