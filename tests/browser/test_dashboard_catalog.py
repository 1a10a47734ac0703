"""The catalog in Chromium: importing a package's zip and a CSAR through the
page (the API's refusals and its size limit shown), each package's page
(requirements, forms, TOSCA inputs and nodes, descriptors' properties and
components), and the controls: enable/disable and delete for the owner,
publicise for admins only."""

from __future__ import annotations

import re
import shutil
import typing as t
import zipfile
from pathlib import Path

import httpx

from tests.servers import Server, serve

from .test_dashboard import EXAMPLES, signed_in

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: the server's package limit in these tests: the web server's zip (about 5 KB) fits
LIMIT = 8000
#: the TOSCA example with a constrained input, as a CSAR's one root template
SERVICE = (EXAMPLES / "tosca" / "service.yaml").read_text().replace(
    "port: {type: integer, default: 8080}",
    "port: {type: integer, default: 8080, constraints: [{in_range: [1024, 65535]}],\n"
    "           description: where the page is served}")


def zipped(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return target


def csar(tmp_path: Path) -> Path:
    folder = tmp_path / "csar"
    shutil.copytree(EXAMPLES / "tosca", folder)
    (folder / "service.yaml").write_text(SERVICE)
    return zipped(folder, tmp_path / "hello-tosca.zip")


def broken_package(tmp_path: Path) -> Path:
    folder = tmp_path / "broken"
    (folder / "Classes").mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        "Format: MuranoPL/1.4\nType: Application\nFullName: com.example.Broken\n"
        "Name: Broken\nClasses:\n  com.example.Broken: Broken.yaml\n"
        "  com.example.Missing: Missing.yaml\n")
    (folder / "Classes" / "Broken.yaml").write_text(
        "Name: com.example.Broken\nExtends: com.example.Nowhere\n")
    return zipped(folder, tmp_path / "broken.zip")


def import_archive(page: Page, server: Server, archive: Path, tags: str = "",
                   categories: t.Sequence[str] = ()) -> None:
    page.goto(server.url + "/dashboard/catalog")
    page.get_by_role("link", name="Import a package").click()
    page.get_by_label("Package archive").set_input_files(str(archive))
    if tags:
        page.get_by_label("Tags").fill(tags)
    if categories:
        page.get_by_label("Categories").select_option(list(categories))
    page.get_by_role("button", name="Import").click()


def rows_of(page: Page, table: str) -> list[list[str]]:
    rows = page.get_by_role("table", name=table, exact=True).locator("tbody tr")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()]
            for row in rows.all()]


