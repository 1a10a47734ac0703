"""Deploying from the dashboard in Chromium: the Deploy button of an
environment with a session of changes, the progress streamed into the page
until the status is ``ready`` (no reload), the application's address opened,
the topology, an action run with an argument and its result, a redeploy,
the history with its reports, deleting and abandoning; and the pages of a
TOSCA environment (nodes, attributes, operations) and of an assembly
(components, intents, relationships). The web servers are real (the local
cloud's agents run the example's scripts) and are undeployed however a test
ends."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import typing as t
from pathlib import Path

import httpx

from tests.browser.test_dashboard import EXAMPLES, TIMEOUT_MS, deleted_from_its_page, signed_in
from tests.servers import Server, serve

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

def api(server: Server, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url + "/v1", headers={"X-Auth-Token": token},
                        timeout=30)


def environment_page(page: Page, server: Server, name: str) -> None:
    page.goto(server.url + "/dashboard/environments")
    page.get_by_role("link", name=name).click()


def test_deploy_watch_act_and_abandon(browser: Browser, tmp_path: Path,
                                      screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server, undeployed_after(server, "web-1"):
        server.laguna("package", "import", "--public", str(EXAMPLES / "webserver"))
        token = server.token()
        page = signed_in(browser, server, token)
        page.get_by_role("link", name="Environments").click()
        page.get_by_label("New environment's name").fill("web-1")
        page.get_by_role("button", name="Create").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("web-1")
        # nothing changed yet: nothing to deploy
        expect(page.get_by_role("button", name="Deploy", exact=True)).to_have_count(0)

        # the webserver added through its package's form (docs/FORMS.md)
        page.get_by_role("link", name="Add application").click()
        page.get_by_role("list", name="Applications to add").get_by_role(
            "link", name="Web Server").click()
        page.get_by_label("Page text").fill("Hello from the dashboard")
        page.get_by_role("button", name="Next").click()
        page.get_by_label("Instance naming pattern").fill("web-#")
        page.get_by_role("button", name="Next").click()
        page.get_by_label("Application Name").fill("web")
        page.get_by_role("button", name="Create").click()
        expect(page.locator("#status")).to_have_text("pending")
        expect(page.get_by_role("table", name="Applications")).to_contain_text(
            re.compile(r"web\s*org\.laguna\.examples\.WebServer"))

        page.get_by_role("button", name="Deploy", exact=True).click()
        # the reports come into the page as they are written, and the status with them
        progress = page.get_by_role("list", name="Progress")
        expect(progress).to_contain_text("Creating the web server instance")
        expect(progress).to_contain_text(re.compile(
            r"Web server is available at http://127\.\d+\.\d+\.\d+:8080/"))
        expect(progress).to_contain_text("deploy ended: success")
        expect(page.locator("#status")).to_have_text("ready")
        # the parts the deployment changed were read again: no reload
        expect(page.get_by_role("table", name="Components").get_by_role("row")).to_have_count(3)
        expect(page.get_by_role("table", name="Components").get_by_role("row", name=re.compile(
            r"^web org\.laguna\.examples\.WebServer deployed"))).to_have_count(1)
        expect(page.get_by_role("button", name="Deploy", exact=True)).to_have_count(0)
        expect(page.get_by_role("button", name="Redeploy")).to_be_visible()
        page.screenshot(path=screenshots / "environment-deployed.png", full_page=True)

        # the topology: the application and its host, linked by the property
        topology = page.get_by_role("group", name="Topology")
        expect(topology.get_by_role("img")).to_have_count(2)
        expect(topology.get_by_role(
            "img", name="application web (org.laguna.examples.WebServer)")).to_be_visible()
        expect(topology.get_by_role(
            "img", name="host web-1 (io.murano.resources.LinuxMuranoInstance)")).to_be_visible()
        expect(page.get_by_role("list", name="Links").get_by_role("listitem")).to_have_text(
            ["web → web-1: instance"])

        # the application's address is a link; its page is the web server's
        address = page.get_by_role("table", name="Outputs").get_by_role("link")
        url = t.cast(str, address.get_attribute("href"))
        assert re.fullmatch(r"http://127\.\d+\.\d+\.\d+:8080/", url), url
        address.click()
        expect(page.locator("body")).to_contain_text("Hello from the dashboard")
        page.go_back()

        # an action with an argument, its form from the argument's contract
        action = page.get_by_role("form", name="setMessage of web")
        expect(action.get_by_text("$.string().notNull()")).to_be_visible()
        action.get_by_label("message").fill("Changed by an action")
        action.get_by_role("button", name="Run setMessage of web").click()
        expect(page.get_by_role("status")).to_have_text("The action finished.")
        expect(page.get_by_label("Result")).to_have_text("null")
        page.screenshot(path=screenshots / "action-result.png", full_page=True)
        assert "Changed by an action" in httpx.get(url, timeout=10).text

        # redeployed: the page follows it to its end again
        page.get_by_role("link", name="web-1").click()
        history = page.locator("#history details")
        expect(history).to_have_count(2)
        page.get_by_role("button", name="Redeploy").click()
        expect(history).to_have_count(3)
        expect(page.locator("#status")).to_have_text("ready")
        expect(history.first.locator("summary")).to_contain_text("success")

        # the history: newest first, each deployment with its reports (the closed
        # ones read by their text, not as a screen reader would)
        expect(history.nth(1).locator("ol")).to_contain_text(
            "The page now says Changed by an action")
        expect(history.nth(2).locator("ol")).to_contain_text("Starting the web server")

        # deleted: the engine undeploys it (its web server stops), then it is gone
        deleted_from_its_page(page, server, "web-1")
        try:
            httpx.get(url, timeout=5)
            raise AssertionError(f"{url} still answers after the environment was deleted")
        except httpx.TransportError:
            pass

        # abandoned: removed at once, no deployment runs
        page.get_by_label("New environment's name").fill("spare")
        page.get_by_role("button", name="Create").click()
        page.get_by_role("button", name="Abandon environment").click()
        expect(page).to_have_url(server.url + "/dashboard/environments")
        expect(page.get_by_role("table", name="Environments")).to_contain_text(
            "No environment yet.")


@contextlib.contextmanager
def undeployed_after(server: Server, *names: str) -> t.Iterator[None]:
    """The environments the command line deployed are undeployed when the
    test ends, however it ends: their web servers are real processes."""
    try:
        yield
    finally:
        for name in names:
            subprocess.run([sys.executable, "-m", "laguna.cli", "--workdir",
                            str(server.workdir), "undeploy", name], capture_output=True,
                           timeout=120, check=False)


def test_an_action_argument_the_form_refuses(browser: Browser, tmp_path: Path) -> None:
    """A required argument left empty is refused on the page, by the
    argument's name, and nothing runs."""
    from playwright.sync_api import expect

    with serve(tmp_path) as server, undeployed_after(server, "web"):
        server.laguna("deploy", str(EXAMPLES / "webserver" / "web.yaml"), "--name", "web",
                      "-l", str(EXAMPLES / "webserver"))
        token = server.token()
        page = signed_in(browser, server, token)
        environment_page(page, server, "web")
        action = page.get_by_role("form", name="setMessage of web")
        action.get_by_label("message").fill("")
        # the browser's own check is the field's required mark; past it, the server's
        action.get_by_label("message").evaluate("field => field.required = false")
        action.get_by_role("button", name="Run setMessage of web").click()
        expect(page.get_by_role("alert")).to_have_text("message is required")
        with api(server, token) as client:
            [environment] = client.get("/environments").json()["environments"]
            deployments = client.get(f"/environments/{environment['id']}/deployments").json()
            assert [d["state"] for d in deployments["deployments"]] == ["success"]


