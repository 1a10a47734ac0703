"""The examples on the local cloud: deploy, fetch the reported URL, run an
action, redeploy a changed model, undeploy, and nothing is left behind."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .helpers import EXAMPLES, laguna, nothing_left, unreachable, wait_for_page

WEB_MODEL = EXAMPLES / "webserver" / "web.yaml"
SHOP_MODEL = EXAMPLES / "dashboard" / "shop.yaml"
STORE_ID = "2e7b3a4c5d6e4f7a8b9c0d1e2f3a4b5c"
DASHBOARD_ID = "4a9d5c6e7f8a4b9c8d1e2f3a4b5c6d7e"
WEB_ID = "5a1b0c8d2e3f4a5b9c6d7e8f90a1b2c3"


def test_web_server_deploy_action_redeploy_undeploy(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(WEB_MODEL), "-l", str(EXAMPLES / "webserver"))
    assert (code, result["status"], result["state"]) == (0, "ok", "ready"), result["error"]
    url = result["outputs"]["web.url"]
    assert url.startswith("http://127.42.")
    assert result["components"][WEB_ID] == {
        "type": "org.laguna.examples.WebServer", "name": "web", "state": "deployed"}
    assert any(r["text"] == f"Web server is available at {url}" for r in result["reports"])
    assert "Hello from laguna" in wait_for_page(url, "Hello from laguna")

    # status, action and redeploy need no -l: the environment kept its packages
    code, status = laguna(workdir, "status", "web")
    assert (code, status["state"], status["outputs"]) == (0, "ready", {"web.url": url})

    code, result = laguna(workdir, "action", "web", WEB_ID, "setMessage",
                          "--arg", "message=Set by an action")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    wait_for_page(url, "Set by an action")

    code, result = laguna(workdir, "deploy", str(WEB_MODEL), "--set", "message=Redeployed")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    assert result["outputs"]["web.url"] == url          # the same server, kept
    assert not any("Creating the web server instance" in r["text"] for r in result["reports"])
    wait_for_page(url, "Redeployed")

    code, result = laguna(workdir, "undeploy", "web")
    assert (code, result["status"], result["state"]) == (0, "ok", "undeployed")
    assert unreachable(url)
    nothing_left(workdir)
    code, history = laguna(workdir, "deployments", "web")
    assert [d["operation"] for d in history["deployments"]] == [
        "deploy", "action", "deploy", "undeploy"]


def test_linked_apps_action_and_redeploy_without_one(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(SHOP_MODEL), "-l", str(EXAMPLES))
    assert (code, result["status"]) == (0, "ok"), result["error"]
    store = result["outputs"]["store.endpoint"]
    page = result["outputs"]["dashboard.url"]
    assert store != page
    # the dashboard's page shows what it read from the store's address
    shown = wait_for_page(page, "hello from the store")
    assert store in shown

    code, result = laguna(workdir, "action", "shop", STORE_ID, "put",
                          "--arg", "key=greeting", "--arg", "value=changed by an action")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    wait_for_page(page, "changed by an action")

    # the dashboard leaves the model: its server goes, the store stays as it was
    model = yaml.safe_load(SHOP_MODEL.read_text())
    model["applications"] = [a for a in model["applications"] if a["?"]["id"] == STORE_ID]
    smaller = workdir / "shop-store-only.json"
    smaller.write_text(json.dumps(model))
    code, result = laguna(workdir, "deploy", str(smaller), "--name", "shop")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    assert DASHBOARD_ID not in result["components"]
    assert result["outputs"] == {"store.endpoint": store}
    assert unreachable(page)
    wait_for_page(store + "greeting", "changed by an action")

    code, result = laguna(workdir, "undeploy", "shop")
    assert (code, result["state"]) == (0, "undeployed")
    assert unreachable(store)
    nothing_left(workdir)


def test_dry_run_prints_templates_and_plans_and_keeps_nothing(workdir: Path) -> None:
    code, result = laguna(workdir, "deploy", str(SHOP_MODEL), "-l", str(EXAMPLES), "--dry-run")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    kinds = [(entry["kind"], entry.get("host")) for entry in result["plan"]]
    assert ("agent", "store-1") in kinds and ("agent", "dashboard-1") in kinds
    assert kinds.index(("agent", "store-1")) < kinds.index(("agent", "dashboard-1"))
    stacks = [entry["template"] for entry in result["plan"] if entry["kind"] == "stack"]
    assert "store-1" in stacks[-1]["resources"] and "dashboard-1" in stacks[-1]["resources"]
    plans = [entry["plan"]["Name"] for entry in result["plan"] if entry["kind"] == "agent"]
    assert plans == ["Deploy Key-Value Store", "Deploy Dashboard"]
    assert not (workdir / ".laguna" / "cloud").exists()
    code, listed = laguna(workdir, "environments")
    assert listed == {"environments": []} or code != 0