def test_importing_a_zip_and_a_csar_through_the_page(browser: Browser, tmp_path: Path,
                                                     screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path / "work", "--max-package-size", str(LIMIT)) as server:
        webserver = tmp_path / "webserver.zip"
        server.laguna("package", "build", str(EXAMPLES / "webserver"), "-o", str(webserver))
        admin = server.token(admin=True)
        for category in ("Web", "Databases"):
            added = httpx.post(server.url + "/v1/catalog/categories", json={"name": category},
                               headers={"X-Auth-Token": admin}, timeout=30)
            assert added.status_code == 200, added.text
        page = signed_in(browser, server, admin)

        # not a zip: the API's refusal, its one problem listed
        (tmp_path / "notes.zip").write_text("not an archive")
        import_archive(page, server, tmp_path / "notes.zip")
        alert = page.get_by_role("alert")
        expect(alert.locator("p")).to_have_text("Couldn't load package from file:")
        expect(alert.get_by_role("listitem")).to_have_text(
            "the uploaded archive is not a zip archive: File is not a zip file")
        # a package with two problems: both listed, in the API's words
        import_archive(page, server, broken_package(tmp_path))
        expect(page.get_by_role("list", name="Problems").get_by_role("listitem")).to_have_text([
            "Classes/Broken.yaml:2:1: error[LAG-E0242]: class com.example.Broken: Extends names "
            "class com.example.Nowhere, which is not found",
            "manifest.yaml:7:3: error[LAG-E0531]: file 'Classes/Missing.yaml' of class "
            "'com.example.Missing' does not exist"])
        page.screenshot(path=screenshots / "import-refused.png", full_page=True)
        # over the server's limit (--max-package-size): the API's message
        (tmp_path / "big.zip").write_bytes(b"x" * (LIMIT + 1))
        import_archive(page, server, tmp_path / "big.zip")
        expect(page.get_by_role("alert")).to_have_text(
            f"Uploading file is too large: the limit (max_package_size) is {LIMIT} bytes")
        # past the limit and the metadata's allowance, the server refuses the body
        # before reading it (laguna.api.limits): the same message, on a page
        (tmp_path / "huge.zip").write_bytes(b"x" * (LIMIT + 100_000))
        import_archive(page, server, tmp_path / "huge.zip")
        expect(page.get_by_role("heading", level=1)).to_have_text("Refused")
        expect(page.get_by_role("alert")).to_have_text(
            f"Uploading file is too large: the limit (max_package_size) is {LIMIT} bytes")

        # the web server's zip: its page, then listed with its logo
        import_archive(page, server, webserver, tags="demo, served", categories=["Web"])
        expect(page.get_by_role("heading", level=1)).to_have_text("Web Server")
        expect(page.locator("#tags")).to_have_text("demo, example, served, web")
        expect(page.locator("#categories")).to_have_text("Web")
        expect(page.locator("#ui")).to_have_text(
            "UI/ui.yaml: its forms add it to an environment")
        expect(page.get_by_role("list", name="Classes")).to_have_text(
            "org.laguna.examples.WebServer")
        assert rows_of(page, "Requirements") == [["None."]]
        page.screenshot(path=screenshots / "package-imported.png", full_page=True)
        page.get_by_role("link", name="Catalog").click()
        # the category filter finds it; another category does not
        page.get_by_label("Category").select_option("Databases")
        page.get_by_role("button", name="Filter").click()
        expect(page.get_by_text("No package matches.")).to_be_visible()
        page.get_by_label("Category").select_option("Web")
        page.get_by_role("button", name="Filter").click()
        logo = page.get_by_role("img", name="Logo of Web Server")
        expect(logo).to_be_visible()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                               arg=logo.element_handle())
        assert logo.evaluate("img => img.naturalWidth") == 48
        shown = page.request.get(server.url + t.cast(str, logo.get_attribute("src")))
        assert shown.body() == (EXAMPLES / "webserver" / "logo.png").read_bytes()
        assert shown.headers["content-type"] == "image/png"
        page.screenshot(path=screenshots / "catalog-imported.png", full_page=True)
        # the same name and version again: the API's conflict
        import_archive(page, server, webserver)
        expect(page.get_by_role("alert")).to_have_text(
            "Package with specified full name is already registered")

        # a CSAR: its inputs with their types and constraints, its nodes and outputs
        import_archive(page, server, csar(tmp_path))
        expect(page.get_by_role("heading", level=1)).to_have_text("hello-tosca")
        expect(page.locator("#type")).to_have_text("Tosca")
        assert rows_of(page, "Inputs") == [
            ["greeting", "string", "Hello from TOSCA", "", "no", ""],
            ["port", "integer", "8080", "in_range: [1024, 65535]", "no",
             "where the page is served"]]
        assert rows_of(page, "Node templates") == [
            ["vm", "tosca.nodes.Compute", ""],
            ["web", "tosca.nodes.SoftwareComponent", "host: vm"]]
        assert rows_of(page, "Outputs") == [
            ["url", '{"get_attribute": ["web", "url"]}', ""]]
        expect(page.locator("#ui")).to_have_text("none (no UI/ui.yaml)")
        page.screenshot(path=screenshots / "package-csar.png", full_page=True)
        page.get_by_role("link", name="Catalog").click()
        packages = page.get_by_role("list", name="Packages")
        expect(packages.get_by_role("link")).to_have_text(["Web Server", "hello-tosca"])


