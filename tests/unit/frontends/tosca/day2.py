"""Deployed topologies for the day-2 tests: a blueprint with its scripts, deployed by
the real runtime on this machine, in a temporary folder."""

from __future__ import annotations

import os
import textwrap
import typing as t
from pathlib import Path

from laguna.frontends.tosca.runtime import Runtime, end_sessions
from laguna.frontends.tosca.topology import load_topology

HEADER = """\
tosca_definitions_version: tosca_simple_yaml_1_3
interface_types:
  my.interfaces.Admin:
    derived_from: tosca.interfaces.Root
    operations: {backup: {}, fail: {}, note: {}}
node_types:
  my.nodes.Server:
    derived_from: tosca.nodes.SoftwareComponent
    interfaces:
      Admin: {type: my.interfaces.Admin}
"""


class Recorder:
    """Keeps what the runtime reports."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, str, str | None]] = []
        self.states: list[tuple[str, str]] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self.reports.append((level, text, object_id))

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        self.states.append((object_id, state))


def write(folder: Path, topology: str, scripts: t.Mapping[str, str]) -> Path:
    """``folder/service.yaml`` (HEADER + ``topology``) and its scripts."""
    for name, text in scripts.items():
        (folder / name).write_text(textwrap.dedent(text))
    path = folder / "service.yaml"
    path.write_text(HEADER + textwrap.dedent(topology))
    return path


def deployed(folder: Path, topology: str, scripts: t.Mapping[str, str]) -> Runtime:
    """The runtime of a finished deploy of the blueprint (operations run in ``folder``)."""
    loaded, problems = load_topology(write(folder, topology, scripts))
    assert loaded is not None and not problems, [p.brief() for p in problems.sorted()]
    runtime = Runtime(loaded, folder, folder / "logs", Recorder(), timeout=10,
                      environ={"PATH": os.environ["PATH"]})
    runtime.deploy()
    return runtime


def reporter(runtime: Runtime) -> Recorder:
    return t.cast(Recorder, runtime.reporter)


def cleanup(runtime: Runtime) -> None:
    """End every process the runtime's operations started."""
    end_sessions([s for group in runtime.instances.values() for i in group
                  for s in i.sessions], grace=0.5)


def lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []
