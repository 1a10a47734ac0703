"""The isolation and address range a working directory's local cloud keeps."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from laguna.cloud import IsolationError
from laguna.cloud.factory import local_cloud
from laguna.cloud.local.settings import CloudSettings, choose_settings, load_settings

needs_netns = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                 reason="needs root and iproute2")


def test_without_settings_the_loopback_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path) == CloudSettings("loopback", "127.42.0.0/16")
    assert choose_settings(tmp_path) == CloudSettings("loopback", "127.42.0.0/16")
    assert not (tmp_path / "settings.json").exists()


@needs_netns
def test_a_changed_isolation_brings_its_own_range_and_is_kept(tmp_path: Path) -> None:
    assert choose_settings(tmp_path, "netns") == CloudSettings("netns", "198.18.0.0/15")
    assert json.loads((tmp_path / "settings.json").read_text()) == {
        "isolation": "netns", "address_range": "198.18.0.0/15"}
    # later commands name nothing and get what was kept
    assert choose_settings(tmp_path) == CloudSettings("netns", "198.18.0.0/15")
    assert choose_settings(tmp_path, address_range="198.19.7.0/24") == \
        CloudSettings("netns", "198.19.7.0/24")
    assert load_settings(tmp_path) == CloudSettings("netns", "198.19.7.0/24")


def test_the_local_cloud_is_made_with_the_kept_settings(tmp_path: Path) -> None:
    choose_settings(tmp_path, address_range="127.43.0.0/24")
    cloud = local_cloud(tmp_path, agent_command=["true"])
    assert (cloud.isolation, cloud.network) == ("loopback", "127.43.0.0/24")


@pytest.mark.parametrize(("isolation", "address_range", "message"), [
    ("vlan", None, "unknown isolation 'vlan': loopback or netns"),
    ("loopback", "10.0.0.0/8",
     "address range '10.0.0.0/8' of isolation 'loopback' must lie in 127.0.0.0/8"),
    ("loopback", "127.42.0.0/33",
     "address range '127.42.0.0/33' is not a network: "
     "'127.42.0.0/33' does not appear to be an IPv4 or IPv6 network"),
    ("loopback", "127.42.0.1/16",
     "address range '127.42.0.1/16' is not a network: 127.42.0.1/16 has host bits set"),
    ("loopback", "127.42.0.0/31",
     "address range '127.42.0.0/31' must be an IPv4 network of at least 4 addresses"),
])
def test_bad_settings_are_refused_and_nothing_is_kept(
        tmp_path: Path, isolation: str, address_range: str | None, message: str) -> None:
    with pytest.raises(IsolationError) as caught:
        choose_settings(tmp_path, isolation, address_range)
    assert str(caught.value) == message
    assert not (tmp_path / "settings.json").exists()


def test_no_change_while_the_working_directory_holds_stacks(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "env-b.json").write_text("{}")
    (tmp_path / "stacks" / "env-a.json").write_text("{}")
    with pytest.raises(IsolationError) as caught:
        choose_settings(tmp_path, address_range="127.43.0.0/24")
    assert str(caught.value) == (
        "the hosts of this working directory use isolation 'loopback' with addresses "
        "of 127.42.0.0/16; undeploy its environments (stacks env-a, env-b) before "
        "changing to isolation 'loopback' with 127.43.0.0/24")
    assert load_settings(tmp_path) == CloudSettings()
    # asking for what is already kept is no change
    assert choose_settings(tmp_path, "loopback", "127.42.0.0/16") == CloudSettings()