def upload(server: Server, token: str, archive: Path) -> str:
    """A package uploaded as python-muranoclient sends it; its id."""
    answer = httpx.post(server.url + "/v1/catalog/packages", headers={"X-Auth-Token": token},
                        data={"__metadata__": "{}"},
                        files={archive.name: (archive.name, archive.read_bytes())}, timeout=60)
    assert answer.status_code == 200, answer.text
    return t.cast(str, answer.json()["id"])


def test_owner_disables_and_deletes_admin_publicises(browser: Browser, tmp_path: Path,
                                                     screenshots: Path) -> None:
    from playwright.sync_api import expect

    with serve(tmp_path / "work") as server:
        webserver = tmp_path / "webserver.zip"
        server.laguna("package", "build", str(EXAMPLES / "webserver"), "-o", str(webserver))
        owner = server.token(user="bob")
        package = server.url + "/dashboard/catalog/" + upload(server, owner, webserver)

        bob = signed_in(browser, server, owner)
        bob.goto(package)
        expect(bob.get_by_role("button", name="Disable")).to_be_visible()
        expect(bob.get_by_role("button", name="Delete package")).to_be_visible()
        # publicising is not offered to a project's user, nor on the import page
        expect(bob.get_by_role("button", name="Make public")).to_have_count(0)
        key = bob.locator("input[name=form_key]").first.get_attribute("value")
        bob.goto(server.url + "/dashboard/catalog/import")
        expect(bob.get_by_label("Public")).to_have_count(0)
        # and the API refuses it anyway, sent with the user's own form key
        answer = bob.request.post(package + "/change", form={
            "form_key": t.cast(str, key), "field": "is_public", "value": "true"})
        assert answer.status == 403
        assert "Access was denied to this resource." in answer.text()

        bob.goto(package)
        bob.get_by_role("button", name="Disable").click()
        expect(bob.locator("#enabled")).to_have_text("no")
        bob.get_by_role("link", name="Catalog").click()
        expect(bob.get_by_role("list", name="Packages")).to_contain_text("disabled")
        bob.goto(package)
        bob.get_by_role("button", name="Enable").click()
        expect(bob.locator("#enabled")).to_have_text("yes")

        # an admin of another project publicises it; every project sees it then
        admin = signed_in(browser, server, server.token(project="ops", user="root",
                                                        admin=True))
        admin.goto(package)
        expect(admin.locator("#public")).to_have_text("no")
        admin.get_by_role("button", name="Make public").click()
        expect(admin.locator("#public")).to_have_text("yes")
        admin.screenshot(path=screenshots / "package-admin.png", full_page=True)
        stranger = signed_in(browser, server, server.token(project="lab", user="eve"))
        stranger.goto(package)
        expect(stranger.get_by_role("heading", level=1)).to_have_text("Web Server")
        # not the stranger's to change: no controls
        expect(stranger.get_by_role("button", name="Delete package")).to_have_count(0)
        stranger.close()
        admin.get_by_role("button", name="Make private").click()
        expect(admin.locator("#public")).to_have_text("no")
        admin.close()

        bob.goto(package)
        bob.get_by_role("button", name="Delete package").click()
        expect(bob).to_have_url(server.url + "/dashboard/catalog")
        expect(bob.get_by_text("No package matches.")).to_be_visible()
        bob.goto(package)
        expect(bob.get_by_role("alert")).to_have_text(
            f"Package id '{package.rsplit('/', 1)[-1]}' not found")


