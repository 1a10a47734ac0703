"""Adding applications through their packages' ui.yaml forms in Chromium:
the webserver example's two steps and its name, a validator refusing a bad
value with the package's own message, a password whose confirmation differs,
and a field whose type is a class choosing an application already in the
environment or adding a new one through its own form. Every control is
found by its label, as a screen reader finds it; each step is photographed."""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

import httpx

from tests.servers import Server, serve

from .test_dashboard import EXAMPLES, signed_in

if t.TYPE_CHECKING:
    from playwright.sync_api import Page

    from playwright.sync_api import Browser

PACKAGES = Path(__file__).parent / "packages"


def new_environment(page: Page, name: str) -> str:
    page.get_by_role("link", name="Environments").click()
    page.get_by_label("New environment's name").fill(name)
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(re.compile(r"/dashboard/environments/[0-9a-f]+$"))
    return page.url.rsplit("/", 1)[1]


def in_session(server: Server, token: str, environment_id: str,
               session_id: str) -> list[dict[str, t.Any]]:
    """The applications of the environment's session, as the API answers them."""
    answered = httpx.get(f"{server.url}/v1/environments/{environment_id}/services",
                         headers={"X-Auth-Token": token,
                                  "X-Configuration-Session": session_id}, timeout=30)
    assert answered.status_code == 200, answered.text
    return t.cast(list[dict[str, t.Any]], answered.json())


def refused(page: Page, typed: dict[str, str], button: str, errors: dict[str, str]) -> None:
    """Each of ``typed`` filled in by its label, then ``button`` pressed: the
    step is shown again with ``errors`` (by field name) beside their fields."""
    from playwright.sync_api import expect

    for label, value in typed.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name=button).click()
    for name, message in errors.items():
        expect(page.locator(f"#field-{name}-error")).to_have_text(message)
        expect(page.locator(f"#field-{name}")).to_have_attribute("aria-invalid", "true")


def test_the_webserver_added_through_its_form(browser: Browser, tmp_path: Path,
                                              screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        server.laguna("package", "import", "--public", str(EXAMPLES / "webserver"))
        token = server.token()
        page = signed_in(browser, server, token)
        environment_id = new_environment(page, "shop-front")
        page.get_by_role("link", name="Add application").click()
        page.get_by_role("list", name="Applications to add").get_by_role(
            "link", name="Web Server").click()

        expect(page.get_by_role("heading", level=2)).to_have_text(
            "Step 1 of 3: App configuration")
        expect(page.get_by_label("Server name")).to_have_value("web")
        expect(page.get_by_label("Page text")).to_have_value("Hello from laguna")
        expect(page.get_by_label("Port")).to_have_value("8080")
        expect(page.get_by_label("Server name")).to_have_attribute("aria-required", "true")
        # the package's regexpValidator refuses, with the package's own message
        refused(page, {"Server name": "Web Server", "Port": "80"}, "Next", {
            "name": "A server name is lower-case letters, digits and hyphens, starting with "
                    "a letter.",
            "port": "The port is 1024 or above (the server runs unprivileged)."})
        page.screenshot(path=screenshots / "form-refused.png", full_page=True)
        page.get_by_label("Server name").fill("front")
        page.get_by_label("Page text").fill("Hello from the form")
        page.get_by_label("Port").fill("8095")
        page.screenshot(path=screenshots / "form-step-1.png", full_page=True)
        page.get_by_role("button", name="Next").click()

        expect(page.get_by_role("heading", level=2)).to_have_text(
            "Step 2 of 3: Instance configuration")
        # a hidden field's description describes the step, as murano-apps use it
        expect(page.get_by_role("region", name="About this step")).to_have_text(
            "The instance the web server runs on.")
        # cloud fields offer the cloud's choices; the hidden ones are not drawn
        expect(page.get_by_label("Instance flavor").locator("option")).to_have_text(
            ["m1.small", "m1.tiny", "m1.medium", "m1.large"])
        expect(page.get_by_label("Network").locator("option")).to_have_text(["Auto"])
        expect(page.get_by_label("Key Pair")).to_have_count(0)
        page.get_by_label("Instance flavor").select_option("m1.tiny")
        page.get_by_label("Instance image").select_option("debian")
        page.get_by_label("Instance naming pattern").fill("front-#")
        page.screenshot(path=screenshots / "form-step-2.png", full_page=True)
        # Back keeps what was typed on both steps
        page.get_by_role("button", name="Back").click()
        expect(page.get_by_label("Page text")).to_have_value("Hello from the form")
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_label("Instance flavor")).to_have_value("m1.tiny")
        page.get_by_role("button", name="Next").click()

        expect(page.get_by_role("heading", level=2)).to_have_text(
            "Step 3 of 3: Application name")
        expect(page.get_by_label("Application Name")).to_have_value("Web Server")
        page.get_by_label("Application Name").fill("front-server")
        page.screenshot(path=screenshots / "form-step-3.png", full_page=True)
        page.get_by_role("button", name="Create").click()

        expect(page).to_have_url(f"{server.url}/dashboard/environments/{environment_id}")
        applications = page.get_by_role("table", name="Applications")
        cells = applications.get_by_role("row").nth(1).get_by_role("cell")
        expect(cells.nth(0)).to_have_text("front-server")
        expect(cells.nth(1)).to_have_text("org.laguna.examples.WebServer")
        expect(page.locator("#status")).to_have_text("pending")
        page.screenshot(path=screenshots / "environment-with-application.png",
                        full_page=True)
        session_id = page.locator("#session code").inner_text()
        [model] = in_session(server, token, environment_id, session_id)
        assert (model["?"]["name"], model["name"], model["message"], model["port"]) == (
            "front-server", "front", "Hello from the form", 8095)
        assert (model["instance"]["flavor"], model["instance"]["image"],
                model["instance"]["name"], model["instance"]["keyname"]) == (
            "m1.tiny", "debian", "front-1", "")

        # a second application goes into the same session
        page.get_by_role("link", name="Add application").click()
        page.get_by_role("link", name="Web Server").click()
        page.get_by_label("Server name").fill("back")
        page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name="Create").click()
        expect(applications.get_by_role("row")).to_have_count(3)
        expect(page.locator("#session code")).to_have_text(session_id)
        assert [m["name"] for m in in_session(server, token, environment_id, session_id)] \
            == ["front", "back"]


