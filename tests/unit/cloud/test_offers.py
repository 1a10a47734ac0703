"""What each cloud driver offers the forms (docs/CLOUD.md, "What a cloud
offers"): the exact lists, each default first, and the environment's cloud
chosen by what is kept with it."""

from __future__ import annotations

import json
from pathlib import Path

from laguna.cloud.containers import open_cloud as open_containers
from laguna.cloud.factory import local_cloud
from laguna.cloud.offers import LOCAL_OFFER, Offer
from laguna.cloud.recording import RecordingCloud
from laguna.cloud.ssh.driver import SshCloud
from laguna.forms import LOCAL_CHOICES
from laguna.hosts.choice import CloudChoice, keep_choice
from laguna.hosts.factory import cloud_offer
from tests.unit.cloud.test_containers import needs_podman


def test_the_local_cloud_and_a_dry_run_offer_the_usual_names(tmp_path: Path) -> None:
    expected = {"flavors": ["m1.small", "m1.tiny", "m1.medium", "m1.large"],
                "images": ["ubuntu", "debian"], "keypairs": [""], "zones": ["nova"],
                "networks": ["auto"]}
    assert local_cloud(tmp_path / "cloud").offer().to_json() == expected
    assert RecordingCloud().offer().to_json() == expected
    # the forms' default for callers without a cloud is the local cloud's offer
    assert {k: list(v) for k, v in LOCAL_CHOICES.to_mapping().items()} == expected


def write_image_map(workdir: Path) -> None:
    (workdir / ".laguna").mkdir(parents=True, exist_ok=True)
    (workdir / ".laguna" / "images.json").write_text(json.dumps(
        {"default": "web", "images": {"web": "debian-12", "alpine": "docker.io/alpine:3"}}))


@needs_podman
def test_the_container_cloud_offers_its_image_map_default_first(tmp_path: Path) -> None:
    write_image_map(tmp_path)
    offer = open_containers(tmp_path / ".laguna" / "cloud").offer()
    assert offer == Offer(flavors=("m1.small", "m1.tiny", "m1.medium", "m1.large"),
                          images=("web", "alpine", "debian-12"), keypairs=("",),
                          zones=("nova",), networks=("auto",))


@needs_podman
def test_without_a_map_the_container_cloud_offers_its_built_in_image(tmp_path: Path) -> None:
    offer = open_containers(tmp_path / ".laguna" / "cloud").offer()
    assert offer.images == ("debian-12",)


def write_inventory(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "inventory.yaml"
    path.write_text("machines:\n"
                    "  - {address: 192.0.2.1, user: u, agent: true, labels: [web, ssd]}\n"
                    "  - {address: 192.0.2.2, user: u, agent: true, labels: [db, any]}\n"
                    "  - {address: 192.0.2.3, user: u, agent: true}\n")
    return path


def test_the_ssh_cloud_offers_its_inventory_labels_after_any(tmp_path: Path) -> None:
    cloud = SshCloud(tmp_path / "cloud", write_inventory(tmp_path))
    assert cloud.offer() == Offer(flavors=("any", "db", "ssd", "web"),
                                  images=("any", "db", "ssd", "web"), keypairs=("",),
                                  zones=("nova",), networks=("auto",))


@needs_podman
def test_an_environment_s_offer_is_its_kept_cloud_s(tmp_path: Path) -> None:
    state_dir = tmp_path / ".laguna" / "cloud"
    write_image_map(tmp_path)
    keep_choice(state_dir, "env-c", CloudChoice("containers"))
    keep_choice(state_dir, "env-s", CloudChoice("ssh", write_inventory(tmp_path / "inv")))
    assert cloud_offer(state_dir, "env-c").images == ("web", "alpine", "debian-12")
    assert cloud_offer(state_dir, "env-s").images == ("any", "db", "ssd", "web")
    assert cloud_offer(state_dir, "env-new") == LOCAL_OFFER
    assert cloud_offer(state_dir, None) == LOCAL_OFFER
