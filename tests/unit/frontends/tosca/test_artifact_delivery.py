"""A node's artifacts reach a cloud host with the host layer's put_file, before
the operation's script runs there (a real agent's executor, on this machine)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from laguna.frontends.tosca.machines import AgentExecutor, Executor
from laguna.frontends.tosca.runtime import DeployFailed, Instance, Runtime
from laguna.frontends.tosca.topology import load_topology
from laguna.hosts.run import Machine
from tests.unit.hosts.test_run import LocalAgent, host

from .day2 import Recorder, write

TOPOLOGY = """\
topology_template:
  node_templates:
    app:
      type: tosca.nodes.SoftwareComponent
      artifacts:
        conf: {file: app.conf, deploy_path: etc/app.conf}
        tool: {file: tool.sh}
      interfaces:
        Standard:
          create: create.sh
"""


class OnHost(Runtime):
    """Every operation runs on one host whose home is ``home``."""

    def __init__(self, service: Path, folder: Path, home: Path) -> None:
        loaded, problems = load_topology(service)
        assert loaded is not None and not problems, [p.brief() for p in problems.sorted()]
        super().__init__(loaded, folder, folder / "logs", Recorder(), timeout=10,
                         environ={"PATH": os.environ["PATH"]})
        self.on_host = AgentExecutor(Machine(host(), LocalAgent(home)), "web")

    def executor(self, instance: Instance) -> Executor:
        return self.on_host


def blueprint(folder: Path) -> Path:
    (folder / "app.conf").write_text("listen 8080\n")
    (folder / "tool.sh").write_text("echo tool\n")
    (folder / "tool.sh").chmod(0o755)
    return write(folder, TOPOLOGY, {
        "create.sh": 'cat etc/app.conf > created; sh artifacts/app/tool.sh >> created\n'})


def test_artifacts_are_put_on_the_host_before_the_script_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    runtime = OnHost(blueprint(tmp_path), tmp_path, home)
    runtime.deploy()
    assert (home / "created").read_text() == "listen 8080\ntool\n"
    assert (home / "artifacts/app/tool.sh").stat().st_mode & 0o777 == 0o755
    assert not (home / "etc/app.conf").stat().st_mode & 0o111
    # one plan per artifact, then the operation's own, which carries no artifact
    plans = runtime.on_host.machine.agent.plans  # type: ignore[attr-defined]
    assert [plan["Name"] for plan in plans] == \
        ["put etc/app.conf", "put artifacts/app/tool.sh", "tosca create.sh"]


def test_an_artifact_that_cannot_be_written_fails_the_operation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "etc").write_text("a file where a folder should be\n")
    runtime = OnHost(blueprint(tmp_path), tmp_path, home)
    # (the reason is the host's own: GNU mkdir, in the agent's C.UTF-8 locale)
    with pytest.raises(DeployFailed) as failed:
        runtime.deploy()
    assert failed.value.message == (
        "node app: Standard.create failed: artifact conf could not be written at "
        "etc/app.conf on host web: mkdir: cannot create directory \u2018etc\u2019: File exists")
    assert failed.value.details == {
        "node": "app", "operation": "Standard.create", "artifact": "conf", "host": "web",
        "path": "etc/app.conf",
        "output": "mkdir: cannot create directory \u2018etc\u2019: File exists"}
    assert not (home / "created").exists()      # the script never ran
