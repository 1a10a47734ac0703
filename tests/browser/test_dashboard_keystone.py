"""Signing in to the dashboard with Keystone credentials (``laguna serve
--keystone-url``), against a Keystone stand-in process (tests/keystone.py):
the dashboard asks the server's Keystone for a project-scoped token and signs
in with it; wrong credentials get Keystone's own refusal."""

from __future__ import annotations

import typing as t
from pathlib import Path

import httpx

from tests.keystone import UNAUTHORIZED, User, keystone
from tests.servers import serve

from .test_dashboard import TIMEOUT_MS

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser

ANN = User("ann", "s3cret-ann", "shop", "p-shop")
BOB = User("bob", "s3cret-bob", "lab", "p-lab")


def test_keystone_credentials_sign_in_to_their_project(browser: Browser, tmp_path: Path,
                                                       screenshots: Path) -> None:
    from playwright.sync_api import expect

    with keystone([ANN, BOB]) as identity, \
            serve(tmp_path, "--keystone-url", identity.url) as server:
        for user, name in ((ANN, "shop-web"), (BOB, "lab-web")):
            created = httpx.post(server.url + "/v1/environments", json={"name": name},
                                 headers={"X-Auth-Token": identity.token(user)}, timeout=30)
            assert created.status_code == 200, created.text

        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/dashboard/environments")
        credentials = page.get_by_role("form", name="Keystone credentials")
        expect(credentials.get_by_label("Domain")).to_have_value("Default")
        page.screenshot(path=screenshots / "sign-in-keystone.png")

        # a wrong password: Keystone's own refusal, the names kept, the password not
        credentials.get_by_label("User name").fill("ann")
        credentials.get_by_label("Password").fill("wrong")
        credentials.get_by_label("Project").fill("shop")
        credentials.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_have_text(f"Keystone refused: {UNAUTHORIZED}")
        expect(credentials.get_by_label("User name")).to_have_value("ann")
        expect(credentials.get_by_label("Password")).to_have_value("")
        # a project the user has no role in
        credentials.get_by_label("Password").fill(ANN.password)
        credentials.get_by_label("Project").fill("lab")
        credentials.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_have_text(
            "Keystone refused: User user-ann has no access to project lab")

        credentials.get_by_label("Password").fill(ANN.password)
        credentials.get_by_label("Project").fill("shop")
        credentials.get_by_role("button", name="Sign in").click()
        # back to the page asked for, with the project's environments only
        expect(page).to_have_url(server.url + "/dashboard/environments")
        rows = page.get_by_role("table", name="Environments").get_by_role("row")
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_contain_text("shop-web")

        # a Keystone token pasted in works too; a made-up one is refused by the API
        other = browser.new_page()
        other.set_default_timeout(TIMEOUT_MS)
        other.goto(server.url + "/dashboard/sign-in")
        other.get_by_text("Sign in with a Keystone token").click()
        other.get_by_label("Token", exact=True).fill("made-up")
        other.get_by_role("button", name="Sign in with the token").click()
        expect(other.get_by_role("alert")).to_have_text("The token was refused.")
        other.get_by_text("Sign in with a Keystone token").click()
        other.get_by_label("Token", exact=True).fill(identity.token(BOB))
        other.get_by_role("button", name="Sign in with the token").click()
        other.get_by_role("link", name="Environments").click()
        expect(other.get_by_role("link", name="lab-web")).to_be_visible()
        expect(other.get_by_role("link", name="shop-web")).to_have_count(0)
        other.close()


def test_without_keystone_the_page_asks_for_a_token(browser: Browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path) as server:
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/dashboard/sign-in")
        expect(page.get_by_label("Token")).to_be_visible()
        expect(page.get_by_label("Password")).to_have_count(0)
        # credentials posted anyway are not sent anywhere: a token is asked for
        answer = page.request.post(server.url + "/dashboard/sign-in", form={
            "method": "password", "user": "ann", "password": "x", "project": "shop"})
        assert answer.status == 400
        assert "Give a token." in answer.text()
