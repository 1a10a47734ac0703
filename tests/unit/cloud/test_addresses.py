"""The machine-wide address registry."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from laguna.cloud import CloudError
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


def test_the_registry_and_its_entries_are_private(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    registry.mkdir()
    registry.chmod(0o755)                 # as an older laguna made it, whatever the umask
    old = os.umask(0o022)
    try:
        address = pool(tmp_path, "a", "127.9.0.0/24").allocate("env-1", "web")
    finally:
        os.umask(old)
    assert (stat.S_IMODE(registry.stat().st_mode),
            stat.S_IMODE((registry / address).stat().st_mode)) == (0o700, 0o600)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder away")
def test_a_registry_of_another_user_is_refused(tmp_path: Path) -> None:
    (tmp_path / "registry").mkdir()
    # (not mkdir's mode: the umask may be 077, which CLI tests run in this process set)
    (tmp_path / "registry").chmod(0o755)
    os.chown(tmp_path / "registry", 65534, 65534)      # made first by someone else
    with pytest.raises(CloudError) as info:
        pool(tmp_path, "a")
    assert (info.value.code, str(info.value)) == ("LAG-E1200", (
        f"the address registry {tmp_path / 'registry'} belongs to user 65534, "
        "not to this one (0)"))
    assert stat.S_IMODE((tmp_path / "registry").stat().st_mode) == 0o755   # left alone