def test_tosca_and_assembly_environments(browser: Browser, tmp_path: Path,
                                         screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server, undeployed_after(server, "hello-tosca", "site"):
        # deployed by the command line into the server's store: the dashboard shows them
        server.laguna("deploy", str(EXAMPLES / "tosca" / "service.yaml"), "--name",
                      "hello-tosca", "--cloud", "local")
        server.laguna("deploy", str(EXAMPLES / "assembly" / "site.yaml"), "--name", "site",
                      "-l", str(EXAMPLES / "assembly"))
        page = signed_in(browser, server, server.token())

        environment_page(page, server, "hello-tosca")
        components = page.get_by_role("table", name="Components")
        expect(components.get_by_role("row")).to_have_count(3)
        attributes = page.get_by_label("Attributes of web")
        expect(attributes).to_contain_text(re.compile(r"url\s*http://127\.\d+\.\d+\.\d+:8080/"))
        expect(page.get_by_role("list", name="Operations of web").get_by_role(
            "listitem")).to_have_text(["Standard.create", "Standard.start", "Standard.stop"])
        topology = page.get_by_role("group", name="Topology")
        expect(topology.get_by_role("img", name="host vm (tosca.nodes.Compute)")).to_be_visible()
        expect(topology.get_by_role(
            "img", name="application web (tosca.nodes.SoftwareComponent)")).to_be_visible()
        page.screenshot(path=screenshots / "environment-tosca.png", full_page=True)
        url = t.cast(str, page.get_by_role("table", name="Outputs").get_by_role(
            "link").get_attribute("href"))
        assert "Hello from TOSCA" in httpx.get(url, timeout=10).text

        environment_page(page, server, "site")
        expect(page.get_by_role("table", name="Components").get_by_role("row")).to_have_count(3)
        expect(page.get_by_label("Properties of front")).to_contain_text(
            "front page; pages at http://")
        expect(page.get_by_label("Intents")).to_have_text(re.compile(r"Intended state\s*Active"))
        expect(page.get_by_role("list", name="Relationships").get_by_role(
            "listitem")).to_have_text(["site → site__pages__1: member",
                                       "site → site__front: member"])
        topology = page.get_by_role("group", name="Topology")
        expect(topology.get_by_role("img")).to_have_count(3)
        expect(topology.get_by_role("img", name="assembly site (assembly)")).to_be_visible()
        page.screenshot(path=screenshots / "environment-assembly.png", full_page=True)
        entry = page.get_by_role("table", name="Outputs").get_by_role("link")
        entry.click()
        expect(page.locator("body")).to_contain_text("front page; pages at http://")
