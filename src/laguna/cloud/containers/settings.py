"""The settings of a working directory's container cloud.

Kept, if a user wants other values, in ``<state>/containers/settings.json``
(any subset of the fields below); the defaults work on a Debian 12 machine
without systemd and with hybrid cgroups, where crun refuses to run and podman
may not raise ``nofile`` above 8192.
"""

from __future__ import annotations

import dataclasses
import json
import typing as t
from pathlib import Path

from laguna.cloud.errors import CloudError

SETTINGS_FILE = "settings.json"


UNKNOWN_IMAGES = ("default", "refuse")


@dataclasses.dataclass(frozen=True)
class ContainerSettings:
    #: the podman program
    podman: str = "podman"
    #: podman's ``--runtime`` (crun refuses hybrid cgroups)
    runtime: str = "runc"
    #: podman's ``--cgroup-manager`` (systemd needs a running systemd)
    cgroup_manager: str = "cgroupfs"
    #: podman's ``--events-backend`` (journald needs a journal)
    events_backend: str = "file"
    #: ``--ulimit`` values every container gets
    ulimits: tuple[str, ...] = ("nofile=8192:8192", "nproc=4096:4096")
    #: capabilities added (murano-apps scripts run iptables on their host)
    capabilities: tuple[str, ...] = ("NET_ADMIN", "SYS_PTRACE")
    #: the agent's PATH, for scripts that call service, iptables, useradd...
    path: str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    #: the program that runs the agent inside the container
    python: str = "python3"
    #: where the laguna package is mounted (read-only) inside containers
    agent_mount: str = "/opt/laguna/lib"
    #: the host's home inside the container: scripts' HOME, the agent's files
    root: str = "/root"
    #: seconds for every agent of a push to become ready
    ready_timeout: float = 60.0
    #: seconds a podman command may take (builds excepted)
    command_timeout: float = 120.0
    #: a server whose ``image`` the image map does not name: ``default`` runs it
    #: on the map's default image (said in the progress), ``refuse`` fails the
    #: push before anything starts. Templates written for a cloud name that
    #: cloud's images (``ubuntu``, ``debian-8-m-agent``): by default they run as
    #: they are, on an image with python3
    unknown_images: str = "default"

    @classmethod
    def load(cls, directory: Path) -> ContainerSettings:
        path = directory / SETTINGS_FILE
        if not path.is_file():
            return cls()
        try:
            data = json.loads(path.read_text())
        except ValueError as error:
            raise CloudError(f"{path}: not JSON: {error}") from None
        if not isinstance(data, dict):
            raise CloudError(f"{path}: a JSON object of settings is needed")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise CloudError(f"{path}: unknown setting(s) {', '.join(unknown)}; known: "
                             f"{', '.join(fields)}")
        values: dict[str, t.Any] = {}
        for name, value in data.items():
            default = getattr(cls, name)
            if isinstance(default, tuple):
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise CloudError(f"{path}: {name} must be a list of strings")
                value = tuple(value)
            elif isinstance(default, float):
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                    raise CloudError(f"{path}: {name} must be a positive number")
                value = float(value)
            elif not isinstance(value, str):
                raise CloudError(f"{path}: {name} must be a string")
            if name == "unknown_images" and value not in UNKNOWN_IMAGES:
                raise CloudError(f"{path}: unknown_images must be one of "
                                 f"{', '.join(UNKNOWN_IMAGES)}, not {value!r}")
            values[name] = value
        return cls(**values)
