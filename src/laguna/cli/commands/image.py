"""``laguna image``: the image map of the container cloud (``.laguna/images.json``)."""

from __future__ import annotations

import json
import typing as t

import click

from laguna.cli.workdirs import current_workdir, workdir_option
from laguna.cloud.containers import images as image_map
from laguna.cloud.containers.podman import Podman
from laguna.cloud.errors import CloudError


def _map() -> image_map.ImageMap:
    return image_map.ImageMap(current_workdir().state_dir / image_map.IMAGES_FILE)


def _podman() -> Podman:
    from laguna.cloud.containers.settings import ContainerSettings
    settings = ContainerSettings.load(current_workdir().cloud_dir / "containers")
    return Podman(settings)


@click.group("image")
def image() -> None:
    """List, alias, build and remove the container cloud's images."""


@image.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@workdir_option
def list_images(as_json: bool) -> None:
    """List the image map: each name, its OCI reference and whether podman has it."""
    images = _map()
    entries = images.entries()
    try:
        podman: Podman | None = _podman()
    except CloudError:
        podman = None      # the map is still shown
    rows: list[dict[str, t.Any]] = []
    for name in sorted(entries):
        _, reference = images.resolve(name)
        present = podman.exists("image", reference) if podman is not None else None
        rows.append({"name": name, "image": entries[name], "reference": reference,
                     "present": present, "default": name == images.default,
                     "buildable": name in image_map.RECIPES})
    if as_json:
        click.echo(json.dumps({"default": images.default, "images": rows}, indent=2))
        return
    for row in rows:
        state = {True: "present", False: "missing", None: "unknown (no podman)"}[row["present"]]
        notes = [state] + (["default"] if row["default"] else []) \
            + (["laguna image build"] if row["buildable"] and not row["present"] else [])
        target = row["image"] if row["image"] == row["reference"] \
            else f"{row['image']} -> {row['reference']}"
        click.echo(f"{row['name']}\t{target}\t{', '.join(notes)}")


@image.command("alias")
@click.argument("name")
@click.argument("target")
@click.option("--default", "make_default", is_flag=True,
              help="Servers without an image get this one.")
@workdir_option
def alias(name: str, target: str, make_default: bool) -> None:
    """Make NAME (a server's image) stand for TARGET: an OCI reference or another name."""
    try:
        _map().alias(name, target, default=make_default)
    except CloudError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{name} -> {target}{' (default)' if make_default else ''}")


@image.command("build")
@click.argument("name", default=image_map.DEFAULT_ALIAS)
@click.option("--force", is_flag=True, help="Build even if podman has the image.")
@click.option("--mirror", default=image_map.DEFAULT_MIRROR, show_default=True,
              help="The Debian archive to build from.")
@workdir_option
def build(name: str, force: bool, mirror: str) -> None:
    """Build image NAME (default: debian-12) from the Debian archive, unless podman has it."""
    try:
        image_map.recipe(name)          # an unknown name fails before podman is looked for
        image_map.build(_podman(), name, mirror=mirror, force=force,
                        progress=lambda line: click.echo(line, err=True))
    except CloudError as error:
        raise click.ClickException(str(error)) from None


@image.command("remove")
@click.argument("name")
@click.option("--purge", is_flag=True,
              help="Also remove the image from podman's storage.")
@workdir_option
def remove(name: str, purge: bool) -> None:
    """Remove NAME from the image map (--purge: and its image from podman's storage)."""
    images = _map()
    try:
        _, reference = images.resolve(name)
        if name in images.own() or not purge:
            images.remove(name)     # a built-in name: only its image may go
        if purge:
            podman = _podman()
            if podman.exists("image", reference):
                podman.run("rmi", reference)
    except CloudError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"removed {name}{f' and image {reference}' if purge else ''}")
