"""A three-tier assembly on local-cloud hosts: real web servers, each tier on its
own host and agent, scaled out and in, healed, upgraded and deleted, with
nothing left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from .helpers import (
    COMMAND_TIMEOUT,
    command,
    environ,
    laguna,
    nothing_left,
    unreachable,
    wait_for_page,
)

HERE = Path(__file__).with_name("assembly")
CATALOG = ["-l", str(HERE)]


def _urls(data: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {name: c["properties"]["url"] for name, c in data["components"].items()}


def _server_pid(address: str) -> int:
    """The web server bound to ``address`` (the host's own address)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"http.server" in argv and address.encode() in argv:
            return int(entry.name)
    raise AssertionError(f"no web server on {address}")


def _wait_unreachable(url: str) -> bool:
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if unreachable(url):
            return True
        time.sleep(0.05)
    return False


def test_three_tier_assembly_lifecycle(workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(HERE / "three-tier.yaml"), "--name", "shop",
                        *CATALOG)
    assert (code, data["status"], data["state"]) == (0, "ok", "Active"), data
    urls = _urls(data)
    assert sorted(urls) == ["shop__app__1", "shop__db", "shop__front"]
    assert len(set(urls.values())) == 3  # a host (an address) each
    assert data["outputs"] == {"entry": urls["shop__front"]}
    wait_for_page(urls["shop__db"], "shop__db upstream=none motto=hi")
    wait_for_page(urls["shop__app__1"], f"upstream={urls['shop__db']} motto=hello")
    wait_for_page(urls["shop__front"], f"upstream={urls['shop__app__1']}")

    code, data = laguna(workdir, "intent", "shop", "scale-out", "app", *CATALOG)
    assert (code, sorted(data["components"])) == (
        0, ["shop__app__1", "shop__app__2", "shop__db", "shop__front"])
    second = _urls(data)["shop__app__2"]
    wait_for_page(second, f"shop__app__2 upstream={urls['shop__db']}")

    code, data = laguna(workdir, "intent", "shop", "scale-in", "app", *CATALOG)
    assert (code, sorted(data["components"])) == (0, ["shop__app__1", "shop__db", "shop__front"])
    assert unreachable(second)

    # the front end's server dies; heal (the resource declares Heal) restarts it
    address = urls["shop__front"].split("//")[1].split(":")[0]
    os.kill(_server_pid(address), signal.SIGTERM)
    assert _wait_unreachable(urls["shop__front"])
    code, data = laguna(workdir, "intent", "shop", "heal", "shop__front", *CATALOG)
    assert code == 0, data
    wait_for_page(urls["shop__front"], "shop__front upstream=")

    # only a volatile property changes: Reconfigure, the servers keep running
    code, data = laguna(workdir, "intent", "shop", "upgrade", "--input", "motto=bye", *CATALOG)
    assert (code, data["components"]["shop__app__1"]["properties"]["motto"]) == (0, "bye")
    wait_for_page(urls["shop__app__1"], "motto=bye")

    code, data = laguna(workdir, "intent", "shop", "delete", *CATALOG)
    assert (code, data["state"], data["components"]) == (0, None, {})
    assert all(unreachable(url) for url in urls.values())
    nothing_left(workdir)


def _package(*args: str) -> subprocess.CompletedProcess[str]:
    """`laguna package ARGS` (no working directory: the catalog store is its world)."""
    return subprocess.run(command(Path("."), "package", *args)[:-2], capture_output=True,
                          text=True, env=environ(), timeout=COMMAND_TIMEOUT, check=False)


def test_an_assembly_whose_resource_package_is_in_the_catalog_store(workdir: Path) -> None:
    store = ["--db-url", str(workdir / "catalog.sqlite")]
    imported = _package("import", str(HERE / "tier"), *store)
    assert (imported.returncode, imported.stdout.split(" (id ")[0]) == (
        0, "imported resource::e2e.tier 1.0"), imported.stderr
    code, data = laguna(workdir, "deploy", str(HERE / "three-tier.yaml"), "--name", "shop",
                        *store)
    assert (code, data["status"], data["state"]) == (0, "ok", "Active"), data
    urls = _urls(data)
    wait_for_page(urls["shop__front"], f"upstream={urls['shop__app__1']}")
    # the scripts ran from the store's archive, unpacked once into the workdir's cache
    cache = workdir / ".laguna" / "descriptors"
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["store"]

    deleted = _package("delete", "resource::e2e.tier", *store)
    assert (deleted.returncode, deleted.stdout) == (0, "deleted resource::e2e.tier 1.0.0\n")
    # the environment kept the package: a new instance installs without store or -l
    code, data = laguna(workdir, "intent", "shop", "scale-out", "app", *store)
    assert (code, data["status"]) == (0, "ok"), data
    wait_for_page(_urls(data)["shop__app__2"], f"shop__app__2 upstream={urls['shop__db']}")

    code, data = laguna(workdir, "intent", "shop", "delete")
    assert (code, data["state"], data["components"]) == (0, None, {})
    assert all(unreachable(url) for url in urls.values())
    nothing_left(workdir)
