"""AMP's explicit happens-before controls (seed 003): BlockUntilRunning and NoOp
implementations, RequiresRunning's timeout and abort_if_on_fire, the get_attribute wait
modes, and that no wait outlives a failed deploy."""

from __future__ import annotations

import textwrap
import threading
import time
import typing as t
from pathlib import Path

import pytest

from laguna.frontends.tosca import blocking
from laguna.frontends.tosca.runtime import DeployFailed, Runtime
from laguna.frontends.tosca.topology import load_topology

HEADER = "tosca_definitions_version: tosca_simple_yaml_1_3\n"


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self.lines.append(f"{object_id}: {text}")

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        pass


def write(tmp_path: Path, body: str, scripts: t.Mapping[str, str] | None = None) -> Path:
    for name, text in (scripts or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / "service.yaml"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def problems_of(tmp_path: Path, body: str) -> list[str]:
    topology, problems = load_topology(write(tmp_path, body))
    assert topology is None
    return [f"{p.kind}: {p.line()}" for p in problems.sorted()]


def runtime(tmp_path: Path, body: str, scripts: t.Mapping[str, str] | None = None,
            settings: t.Mapping[str, str] | None = None, timeout: float = 20.0) -> Runtime:
    topology, problems = load_topology(write(tmp_path, body, scripts))
    assert topology is not None, [p.line() for p in problems.sorted()]
    return Runtime(topology, tmp_path, tmp_path / "logs", Recorder(), timeout=timeout,
                   settings=settings)


def deploy_fails(run: Runtime) -> DeployFailed:
    with pytest.raises(DeployFailed) as caught:
        run.deploy()
    return caught.value


def states(run: Runtime) -> dict[str, str]:
    return {name: run.node_state(name) for name in run.instances}
