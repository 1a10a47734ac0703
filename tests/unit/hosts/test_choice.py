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


def test_unknown_kinds_and_misplaced_inventories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CloudUnavailable, match="unknown cloud 'heat'"):
        choose(tmp_path, "env1", CloudRequest("heat"))
    with pytest.raises(CloudUnavailable, match="an inventory is for the ssh cloud, "
                                               "not the containers cloud"):
        choose(tmp_path, "env1", CloudRequest("containers", tmp_path / "inv.yaml"))


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
