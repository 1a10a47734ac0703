"""The resources of an operation, for every front end: the environment's cloud
(the local one unless another was chosen: :mod:`.choice`) and its agents.

Each cloud's driver is imported when it is first used: ``local``
(:mod:`laguna.cloud.local`, through :func:`laguna.cloud.factory.local_cloud`,
with the isolation its state keeps), ``containers``
(``laguna.cloud.containers.open_cloud(state_dir)``) and ``ssh``
(``laguna.cloud.ssh.open_cloud(state_dir, inventory)``). A driver that is not
installed is a CloudUnavailable naming the kind. A dry run gets a recording
cloud and recording agents, which start and keep nothing.

The environment's clouds of other kinds than its own (:meth:`Resources.on`)
are opened the same way when first asked for, with the inventory the
environment keeps, and record their stacks in its choice with their kind.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from pathlib import Path

from laguna.cloud.base import Cloud, Offer
from laguna.hosts.choice import (KINDS, CloudChoice, CloudRequest, TrackedCloud, choose,
                                 keep_choice, kept_choice)
from laguna.hosts.errors import CloudUnavailable
from laguna.hosts.resources import Progress, Resources, agent_client, recording_agent

#: the module of each cloud driver but the local one, which has its own factory
DRIVERS = {"containers": "laguna.cloud.containers", "ssh": "laguna.cloud.ssh"}


def open_cloud(kind: str, state_dir: Path, inventory: Path | None = None,
               progress: Progress | None = None) -> Cloud:
    """The cloud of ``kind`` whose state lives in ``state_dir`` (each driver keeps
    its files in a folder of its own there); ``progress`` hears its steps (the
    container and ssh clouds': image builds, container starts, host keys)."""
    if kind == "local":
        from laguna.cloud.factory import local_cloud
        return local_cloud(state_dir)
    module_name = DRIVERS.get(kind)
    if module_name is None:
        raise CloudUnavailable(f"unknown cloud {kind!r}: expected one of {', '.join(KINDS)}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and module_name.startswith(error.name):
            raise CloudUnavailable(f"the {kind} cloud is not available here: its driver "
                                   f"{module_name} is not installed") from None
        raise CloudUnavailable(f"the {kind} cloud cannot be loaded: {error}") from error
    opener = getattr(module, "open_cloud", None)
    if opener is None:
        raise CloudUnavailable(f"the {kind} cloud's driver {module_name} has no open_cloud")
    told = {"progress": progress} if progress is not None else {}
    cloud: Cloud = (opener(state_dir, inventory, **told) if kind == "ssh"
                    else opener(state_dir, **told))
    return cloud


def open_resources(kind: str, state_dir: Path, *, inventory: Path | None = None,
                   dry_run: bool = False, progress: Progress | None = None) -> Resources:
    """The cloud of ``kind`` and an agent client per host; for a dry run, a
    recording cloud and recording agents."""
    if dry_run:
        from laguna.cloud.recording import RecordingCloud
        return Resources(RecordingCloud(), recording_agent, "recording")
    return Resources(open_cloud(kind, state_dir, inventory, progress), agent_client, kind)


def host_resources(state_dir: Path, environment_id: str, dry_run: bool,
                   cloud: CloudRequest | None = None,
                   progress: Progress | None = None) -> Resources:
    """The deployment layer's ResourcesFactory: the environment's cloud as kept
    under ``state_dir``, changed by ``cloud`` (a deploy's ``--cloud``), its
    stacks recorded as they come and go; a dry run checks the request and
    records."""
    choice = choose(state_dir, environment_id, cloud, keep=False)
    resources = open_resources(choice.kind, state_dir, inventory=choice.inventory,
                               dry_run=dry_run, progress=progress)
    others = _Others(state_dir, environment_id, choice, dry_run, progress)
    if dry_run or resources.cloud is None:
        return dataclasses.replace(resources, others=others)
    # kept once its driver opened: a kind that cannot open is not remembered
    if kept_choice(state_dir, environment_id) != choice:
        keep_choice(state_dir, environment_id, choice)
    return dataclasses.replace(
        resources, cloud=TrackedCloud(resources.cloud, state_dir, environment_id, choice),
        others=others)


class _Others:
    """The environment's clouds of other kinds, each opened once, when first asked for."""

    def __init__(self, state_dir: Path, environment_id: str, choice: CloudChoice,
                 dry_run: bool, progress: Progress | None) -> None:
        self.state_dir = state_dir
        self.environment_id = environment_id
        self.choice = choice
        self.dry_run = dry_run
        self.progress = progress
        self.opened: dict[str, Cloud] = {}
        self._lock = threading.Lock()

    def __call__(self, kind: str) -> Cloud:
        with self._lock:
            if kind not in self.opened:
                self.opened[kind] = self._open(kind)
            return self.opened[kind]

    def _open(self, kind: str) -> Cloud:
        if kind not in KINDS:
            raise CloudUnavailable(f"unknown cloud {kind!r}: expected one of "
                                   f"{', '.join(KINDS)}")
        if self.dry_run:
            from laguna.cloud.recording import RecordingCloud
            return RecordingCloud()
        opened = open_cloud(kind, self.state_dir,
                            self.choice.inventory if kind == "ssh" else None, self.progress)
        if kept_choice(self.state_dir, self.environment_id) is None:
            keep_choice(self.state_dir, self.environment_id, self.choice)
        return TrackedCloud(opened, self.state_dir, self.environment_id, self.choice, kind)


def cloud_offer(state_dir: Path, environment_id: str | None,
                cloud: CloudRequest | None = None) -> Offer:
    """What the environment's cloud (as kept under ``state_dir``, changed by
    ``cloud``; no environment yet: the one ``cloud`` asks for, else the local
    one) offers its forms: flavors, images, key pairs, zones and networks. The
    driver is opened to ask it, and nothing is kept."""
    choice = choose(state_dir, environment_id or "", cloud, keep=False)
    return open_cloud(choice.kind, state_dir, choice.inventory).offer()
