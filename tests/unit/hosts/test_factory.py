"""The factory of every front end's resources: the cloud drivers, imported when
first used, and the environment's kept cloud. The containers and ssh drivers
are stood in for by fake modules registered here."""

from __future__ import annotations

import dataclasses
import sys
import types
import typing as t
from pathlib import Path

import pytest

from laguna.agent.transport import RecordingAgent
from laguna.cloud.base import Cloud, Host
from laguna.cloud.local.driver import LocalCloud
from laguna.cloud.recording import RecordingCloud
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.tosca.frontend import ToscaFrontend
from laguna.hosts.choice import CloudChoice, CloudRequest, TrackedCloud, kept_choice
from laguna.hosts.errors import CloudUnavailable
from laguna.hosts.factory import host_resources, open_cloud, open_resources
from laguna.hosts.resources import Resources, agent_client, recording_agent

from tests.unit.hosts.test_run import LocalAgent


@dataclasses.dataclass
class FakeDriver:
    """A cloud driver module: one recording cloud per state folder, and its calls."""

    name: str
    clouds: dict[Path, RecordingCloud] = dataclasses.field(default_factory=dict)
    calls: list[tuple[t.Any, ...]] = dataclasses.field(default_factory=list)
    #: what the last open was given to tell the run's progress
    progress: t.Callable[[str], None] | None = None

    def module(self) -> types.ModuleType:
        module = types.ModuleType(self.name)

        def opener(state_dir: Path, *inventory: Path | None,
                   progress: t.Callable[[str], None] | None = None) -> Cloud:
            self.calls.append((state_dir, *inventory))
            self.progress = progress
            return self.clouds.setdefault(state_dir, RecordingCloud())
        module.open_cloud = opener  # type: ignore[attr-defined]
        return module


