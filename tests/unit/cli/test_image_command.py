"""``laguna image``: the working directory's image map (.laguna/images.json)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli


def image(workdir: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["image", *args, "--workdir", str(workdir)])
    return result.exit_code, result.output


def test_alias_list_and_remove_keep_the_map_in_the_working_directory(tmp_path: Path) -> None:
    assert image(tmp_path, "alias", "web", "debian-12") == (0, "web -> debian-12\n")
    assert image(tmp_path, "alias", "mine", "localhost/me/mine:1", "--default") == \
        (0, "mine -> localhost/me/mine:1 (default)\n")
    kept = json.loads((tmp_path / ".laguna" / "images.json").read_text())
    assert kept == {"default": "mine", "images": {"mine": "localhost/me/mine:1",
                                                  "web": "debian-12"}}
    code, listing = image(tmp_path, "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(listing)["images"]}
    assert set(rows) == {"debian-12", "mine", "web"}
    assert rows["web"]["reference"] == "localhost/laguna/debian:12"
    assert (rows["mine"]["default"], rows["debian-12"]["buildable"]) == (True, True)
    if shutil.which("podman") is None:
        assert rows["mine"]["present"] is None
    code, text = image(tmp_path, "list")
    assert code == 0 and "web\tdebian-12 -> localhost/laguna/debian:12\t" in text
    assert image(tmp_path, "remove", "mine") == (0, "removed mine\n")
    assert json.loads((tmp_path / ".laguna" / "images.json").read_text())["default"] == \
        "debian-12"


def test_unknown_names_and_built_in_ones_are_refused_clearly(tmp_path: Path) -> None:
    code, text = image(tmp_path, "remove", "nope")
    assert code == 1 and "unknown image 'nope'" in text and "debian-12 -> " in text
    code, text = image(tmp_path, "remove", "debian-12")
    assert code == 1 and "'debian-12' is built in" in text
    code, text = image(tmp_path, "build", "ubuntu")
    assert code == 1 and "laguna builds only debian-12, not 'ubuntu'" in text


def test_build_is_skipped_while_podman_has_the_image(tmp_path: Path) -> None:
    if shutil.which("podman") is None:
        return      # the build itself runs in .ci/run, where podman is installed
    code, text = image(tmp_path, "build")
    assert code == 0, text
    # a second build finds the first's (CliRunner mixes stderr into the output)
    assert image(tmp_path, "build") == (
        0, "image debian-12 (localhost/laguna/debian:12) is already built\n")
