"""Running podman with the cloud's settings, and what it needs of the machine."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import time
import typing as t

from laguna.cloud.containers.settings import ContainerSettings
from laguna.cloud.errors import CloudError

log = logging.getLogger("laguna.cloud.containers")

#: every podman object laguna makes carries these labels
CLOUD_LABEL = "laguna.cloud"
STACK_LABEL = "laguna.stack"
RESOURCE_LABEL = "laguna.resource"
MARKER_LABEL = "laguna.marker"


class PodmanError(CloudError):
    """A podman command failed."""


def check_available(settings: ContainerSettings) -> None:
    """A clear error when podman or its runtime is missing."""
    if shutil.which(settings.podman) is None:
        raise CloudError(f"podman is not installed ({settings.podman!r} is not on PATH): "
                         "apt-get install podman runc")
    if shutil.which(settings.runtime) is None:
        raise CloudError(f"the container runtime {settings.runtime!r} is not installed: "
                         f"apt-get install {settings.runtime}")


class Podman:
    def __init__(self, settings: ContainerSettings) -> None:
        check_available(settings)
        self.settings = settings
        self.base = [settings.podman, f"--cgroup-manager={settings.cgroup_manager}",
                     f"--runtime={settings.runtime}",
                     f"--events-backend={settings.events_backend}"]

    def run(self, *args: str, check: bool = True, timeout: float | None = None,
            stdin: t.IO[bytes] | None = None) -> subprocess.CompletedProcess[str]:
        argv = [*self.base, *args]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, stdin=stdin,
                                  timeout=timeout or self.settings.command_timeout)
        except subprocess.TimeoutExpired:
            raise PodmanError(f"`podman {' '.join(args[:2])}` took longer than "
                              f"{timeout or self.settings.command_timeout:g} s") from None
        if check and done.returncode != 0:
            raise PodmanError(f"`podman {' '.join(args[:3])}` failed "
                              f"(exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        return done

    def json(self, *args: str) -> t.Any:
        text = self.run(*args).stdout.strip()
        return json.loads(text) if text else []

    def exists(self, kind: str, name: str) -> bool:
        """``podman KIND exists NAME`` (image, container, volume, network)."""
        return self.run(kind, "exists", name, check=False).returncode == 0

    def labelled(self, kind: str, labels: t.Mapping[str, str]) -> list[dict[str, t.Any]]:
        """Containers (``ps -a``), volumes or networks with every label given.

        podman ORs filters on the same key, so it filters on the first label
        and the rest are checked here; a listing that fails because another
        process removed an object meanwhile is asked for again."""
        first = next(iter(labels.items()), None)
        filters = ["--filter", f"label={first[0]}={first[1]}"] if first else []
        for attempt in range(5):
            try:
                if kind == "container":
                    found = self.json("ps", "-a", *filters, "--format", "json")
                else:
                    found = self.json(kind, "ls", *filters, "--format", "json")
                break
            except PodmanError:
                if attempt == 4:
                    raise
                time.sleep(0.1)
        return [item for item in t.cast("list[dict[str, t.Any]]", found or [])
                if all((item.get("Labels") or item.get("labels") or {}).get(k) == v
                       for k, v in labels.items())]
