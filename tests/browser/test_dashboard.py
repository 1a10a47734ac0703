"""The dashboard in Chromium: signing in, the catalog, environments created,
shown and deleted, and a form that no page of the dashboard sent refused.
Controls are found by their labels, as a screen reader finds them."""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

from tests.servers import Server, serve

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

EXAMPLES = Path(__file__).parents[2] / "examples"
#: every wait of a page is bounded
TIMEOUT_MS = 30_000


def signed_in(browser: Browser, server: Server, token: str) -> Page:
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url + "/dashboard/")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/dashboard/catalog$"))
    return page


def deleted_from_its_page(page: Page, server: Server, name: str) -> None:
    """The environment whose page ``page`` shows deleted with its button; the
    engine deletes it, so the list is read again until it is gone (bounded),
    and then it has no environment left."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="Delete environment").click()
    expect(page).to_have_url(server.url + "/dashboard/environments")
    rows = page.get_by_role("table", name="Environments")
    for _ in range(60):
        if name not in rows.inner_text():
            break
        page.wait_for_timeout(500)
        page.reload()
    expect(rows).to_contain_text("No environment yet.")


def test_signing_in_and_the_catalog(browser: Browser, tmp_path: Path,
                                    screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        server.laguna("package", "import", "--public", str(EXAMPLES / "webserver"))
        server.laguna("package", "import", "--public", str(EXAMPLES / "keyvalue"))
        token = server.token()
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        # not signed in: every page sends to the sign-in page, and back after
        page.goto(server.url + "/dashboard/environments")
        expect(page).to_have_url(server.url + "/dashboard/sign-in?next=/dashboard/environments")
        page.screenshot(path=screenshots / "sign-in.png")
        page.get_by_label("Token").fill("not-a-token")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_have_text("The token was refused.")
        page.get_by_label("Token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        expect(page).to_have_url(server.url + "/dashboard/environments")

        page.get_by_role("link", name="Catalog").click()
        packages = page.get_by_role("list", name="Packages")
        expect(packages.get_by_role("link")).to_have_text(["Key-Value Store", "Web Server"])
        page.screenshot(path=screenshots / "catalog.png", full_page=True)
        # search and the tag filter narrow the list; nothing matching says so
        page.get_by_label("Search").fill("web")
        page.get_by_role("button", name="Filter").click()
        expect(packages.get_by_role("link")).to_have_text(["Web Server"])
        page.get_by_label("Search").fill("")
        page.get_by_label("Tag").fill("database")
        page.get_by_role("button", name="Filter").click()
        expect(packages.get_by_role("link")).to_have_text(["Key-Value Store"])
        page.get_by_label("Tag").fill("nothing-tagged-so")
        page.get_by_role("button", name="Filter").click()
        expect(page.get_by_text("No package matches.")).to_be_visible()

        page.get_by_label("Tag").fill("")
        page.get_by_role("button", name="Filter").click()
        page.get_by_role("link", name="Web Server").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Web Server")
        expect(page.get_by_role("list", name="Classes")).to_have_text(
            "org.laguna.examples.WebServer")
        expect(page.get_by_role("table", name="Versions").get_by_role("row")).to_have_count(2)
        page.screenshot(path=screenshots / "package.png", full_page=True)

        # signing out forgets the token
        page.get_by_role("button", name="Sign out").click()
        page.goto(server.url + "/dashboard/catalog")
        expect(page).to_have_url(re.compile(r"/dashboard/sign-in\?next="))


def test_environments_created_shown_and_deleted(browser: Browser, tmp_path: Path,
                                                screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        page = signed_in(browser, server, server.token())
        page.get_by_role("link", name="Environments").click()
        expect(page.get_by_role("table", name="Environments")).to_contain_text(
            "No environment yet.")
        page.get_by_label("New environment's name").fill("web-1")
        page.get_by_role("button", name="Create").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("web-1")
        expect(page.locator("#status")).to_have_text("ready")
        expect(page.get_by_text("Never deployed.")).to_be_visible()
        page.screenshot(path=screenshots / "environment.png", full_page=True)

        # the API's own refusal, on the page
        page.get_by_role("link", name="Environments").click()
        page.get_by_label("New environment's name").fill("web-1")
        page.get_by_role("button", name="Create").click()
        expect(page.get_by_role("alert")).to_have_text(
            "Environment with specified name already exists")
        page.screenshot(path=screenshots / "environments.png", full_page=True)

        # another project's caller sees none of it, even by its address
        environment = page.get_by_role("link", name="web-1")
        address = server.url + t.cast(str, environment.get_attribute("href"))
        stranger = signed_in(browser, server, server.token(project="other", user="bob"))
        stranger.goto(address)
        expect(stranger.get_by_role("alert")).to_have_text("User is not authorized to access "
                                                           "these tenant resources")
        stranger.close()

        environment.click()
        deleted_from_its_page(page, server, "web-1")


def test_a_form_not_sent_by_the_dashboard_is_refused(browser: Browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        page = signed_in(browser, server, server.token())
        # the browser sends the cookie, but no page of the dashboard made this form
        answer = page.request.post(server.url + "/dashboard/environments",
                                   form={"name": "forged"})
        assert answer.status == 403
        assert "This form was not sent by a page of the dashboard." in answer.text()
        page.goto(server.url + "/dashboard/environments")
        expect(page.get_by_role("table", name="Environments")).to_contain_text(
            "No environment yet.")
        # and a sign-in never sends anywhere but the dashboard
        page.goto(server.url + "/dashboard/sign-in?next=//example.org/")
        assert page.locator("input[name=next]").get_attribute("value") == "/dashboard/catalog"
