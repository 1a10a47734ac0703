"""Which cloud an environment uses, kept in the cloud's state folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.cloud.recording import RecordingCloud
from laguna.hosts.choice import (CloudChoice, CloudRequest, TrackedCloud, choose,
                                 keep_choice, kept_choice)
from laguna.hosts.errors import CloudSwitchRefused, CloudUnavailable


def test_without_a_choice_an_environment_is_on_the_local_cloud(tmp_path: Path) -> None:
    assert choose(tmp_path, "env1", None) == CloudChoice("local")
    assert kept_choice(tmp_path, "env1") is None


def test_here_and_nothing_ask_for_no_cloud(tmp_path: Path) -> None:
    assert CloudRequest.of(None) is None
    assert CloudRequest.of("here") is None
    assert CloudRequest.of("ssh", Path("inv.yaml")) == \
        CloudRequest("ssh", Path("inv.yaml").resolve())


def test_a_request_is_kept_and_found_again(tmp_path: Path) -> None:
    inventory = tmp_path / "inventory.yaml"
    chosen = choose(tmp_path, "env1", CloudRequest("ssh", inventory))
    assert chosen == CloudChoice("ssh", inventory)
    assert kept_choice(tmp_path, "env1") == chosen
    assert choose(tmp_path, "env1", None) == chosen
    # the kind alone keeps the inventory; another environment has its own
    assert choose(tmp_path, "env1", CloudRequest("ssh")) == chosen
    assert choose(tmp_path, "env2", None) == CloudChoice("local")


def test_a_dry_choice_keeps_nothing(tmp_path: Path) -> None:
    choose(tmp_path, "env1", CloudRequest("containers"), keep=False)
    assert kept_choice(tmp_path, "env1") is None


def test_another_cloud_is_refused_while_the_environment_holds_stacks(tmp_path: Path) -> None:
    keep_choice(tmp_path, "env1", CloudChoice("containers", stacks=("tosca-env1",)))
    with pytest.raises(CloudSwitchRefused, match=r"on the containers cloud \(stacks "
                                                 r"tosca-env1\): it cannot use the local "
                                                 r"cloud until it is undeployed there"):
        choose(tmp_path, "env1", CloudRequest("local"))
    # the same kind is no switch
    assert choose(tmp_path, "env1", CloudRequest("containers")).kind == "containers"
    keep_choice(tmp_path, "env1", CloudChoice("containers"))
    assert choose(tmp_path, "env1", CloudRequest("local")) == CloudChoice("local")


def test_unknown_kinds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CloudUnavailable, match="unknown cloud 'heat'"):
        choose(tmp_path, "env1", CloudRequest("heat"))


def test_an_inventory_is_kept_whatever_the_kind(tmp_path: Path) -> None:
    # servers placed on the ssh cloud by their location need it as much as an
    # environment deployed there
    inventory = tmp_path / "inv.yaml"
    assert choose(tmp_path, "env1", CloudRequest(None, inventory)) == \
        CloudChoice("local", inventory)
    assert choose(tmp_path, "env1", CloudRequest("containers")) == \
        CloudChoice("containers", inventory)


def test_the_tracked_cloud_records_the_environments_stacks(tmp_path: Path) -> None:
    cloud = TrackedCloud(RecordingCloud(), tmp_path, "env1", CloudChoice("containers"))
    cloud.push_stack("tosca-env1", {"heat_template_version": "2015-10-15", "resources": {}})
    cloud.push_stack("other", {"heat_template_version": "2015-10-15", "resources": {}})
    assert kept_choice(tmp_path, "env1") == CloudChoice("containers",
                                                        stacks=("tosca-env1", "other"))
    assert sorted(cloud.stacks()) == ["other", "tosca-env1"]
    cloud.delete_stack("tosca-env1")
    cloud.delete_stack("other")
    assert kept_choice(tmp_path, "env1") == CloudChoice("containers")


def test_the_local_stacks_of_an_environment_kept_before_choices_count(tmp_path: Path) -> None:
    from laguna.cloud.local.statefiles import StateFiles
    folder = tmp_path / "stacks"
    folder.mkdir()
    (folder / "murano-0123456789abcdef.json").write_text("{}")
    assert StateFiles(folder).stacks() == ["murano-0123456789abcdef"]
    with pytest.raises(CloudSwitchRefused, match="murano-0123456789abcdef"):
        choose(tmp_path, "0123456789abcdef", CloudRequest("containers"))


def test_stacks_on_other_clouds_are_recorded_with_their_kind(tmp_path: Path) -> None:
    choice = CloudChoice("local")
    local = TrackedCloud(RecordingCloud(), tmp_path, "env1", choice)
    containers = TrackedCloud(RecordingCloud(), tmp_path, "env1", choice, "containers")
    empty = {"heat_template_version": "2015-10-15", "resources": {}}
    local.push_stack("tosca-env1", empty)
    containers.push_stack("tosca-env1-containers", empty)
    kept = kept_choice(tmp_path, "env1")
    assert kept == CloudChoice("local", stacks=("tosca-env1",),
                               elsewhere=(("tosca-env1-containers", "containers"),))
    assert kept.to_json()["elsewhere"] == {"tosca-env1-containers": "containers"}
    assert CloudChoice.from_json(kept.to_json()) == kept
    # a stack elsewhere does not hold the default: a switch to its kind makes it
    # the default's own
    local.delete_stack("tosca-env1")
    assert choose(tmp_path, "env1", CloudRequest("containers")) == \
        CloudChoice("containers", stacks=("tosca-env1-containers",))
    containers.delete_stack("tosca-env1-containers")
    assert kept_choice(tmp_path, "env1") == CloudChoice("containers")