def test_passwords_and_a_field_of_a_class(browser: Browser, tmp_path: Path,
                                          screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        for package in ("datastore", "shop"):
            server.laguna("package", "import", "--public", str(PACKAGES / package))
        token = server.token()
        page = signed_in(browser, server, token)
        environment_id = new_environment(page, "market")
        page.get_by_role("link", name="Add application").click()
        page.get_by_role("link", name="Shop").click()

        # the Datastore field: none in the environment yet
        expect(page.get_by_label("Datastore").locator("option")).to_have_text(
            ["Choose an application"])
        refused(page, {"Shop code": "abc"}, "Next", {
            "code": "A shop code is three capital letters.",
            "datastore": "This field is required."})
        # a new one through its own package's form (the only one of that class)
        page.get_by_role("button", name="Add a new Datastore").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Add Datastore")
        expect(page.locator("#asked-by")).to_have_text(
            "A new application for Datastore of Shop, in market")
        page.get_by_label("Store name").fill("stock")
        refused(page, {"Admin password": "Secret-pass1",
                       "Confirm admin password": "Secret-pass2"}, "Create",
                {"adminPassword": "Admin passwords don't match"})
        page.screenshot(path=screenshots / "form-password-refused.png", full_page=True)
        page.get_by_label("Admin password", exact=True).fill("Secret-pass1")
        page.get_by_label("Confirm admin password").fill("Secret-pass1")
        page.get_by_role("button", name="Create").click()

        # back to the shop's form, the new datastore chosen, the code kept
        expect(page.get_by_role("heading", level=1)).to_have_text("Add Shop")
        datastore = page.get_by_label("Datastore")
        expect(datastore.locator("option:checked")).to_have_text(
            "stock (org.laguna.tests.Datastore)")
        expect(page.get_by_label("Shop code")).to_have_value("abc")
        page.get_by_label("Shop code").fill("ABC")
        page.get_by_label("Open on Sundays").check()
        page.screenshot(path=screenshots / "form-class-field.png", full_page=True)
        page.get_by_role("button", name="Next").click()
        refused(page, {"Tills": "12"}, "Next",
                {"tills": "Ensure this value is less than or equal to 9."})
        page.get_by_label("Tills").fill("3")
        page.get_by_label("Size").select_option("large")
        page.get_by_role("button", name="Next").click()
        page.get_by_label("Application Name").fill("first-shop")
        page.get_by_role("button", name="Create").click()

        rows = page.get_by_role("table", name="Applications").get_by_role("row")
        expect(rows).to_have_count(3)
        session_id = page.locator("#session code").inner_text()
        store, shop = in_session(server, token, environment_id, session_id)
        assert (store["?"]["type"], store["name"], store["adminPassword"]) == (
            "org.laguna.tests.Datastore", "stock", "Secret-pass1")
        assert (shop["?"]["name"], shop["code"], shop["datastore"], shop["sundays"],
                shop["tills"], shop["size"]) == (
            "first-shop", "ABC", store["?"]["id"], True, 3, "large")

        # a second shop chooses the datastore already in the environment
        page.get_by_role("link", name="Add application").click()
        page.get_by_role("link", name="Shop").click()
        page.get_by_label("Shop code").fill("XYZ")
        page.get_by_label("Datastore").select_option(label="stock (org.laguna.tests.Datastore)")
        page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name="Create").click()
        expect(rows).to_have_count(4)
        second = in_session(server, token, environment_id, session_id)[2]
        assert (second["code"], second["datastore"], second["sundays"], second["tills"]) == (
            "XYZ", store["?"]["id"], False, 2)
