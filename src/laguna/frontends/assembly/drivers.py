"""Lifecycle drivers: how a transition or an operation of a resource runs.

The engine knows only :class:`Driver`; the ``shell`` driver of the spec page
runs ``sh <package>/Lifecycle/shell/scripts/<Name>.sh`` with ``LAGUNA_*`` and
``PROP_*`` variables and reads ``output__KEY=VALUE`` lines. Another driver
(Ansible, as CP4NA has) registers under its ``default-driver`` key.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import typing as t
from pathlib import Path

from laguna.frontends.assembly.names import env_name
from laguna.frontends.assembly.values import text_of

OUTPUT_PREFIX = "output__"


@dataclasses.dataclass(frozen=True)
class Request:
    """One script run: what runs, for which instance, with which properties."""

    package: Path
    name: str
    workdir: Path
    variables: t.Mapping[str, str]
    properties: t.Mapping[str, t.Any]


@dataclasses.dataclass(frozen=True)
class Reply:
    exit_code: int
    outputs: dict[str, str]
    stdout: str
    stderr: str


class Driver(t.Protocol):
    def available(self, package: Path, name: str) -> bool:
        """Whether the package has something to run for ``name``."""
        ...

    def run(self, request: Request) -> Reply:
        ...

    def release(self, instance: str) -> None:
        """The instance is gone: free what the driver keeps for it (a host...)."""
        ...


def environment(request: Request, base: t.Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not k.startswith(("PROP_", "LAGUNA_"))}
    env.update(request.variables)
    for key, value in request.properties.items():
        env[f"PROP_{env_name(key)}"] = text_of(value)
    return env


def parse_outputs(stdout: str) -> dict[str, str]:
    outputs = {}
    for line in stdout.splitlines():
        if line.startswith(OUTPUT_PREFIX) and "=" in line:
            key, _, value = line[len(OUTPUT_PREFIX):].partition("=")
            outputs[key] = value
    return outputs


class ShellDriver:
    """Runs package scripts with ``sh`` on this machine, in the working directory."""

    def __init__(self, environ: t.Mapping[str, str] | None = None,
                 timeout: float = 600.0) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.timeout = timeout

    @staticmethod
    def script(package: Path, name: str) -> Path:
        return package / "Lifecycle" / "shell" / "scripts" / f"{name}.sh"

    def available(self, package: Path, name: str) -> bool:
        return self.script(package, name).is_file()

    def release(self, instance: str) -> None:
        """Nothing is kept for an instance on this machine."""

    def run(self, request: Request) -> Reply:
        script = self.script(request.package, request.name)
        try:
            done = subprocess.run(["sh", str(script)], cwd=request.workdir,
                                  env=environment(request, self.environ),
                                  capture_output=True, text=True, timeout=self.timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as expired:
            return Reply(124, {}, str(expired.stdout or ""), f"timed out after {self.timeout}s")
        return Reply(done.returncode, parse_outputs(done.stdout), done.stdout, done.stderr)


class RecordingDriver:
    """Runs nothing and answers success: what a dry run would run, in ``plan``."""

    def __init__(self) -> None:
        self.plan: list[dict[str, t.Any]] = []

    def available(self, package: Path, name: str) -> bool:
        return ShellDriver.script(package, name).is_file()

    def release(self, instance: str) -> None:
        pass

    def run(self, request: Request) -> Reply:
        # in the shape of the shared plan (an agent plan for a host: the instance)
        self.plan.append({"kind": "agent", "host": request.variables.get(
            "LAGUNA_INSTANCE_NAME"), "plan": {
                "transition": request.name,
                "script": str(ShellDriver.script(request.package, request.name))}})
        return Reply(0, {}, "", "")


DRIVERS: dict[str, t.Callable[[], Driver]] = {"shell": ShellDriver}
