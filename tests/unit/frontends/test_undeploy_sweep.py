"""Undeploy sweeps the environment's stacks even where no loaded object holds
them: a stored model that no longer loads (a class gone from its stored
package), a stack a killed run left behind. Every stack and host goes."""

from __future__ import annotations

import shutil
from pathlib import Path

from laguna.agent.transport import RecordingAgent
from laguna.cloud.base import Host
from laguna.cloud.recording import RecordingCloud
from laguna.deploy.context import Resources
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.muranopl import MuranoPlFrontend
from laguna.packages.archive import build_archive
from laguna.store import environments as repo

EXAMPLES = Path(__file__).parents[3] / "examples"


class KeptClouds:
    """One recording cloud per environment for the whole test: what a deploy
    made is still there for the undeploy, as on a real cloud."""

    def __init__(self) -> None:
        self.clouds: dict[str, RecordingCloud] = {}

    def __call__(self, state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
        cloud = self.clouds.setdefault(environment_id, RecordingCloud())
        return Resources(cloud=cloud, agents=lambda host: RecordingAgent(
            host.server_name if isinstance(host, Host) else "host"))


def _deployed(tmp_path: Path) -> tuple[Service, KeptClouds, RecordingCloud, str]:
    clouds = KeptClouds()
    service = Service(Workdir(tmp_path / "wd"), FrontendRegistry([MuranoPlFrontend()]),
                      resources=clouds)
    result = service.deploy(EXAMPLES / "webserver" / "web.yaml",
                            PrepareOptions(libs=(EXAMPLES / "webserver",), name="web"))
    assert result.status == "ok", result.error
    assert result.model is not None
    environment_id = str(result.model["Objects"]["?"]["id"])
    (cloud,) = clouds.clouds.values()
    assert cloud.stacks() == [f"murano-{environment_id}"]
    assert [host.name for host in cloud.hosts(f"murano-{environment_id}")] != []
    return service, clouds, cloud, environment_id


def _break_stored_package(service: Service, tmp_path: Path) -> None:
    """The environment's stored package without its application class."""
    broken = tmp_path / "broken"
    shutil.copytree(EXAMPLES / "webserver", broken)
    manifest = broken / "manifest.yaml"
    text = manifest.read_text()
    assert text.endswith("Classes:\n  org.laguna.examples.WebServer: WebServer.yaml\n")
    manifest.write_text(text.replace("org.laguna.examples.WebServer: WebServer.yaml",
                                     "org.laguna.examples.Other: WebServer.yaml"))
    archive = tmp_path / "broken.zip"
    build_archive(broken, archive)
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = repo.find_environment(session, service.project, "web")
            assert record is not None
            rows = [(row.name, row.version, row.archive) for row in record.package_rows]
            assert [name for name, _, _ in rows] == ["org.laguna.examples.WebServer"]
            repo.replace_packages(session, record, [(rows[0][0], rows[0][1],
                                                     archive.read_bytes())])
    finally:
        database.dispose()


def test_undeploy_of_a_model_that_no_longer_loads_deletes_every_stack(tmp_path: Path) -> None:
    service, _, cloud, environment_id = _deployed(tmp_path)
    _break_stored_package(service, tmp_path)
    assert service.status("web").state == "ready"
    result = service.undeploy("web")
    assert (result.status, result.state) == ("ok", "undeployed"), result.error
    assert cloud.stacks() == []
    assert cloud.hosts(f"murano-{environment_id}") == []


def test_undeploy_deletes_a_stack_no_loaded_object_holds(tmp_path: Path) -> None:
    service, _, cloud, environment_id = _deployed(tmp_path)
    # what a run killed between its stack's push and its record would leave
    left = f"murano-{environment_id}-left-by-a-killed-run"
    cloud.push_stack(left, {"heat_template_version": "2013-05-23", "resources": {}})
    other = "murano-0123456789abcdef0123456789abcdef"     # another environment's
    cloud.push_stack(other, {"heat_template_version": "2013-05-23", "resources": {}})
    result = service.undeploy("web")
    assert (result.status, result.state) == ("ok", "undeployed"), result.error
    assert cloud.stacks() == [other]