@pytest.fixture()
def containers(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    driver = FakeDriver("laguna.cloud.containers")
    monkeypatch.setitem(sys.modules, driver.name, driver.module())
    return driver


@pytest.fixture()
def ssh(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    driver = FakeDriver("laguna.cloud.ssh")
    monkeypatch.setitem(sys.modules, driver.name, driver.module())
    return driver


def test_each_kind_opens_its_driver(tmp_path: Path, containers: FakeDriver,
                                    ssh: FakeDriver) -> None:
    assert isinstance(open_cloud("local", tmp_path), LocalCloud)
    assert open_cloud("containers", tmp_path) is containers.clouds[tmp_path]
    assert containers.calls == [(tmp_path,)]
    inventory = tmp_path / "inventory.yaml"
    open_cloud("ssh", tmp_path, inventory)
    assert ssh.calls == [(tmp_path, inventory)]


def test_a_driver_not_installed_is_named(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "laguna.cloud.containers", None)
    with pytest.raises(CloudUnavailable, match="the containers cloud is not available "
                                               "here: its driver laguna.cloud.containers "
                                               "is not installed"):
        open_cloud("containers", tmp_path)
    with pytest.raises(CloudUnavailable, match="unknown cloud 'heat'"):
        open_cloud("heat", tmp_path)


def test_a_dry_run_records_and_needs_no_driver(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "laguna.cloud.containers", None)
    resources = open_resources("containers", tmp_path, dry_run=True)
    assert isinstance(resources.cloud, RecordingCloud)
    assert resources.agents is recording_agent and resources.kind == "recording"
    made = host_resources(tmp_path, "env1", True, CloudRequest("containers"))
    assert isinstance(made.cloud, RecordingCloud)
    assert kept_choice(tmp_path, "env1") is None


def test_the_environments_cloud_is_kept_once_it_opened(tmp_path: Path,
                                                       containers: FakeDriver,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made = host_resources(tmp_path, "env1", False, CloudRequest("containers"))
    assert made.kind == "containers" and made.agents is agent_client
    assert isinstance(made.cloud, TrackedCloud)
    assert made.cloud.cloud is containers.clouds[tmp_path]
    assert kept_choice(tmp_path, "env1") == CloudChoice("containers")
    # later operations say nothing and reach the same cloud
    again = host_resources(tmp_path, "env1", False)
    assert t.cast(TrackedCloud, again.cloud).cloud is containers.clouds[tmp_path]
    # a kind whose driver is missing is not kept
    monkeypatch.setitem(sys.modules, "laguna.cloud.ssh", None)
    with pytest.raises(CloudUnavailable, match="ssh"):
        host_resources(tmp_path, "env2", False, CloudRequest("ssh"))
    assert kept_choice(tmp_path, "env2") is None


def test_without_a_choice_it_is_the_local_cloud(tmp_path: Path) -> None:
    made = host_resources(tmp_path, "env1", False)
    assert made.kind == "local"
    assert isinstance(t.cast(TrackedCloud, made.cloud).cloud, LocalCloud)


def test_the_environments_other_clouds_open_when_asked_and_record_their_stacks(
        tmp_path: Path, containers: FakeDriver, ssh: FakeDriver) -> None:
    inventory = tmp_path / "inventory.yaml"
    made = host_resources(tmp_path, "env1", False, CloudRequest(None, inventory))
    assert made.kind == "local" and made.on(None) is made.cloud and made.on("local") is \
        made.cloud
    assert containers.calls == []       # nothing opened before it is asked for
    boxed = made.on("containers")
    assert made.on("containers") is boxed and containers.calls == [(tmp_path,)]
    assert t.cast(TrackedCloud, boxed).cloud is containers.clouds[tmp_path]
    # the ssh cloud gets the inventory the environment keeps
    made.on("ssh")
    assert ssh.calls == [(tmp_path, inventory)]
    t.cast(Cloud, boxed).push_stack("tosca-env1-containers",
                                    {"heat_template_version": "2015-10-15",
                                     "resources": {}})
    assert kept_choice(tmp_path, "env1") == CloudChoice(
        "local", inventory, elsewhere=(("tosca-env1-containers", "containers"),))
    with pytest.raises(CloudUnavailable, match="unknown cloud 'heat'"):
        made.on("heat")


def test_drift_asks_each_stack_through_its_own_cloud(tmp_path: Path,
                                                     containers: FakeDriver,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from laguna.hosts.drift import check_held
    asked: list[tuple[str, list[str]]] = []

    def check_hosts(cloud: Cloud, agents: t.Any, stacks: t.Sequence[str]) -> list[t.Any]:
        asked.append(("containers" if cloud is made.on("containers") else "local",
                      list(stacks)))
        return []
    monkeypatch.setattr("laguna.hosts.drift.check_hosts", check_hosts)
    made = host_resources(tmp_path, "env1", False)
    choice = CloudChoice("local", stacks=("tosca-env1",),
                         elsewhere=(("tosca-env1-containers", "containers"),
                                    ("tosca-env1-ssh", "ssh")))
    monkeypatch.setitem(sys.modules, "laguna.cloud.ssh", None)
    checks = check_held(made, choice)
    assert asked == [("local", ["tosca-env1"]), ("containers", ["tosca-env1-containers"])]
    # a cloud that cannot be opened: its stacks unchecked, saying why
    assert [(c.host, c.stack, c.error) for c in checks] == [
        ("tosca-env1-ssh", "tosca-env1-ssh", "the ssh cloud: the ssh cloud is not available "
         "here: its driver laguna.cloud.ssh is not installed")]


# -- through the deployment layer: TOSCA Compute instances on the containers cloud ----
SERVICE_TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_3
metadata: {template_name: boxed}
topology_template:
  node_templates:
    vm:
      type: tosca.nodes.Compute
    app:
      type: tosca.nodes.SoftwareComponent
      requirements: [{host: vm}]
      interfaces:
        Standard:
          create:
            implementation: create.sh
            inputs:
              addr: {get_attribute: [HOST, private_address]}
            outputs:
              WHERE: [SELF, where]
  outputs:
    where: {value: {get_attribute: [app, where]}}
"""


def local_agents(root: Path) -> t.Callable[..., Resources]:
    """host_resources with each host's agent an in-process executor under ``root``
    (the fake cloud's hosts run no agent)."""
    agents: dict[str, LocalAgent] = {}

    def agent(host: Host) -> LocalAgent:
        folder = root / host.name
        folder.mkdir(parents=True, exist_ok=True)
        return agents.setdefault(host.name, LocalAgent(folder))

    def factory(state_dir: Path, environment_id: str, dry_run: bool,
                cloud: CloudRequest | None = None) -> Resources:
        made = host_resources(state_dir, environment_id, dry_run, cloud)
        return made if dry_run else dataclasses.replace(made, agents=agent)
    return factory


def test_an_environment_stays_on_the_cloud_it_was_deployed_on(
        tmp_path: Path, containers: FakeDriver) -> None:
    (tmp_path / "service.yaml").write_text(SERVICE_TEMPLATE)
    (tmp_path / "create.sh").write_text('export WHERE="on $addr"\n')
    workdir = Workdir(tmp_path / "work")
    service = Service(workdir, FrontendRegistry([ToscaFrontend()]),
                      resources=local_agents(tmp_path / "hosts"))
    result = service.deploy(tmp_path / "service.yaml", PrepareOptions(cloud="containers"))
    assert result.status == "ok", result.error
    cloud = containers.clouds[workdir.cloud_dir]
    (stack,) = cloud.stacks()
    address = cloud.hosts(stack)[0].address
    assert result.outputs == {"where": f"on {address}"}

    # another cloud is refused while the stack is there, and nothing is recorded
    refused = service.deploy(tmp_path / "service.yaml", PrepareOptions(cloud="local"))
    assert refused.status == "rejected" and refused.error is not None
    assert refused.error.kind == "cloud_error"
    assert "on the containers cloud" in refused.error.message
    dry = service.deploy(tmp_path / "service.yaml", PrepareOptions(cloud="local"),
                         dry_run=True)
    assert dry.status == "rejected"
    assert len(service.deployments("boxed").deployments) == 1

    # undeploy finds the containers cloud without being told
    gone = service.undeploy("boxed")
    assert gone.status == "ok", gone.error
    assert cloud.stacks() == []
    (choice,) = (workdir.cloud_dir / "environments").glob("*.json")
    assert '"kind": "containers"' in choice.read_text()

    # with nothing held there, the environment may move
    moved = service.deploy(tmp_path / "service.yaml", PrepareOptions(cloud="here"))
    assert moved.status == "ok", moved.error
    assert '"kind": "containers"' in choice.read_text()


# -- the command line: --cloud and --inventory on deploy and later commands ---------
def test_the_commands_take_the_cloud_and_name_a_missing_driver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ssh: FakeDriver) -> None:
    import json

    from click.testing import CliRunner

    from laguna.cli.main import cli
    from laguna.cli.workdirs import Wiring
    from laguna.deploy.frontend import FrontendRegistry

    wiring = Wiring(FrontendRegistry([ToscaFrontend()]), resources=host_resources)
    template = tmp_path / "small.yaml"
    template.write_text("tosca_definitions_version: tosca_simple_yaml_1_3\n"
                        "metadata: {template_name: small}\n"
                        "topology_template:\n"
                        "  node_templates:\n"
                        "    app: {type: tosca.nodes.SoftwareComponent}\n")
    work = ["--workdir", str(tmp_path / "work")]

    def run(*args: str) -> tuple[int, t.Any]:
        done = CliRunner().invoke(cli, [*args, *work, "--json"], obj=wiring)
        return done.exit_code, json.loads(done.output)

    monkeypatch.setitem(sys.modules, "laguna.cloud.containers", None)
    code, data = run("deploy", str(template), "--cloud", "containers")
    assert code == 2 and data["status"] == "rejected"
    assert data["error"]["kind"] == "cloud_error"
    assert "the containers cloud is not available here" in data["error"]["message"]

    inventory = tmp_path / "inventory.yaml"
    code, data = run("deploy", str(template), "--cloud", "ssh", "--inventory", str(inventory))
    assert code == 0, data
    assert ssh.calls[-1] == (tmp_path / "work" / ".laguna" / "cloud", inventory)
    code, data = run("undeploy", "small")
    assert code == 0, data
    assert ssh.calls[-1] == (tmp_path / "work" / ".laguna" / "cloud", inventory)
    for command in ("undeploy", "action", "intent"):
        shown = CliRunner().invoke(cli, [command, "--help"]).output
        assert "--cloud [local|containers|ssh]" in shown and "--inventory FILE" in shown
