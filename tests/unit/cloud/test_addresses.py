"""The machine-wide address registry."""

from __future__ import annotations

import json
from pathlib import Path

from laguna.cloud.local.addresses import AddressPool


def pool(tmp_path: Path, owner: str, network: str = "127.0.0.0/30") -> AddressPool:
    (tmp_path / owner).mkdir(exist_ok=True)
    return AddressPool(network, tmp_path / "registry", tmp_path / owner)


def test_never_127_0_0_1_and_never_twice(tmp_path: Path) -> None:
    # 127.0.0.0/30 holds .0 (skipped), .1 (reserved), .2 and .3
    first, second = pool(tmp_path, "a"), pool(tmp_path, "b")
    got = {first.allocate("env-1", "web"), second.allocate("env-1", "web")}
    assert got == {"127.0.0.2", "127.0.0.3"}


def test_entry_names_its_owner(tmp_path: Path) -> None:
    a = pool(tmp_path, "a", "127.9.0.0/24")
    address = a.allocate("env-1", "web")
    assert json.loads((tmp_path / "registry" / address).read_text()) == {
        "owner": str(tmp_path / "a"), "stack": "env-1", "resource": "web"}
    assert a.owned("env-1") == {address: "web"}
    assert a.owned("env-2") == {}


def test_release_frees_only_the_stacks_own_address(tmp_path: Path) -> None:
    a = pool(tmp_path, "a", "127.9.0.0/24")
    address = a.allocate("env-1", "web")
    a.release(address, "env-2")
    assert a.owned("env-1") == {address: "web"}
    a.release(address, "env-1")
    assert a.owned("env-1") == {}


def test_address_of_a_removed_working_directory_is_taken_over(tmp_path: Path) -> None:
    gone = pool(tmp_path, "gone")
    b = pool(tmp_path, "b")
    taken = {gone.allocate("env-1", "x"), gone.allocate("env-1", "y")}
    (tmp_path / "gone").rmdir()
    assert {b.allocate("env-1", "web"), b.allocate("env-1", "db")} == taken
    assert sorted(p.name for p in (tmp_path / "registry").iterdir()) == sorted(taken)