def test_requirements_and_descriptors_shown(browser: Browser, tmp_path: Path,
                                            screenshots: Path) -> None:
    from playwright.sync_api import expect

    assembly = tmp_path / "assembly"
    (assembly / "Definitions" / "lm").mkdir(parents=True)
    shutil.copy(EXAMPLES / "assembly" / "site.yaml",
                assembly / "Definitions" / "lm" / "assembly.yaml")
    newer = tmp_path / "webserver-1.1"
    shutil.copytree(EXAMPLES / "webserver", newer)
    manifest = newer / "manifest.yaml"
    manifest.write_text(manifest.read_text() + "Version: 1.1.0\n")
    with serve(tmp_path / "work") as server:
        for path in (EXAMPLES / "keyvalue", EXAMPLES / "dashboard", EXAMPLES / "webserver",
                     newer, EXAMPLES / "assembly" / "web", assembly):
            server.laguna("package", "import", "--public", str(path))
        page = signed_in(browser, server, server.token())
        packages = page.get_by_role("list", name="Packages")
        expect(packages.get_by_role("link")).to_have_text(
            ["Dashboard", "Key-Value Store", "Web Server", "Web Server", "example.site",
             "example.web"])

        # a page at a time: the API's marker leads to the next
        page.goto(server.url + "/dashboard/catalog?limit=4&tag=example")
        expect(packages.get_by_role("link")).to_have_text(
            ["Dashboard", "Key-Value Store", "Web Server", "Web Server"])
        # the page was full, so the API gave a marker; the filter is kept after it
        page.get_by_role("link", name="Next page").click()
        expect(page.get_by_text("No package matches.")).to_be_visible()
        page.goto(server.url + "/dashboard/catalog?limit=3")
        page.get_by_role("link", name="Next page").click()
        expect(packages.get_by_role("link")).to_have_text(
            ["Web Server", "example.site", "example.web"])
        page.get_by_role("link", name="Catalog").click()

        # two versions side by side, the highest first, whichever is shown
        packages.get_by_role("link", name="Web Server").last.click()
        versions = page.get_by_role("table", name="Versions").locator("tbody tr")
        expect(versions.locator("td:first-child")).to_have_text(["1.1.0", "0.0.0"])
        shown = page.locator("#version").inner_text()
        current = page.get_by_role("table", name="Versions").locator("tr[aria-current=page]")
        expect(current.locator("td").first).to_have_text(shown)
        versions.get_by_role("link", name="0.0.0").click()
        expect(page.locator("#version")).to_have_text("0.0.0")
        page.screenshot(path=screenshots / "package-versions.png", full_page=True)
        page.get_by_role("link", name="Catalog").click()

        packages.get_by_role("link", name="Dashboard").click()
        assert rows_of(page, "Requirements") == [
            ["org.laguna.examples.KeyValueStore", "any version"]]

        page.get_by_role("link", name="Catalog").click()
        packages.get_by_role("link", name="example.site").click()
        expect(page.locator("#type")).to_have_text("Assembly")
        expect(page.locator("#version")).to_have_text("1.0")
        assert rows_of(page, "Properties") == [
            ["greeting", "string", "Hello from an assembly", "", "no", ""],
            ["entry", "string", "", "${front.url}", "yes", ""]]
        assert rows_of(page, "Components") == [
            ["pages", "resource::example.web::1.0",
             '{"initial-quantity": 1, "maximum-nodes": 3, "minimum-nodes": 1}'],
            ["front", "resource::example.web::1.0", ""]]
        assert rows_of(page, "Relationships") == [["None."]]
        page.screenshot(path=screenshots / "package-assembly.png", full_page=True)

        page.get_by_role("link", name="Catalog").click()
        packages.get_by_role("link", name="example.web").click()
        expect(page.locator("#type")).to_have_text("Resource")
        assert rows_of(page, "Properties")[0] == [
            "deploymentLocation", "string", "local-cloud", "", "no", ""]
        assert [row[0] for row in rows_of(page, "Lifecycle")] == [
            "Install", "Start", "Stop", "Uninstall", "Reconfigure"]
