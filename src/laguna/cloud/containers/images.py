"""The image map of a working directory, and the images laguna builds.

A server's ``image`` (MuranoPL ``Instance.image``, TOSCA's os capability or
``image`` property, a descriptor's resource property) names an entry of the
map, kept in ``.laguna/images.json``::

    {"default": "debian-12",
     "images": {"debian-12": "localhost/laguna/debian:12", "web": "debian-12"}}

An entry's value is an OCI image reference or another entry's name. A server
without an image gets the default entry. The built-in entry ``debian-12`` is
always there (unless the map gives it another value); laguna builds its image
from the Debian archive (mmdebstrap, then ``podman import``), because no
container registry may be reachable; the image is cached in podman's storage,
and a build is skipped while it is there.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import shutil
import subprocess
import tempfile
import time
import typing as t
from pathlib import Path

from laguna.cloud.containers.podman import Podman
from laguna.cloud.errors import CloudError

IMAGES_FILE = "images.json"
DEFAULT_ALIAS = "debian-12"
DEFAULT_MIRROR = "http://deb.debian.org/debian"


@dataclasses.dataclass(frozen=True)
class Recipe:
    """An image laguna makes from the Debian archive."""

    reference: str
    suite: str
    packages: tuple[str, ...]


#: python3 for the agent; sudo, iptables, procps that minbase lacks and
#: murano-apps scripts use; a policy-rc.d that lets services start
RECIPES: dict[str, Recipe] = {
    DEFAULT_ALIAS: Recipe("localhost/laguna/debian:12", "bookworm",
                          ("python3", "sudo", "iptables", "procps", "ca-certificates")),
}
POLICY_RC_D = "#!/bin/sh\n# laguna: services may start\nexit 0\n"


class ImageError(CloudError):
    """An unknown image, a map that cannot be read, a failed build."""


class ImageMap:
    """``.laguna/images.json``: image names -> OCI references."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> tuple[str, dict[str, str]]:
        if not self.path.is_file():
            return DEFAULT_ALIAS, {}
        try:
            data = json.loads(self.path.read_text())
        except ValueError as error:
            raise ImageError(f"{self.path}: not JSON: {error}") from None
        images = data.get("images", {}) if isinstance(data, dict) else None
        default = data.get("default", DEFAULT_ALIAS) if isinstance(data, dict) else None
        if (not isinstance(images, dict) or not isinstance(default, str)
                or not all(isinstance(k, str) and isinstance(v, str)
                           for k, v in images.items())):
            raise ImageError(f"{self.path}: expected {{\"default\": NAME, \"images\": "
                             "{NAME: REFERENCE, ...}}")
        return default, images

    def _write(self, default: str, images: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        temporary.write_text(json.dumps({"default": default, "images": images},
                                        indent=2, sort_keys=True) + "\n")
        temporary.replace(self.path)

    @property
    def default(self) -> str:
        return self._read()[0]

    def own(self) -> dict[str, str]:
        """The entries the file holds (built-in ones not overridden left out)."""
        return self._read()[1]

    def entries(self) -> dict[str, str]:
        """Every name with its value, the built-in ones included."""
        images = {name: recipe.reference for name, recipe in RECIPES.items()}
        images.update(self._read()[1])
        return images

    def alias(self, name: str, target: str, *, default: bool = False) -> None:
        if not name or any(c.isspace() for c in name):
            raise ImageError(f"an image name without spaces is needed, not {name!r}")
        current, images = self._read()
        images[name] = target
        self._write(name if default else current, images)

    def set_default(self, name: str) -> None:
        if name not in self.entries():
            raise ImageError(self.unknown(name))
        self._write(name, self._read()[1])

    def remove(self, name: str) -> None:
        current, images = self._read()
        if name not in images:
            if name in RECIPES:
                raise ImageError(f"{name!r} is built in; it cannot be removed from the map")
            raise ImageError(self.unknown(name))
        del images[name]
        self._write(DEFAULT_ALIAS if current == name else current, images)

    def unknown(self, name: str) -> str:
        listing = "; ".join(f"{k} -> {v}" for k, v in sorted(self.entries().items()))
        return (f"unknown image {name!r}: the image map ({self.path}) has {listing} "
                f"(add one with `laguna image alias {name} REFERENCE`)")

    def resolve(self, name: str | None) -> tuple[str, str]:
        """(the entry's name, its OCI reference) for a server's ``image``; the
        default entry for none. An entry may name another entry, once."""
        entries = self.entries()
        chosen = name or self.default
        if chosen not in entries:
            raise ImageError(self.unknown(chosen))
        value = entries[chosen]
        if value in entries and value != chosen:
            chosen, value = value, entries[value]
        return chosen, value


def recipe(name: str) -> Recipe:
    """How laguna builds image ``name`` (ImageError if it does not)."""
    found = RECIPES.get(name)
    if found is None:
        raise ImageError(f"laguna builds only {', '.join(sorted(RECIPES))}, not {name!r}; "
                         "other images come from a registry or `podman import`")
    return found


def build(podman: Podman, name: str, *, mirror: str = DEFAULT_MIRROR,
          force: bool = False, progress: t.Callable[[str], None] = lambda line: None,
          timeout: float = 1800.0) -> tuple[str, float | None]:
    """Build the built-in image ``name`` unless podman's storage holds it
    (``force``: build again): its reference and the seconds the build took
    (None if skipped)."""
    recipe_ = recipe(name)
    # one build of an image at a time on this machine: the others wait, then skip it
    lock = Path(tempfile.gettempdir()) / f"laguna-image-{name}.lock"
    with open(lock, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return _build(podman, name, recipe_, mirror, force, progress, timeout)


def _build(podman: Podman, name: str, recipe: Recipe, mirror: str, force: bool,
           progress: t.Callable[[str], None], timeout: float) -> tuple[str, float | None]:
    if not force and podman.exists("image", recipe.reference):
        progress(f"image {name} ({recipe.reference}) is already built")
        return recipe.reference, None
    if shutil.which("mmdebstrap") is None:
        raise ImageError("mmdebstrap is not installed: apt-get install mmdebstrap")
    progress(f"building image {name} ({recipe.reference}) from {mirror} "
             f"({recipe.suite}: {', '.join(recipe.packages)})")
    started = time.monotonic()
    hook = ("printf '%s' " + _quote(POLICY_RC_D) + " > \"$1/usr/sbin/policy-rc.d\" && "
            "chmod 755 \"$1/usr/sbin/policy-rc.d\"")
    bootstrap = ["mmdebstrap", "--variant=minbase", "--quiet",
                 f"--include={','.join(recipe.packages)}",
                 # mmdebstrap's own policy-rc.d forbids services; ours allows them
                 "--skip=chroot/policy-rc.d", f"--customize-hook={hook}",
                 recipe.suite, "-", mirror]
    with subprocess.Popen(bootstrap, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as tarball:
        assert tarball.stdout is not None
        try:
            imported = podman.run("import", "--change", "CMD=/bin/bash", "-",
                                  recipe.reference, check=False, timeout=timeout,
                                  stdin=tarball.stdout)
        finally:
            tarball.stdout.close()
        errors = tarball.stderr.read().decode(errors="replace") if tarball.stderr else ""
        tarball.wait(timeout)
    if tarball.returncode != 0:
        if imported.returncode == 0:
            podman.run("rmi", recipe.reference, check=False)
        raise ImageError(f"mmdebstrap failed (exit {tarball.returncode}): {errors[-2000:]}")
    if imported.returncode != 0:
        raise ImageError(f"podman import failed: {imported.stderr.strip()[-2000:]}")
    took = time.monotonic() - started
    progress(f"built image {name} ({recipe.reference}) in {took:.0f} s")
    return recipe.reference, took


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
