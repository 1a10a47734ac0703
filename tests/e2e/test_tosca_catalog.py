"""TOSCA in the catalog, through the CLI with real agents on the local cloud: a
CSAR imported into the catalog and deployed from it by name, and a CSAR whose
node is substituted by a catalog template (``catalog:web-service``): the inner
topology's Compute becomes a host, its node's script runs through that host's
agent, and its output is the outer node's attribute."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .helpers import COMMAND_TIMEOUT, command, environ, laguna

FIXTURES = Path(__file__).with_name("tosca_catalog")


def _import(workdir: Path, path: Path) -> str:
    """`laguna package import PATH` (it prints no JSON): its line."""
    done = subprocess.run(command(workdir, "package", "import", str(path)),
                          capture_output=True, text=True, env=environ(),
                          timeout=COMMAND_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def csar_file(tmp: Path, name: str) -> Path:
    """The fixture folder ``name`` zipped as a .csar file."""
    return Path(shutil.make_archive(str(tmp / name), "zip", FIXTURES / name)) \
        .rename(tmp / f"{name}.csar")


def test_a_csar_imported_into_the_catalog_deploys_from_it(
        workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    scratch = tmp_path_factory.mktemp("csars")
    assert _import(workdir, csar_file(scratch, "web-service")).startswith(
        "imported web-service 1.1.0 (id ")
    code, listed = laguna(workdir, "package", "list")
    assert [(p["name"], p["version"], p["type"]) for p in listed["packages"]] == [
        ("web-service", "1.1.0", "Tosca")]

    code, data = laguna(workdir, "deploy", "web-service", "--cloud", "local",
                        "--set", "greeting=deployed from the catalog")
    assert (code, data["status"]) == (0, "ok"), data["error"]
    stack = data["model"]["tosca"]["stack"]
    page = workdir / ".laguna" / "cloud" / "hosts" / stack / "tosca_vm" / "page.txt"
    assert page.read_text() == "deployed from the catalog\n"
    assert data["outputs"] == {"page": str(page)}

    code, data = laguna(workdir, "undeploy", "web-service")
    assert (code, data["state"]) == (0, "undeployed")
    assert not (workdir / ".laguna" / "cloud" / "hosts" / stack).exists()


def test_a_substituted_node_deploys_its_inner_topology(workdir: Path) -> None:
    _import(workdir, FIXTURES / "web-service")
    assert _import(workdir, FIXTURES / "shop").startswith("imported shop 2.0.0 (id ")

    code, data = laguna(workdir, "deploy", "shop", "--cloud", "local")
    assert (code, data["status"]) == (0, "ok"), data["error"]
    assert list(data["components"]) == ["front.vm", "front.site", "front"]
    stack = data["model"]["tosca"]["stack"]
    host = workdir / ".laguna" / "cloud" / "hosts" / stack / "tosca_front_vm"
    # the inner node's script ran through the inner Compute's agent, with the
    # outer node's property as its input
    assert (host / "page.txt").read_text() == "hello from the inner node\n"

    code, status = laguna(workdir, "status", "shop")
    components = status["components"]
    assert {name: c["state"] for name, c in components.items()} == {
        "front.vm": "started", "front.site": "started", "front": "started"}
    # the inner output and the mapped inner attribute are the outer node's attributes
    assert components["front"]["attributes"]["page"] == str(host / "page.txt")
    assert components["front"]["attributes"]["page_host"] == \
        components["front.vm"]["attributes"]["private_address"]
    assert status["outputs"] == {"page": str(host / "page.txt")}

    code, data = laguna(workdir, "undeploy", "shop")
    assert (code, data["state"]) == (0, "undeployed")
    assert {name: c["state"] for name, c in data["components"].items()} == {
        "front.vm": "deleted", "front.site": "deleted", "front": "deleted"}
    assert not host.exists()


def test_a_node_substituted_by_a_template_of_its_csar_runs_on_the_mapped_host(
        workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(FIXTURES / "counting"), "--cloud", "local")
    assert (code, data["status"]) == (0, "ok"), data["error"]
    assert list(data["components"]) == ["vm", "counter.adder", "counter"]
    stack = data["model"]["tosca"]["stack"]
    # the outer node's requirement host (vm) is the inner adder's: it ran on vm's host
    host = workdir / ".laguna" / "cloud" / "hosts" / stack / "tosca_vm"
    assert (host / "total.txt").read_text() == "42\n"
    assert data["components"]["counter"]["attributes"]["total"] == "42"
    assert data["outputs"] == {"total": "42"}

    # an inner node is reached by its name, as any node is
    code, data = laguna(workdir, "action", "counting", "counter.adder", "Standard.create")
    assert (code, data["status"]) == (0, "ok"), data["error"]
    assert data["components"]["counter.adder"]["state"] == "created"

    code, data = laguna(workdir, "undeploy", "counting")
    assert (code, data["state"]) == (0, "undeployed")
    assert not host.exists()
