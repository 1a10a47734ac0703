"""The original client (python-muranoclient) against ``laguna serve``, unchanged:
environments, sessions, applications, a real deployment on the local cloud,
deployments and their reports, an action, and deletion."""

from __future__ import annotations

import time
import typing as t
from pathlib import Path

from muranoclient.common.exceptions import HTTPForbidden
from muranoclient.v1.client import Client

from tests.compat.conftest import Server

EXAMPLES = Path(__file__).parents[2] / "examples"


def wait_for(check: t.Callable[[], t.Any], seconds: float = 180) -> t.Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError("timed out waiting")


def test_the_original_client_deploys_acts_and_deletes(server: Server) -> None:
    server.laguna("package", "import", "--db-url", str(server.workdir / ".laguna" /
                                                       "laguna.sqlite"),
                  str(EXAMPLES / "webserver"))
    client = Client(server.url, token=server.token())
    environment = client.environments.create({"name": "compat"})
    assert environment.name == "compat"
    assert [e.name for e in client.environments.list()] == ["compat"]
    session = client.sessions.configure(environment.id)
    assert client.sessions.get(environment.id, session.id).state == "opened"
    client.services.post(environment.id, path="/", data={
        "?": {"id": "web1", "type": "org.laguna.examples.WebServer"}, "name": "web",
        "message": "compat", "instance": {
            "?": {"id": "vm1", "type": "io.murano.resources.LinuxMuranoInstance"},
            "name": "web-1", "image": "ubuntu", "flavor": "m1.small"}},
        session_id=session.id)
    listed = client.services.list(environment.id, session_id=session.id)
    assert [s.name for s in listed] == ["web"]
    client.sessions.deploy(environment.id, session.id)
    try:
        state = wait_for(lambda: client.sessions.get(environment.id, session.id).state
                         in ("deployed", "deploy failure")
                         and client.sessions.get(environment.id, session.id).state)
        assert state == "deployed"
        shown = client.environments.get(environment.id)
        assert shown.status == "ready"
        [service] = shown.services
        assert service["url"].startswith("http://127.42.")
        deployments = client.deployments.list(environment.id)
        assert [d.state for d in deployments] == ["success"]
        reports = client.deployments.reports(environment.id, deployments[0].id)
        assert "Starting the web server" in [r.text for r in reports]
        # an action, and its result
        action_id = next(iter(service["?"]["_actions"]))
        task_id = client.actions.call(environment.id, action_id, {"message": "changed"})
        result = wait_for(lambda: client.actions.get_result(environment.id, task_id))
        assert result == {"isException": False, "result": None}
        assert client.environments.get(environment.id).services[0]["message"] == "changed"
        # the CLI sees the environment the API deployed (project local)
        assert "compat" in server.laguna("environments")
    finally:
        client.environments.delete(environment.id)
        wait_for(lambda: not client.environments.list())


def test_the_original_client_drives_the_catalog_templates_and_statistics(
        server: Server, tmp_path: Path) -> None:
    archive = tmp_path / "webserver.zip"
    server.laguna("package", "build", "--db-url", str(tmp_path / "build.sqlite"), "-o",
                  str(archive), str(EXAMPLES / "webserver"))
    admin = Client(server.url, token=server.token(user="root", admin=True))
    admin.categories.add({"name": "Web"})
    assert [c.name for c in admin.categories.list()] == ["Web"]

    client = Client(server.url, token=server.token())
    with archive.open("rb") as payload:
        package = client.packages.create({"categories": ["Web"], "tags": ["http"]},
                                         {"webserver.zip": payload})
    assert package.fully_qualified_name == "org.laguna.examples.WebServer"
    assert [p.id for p in client.packages.filter(search="WebServer")] == [package.id]
    assert [p.id for p in client.packages.filter(tag="http")] == [package.id]
    assert list(client.packages.filter(tag="nothing-like-it")) == []
    client.packages.update(package.id, {"tags": ["http", "demo"]})
    assert sorted(client.packages.get(package.id).tags) == ["demo", "http"]
    # making a package public is for admins, as the original's policy had it
    try:
        client.packages.toggle_public(package.id)
        raise AssertionError("a user made a package public")
    except HTTPForbidden:
        pass
    admin.packages.toggle_public(package.id)
    assert client.packages.get(package.id).is_public is True
    downloaded = client.packages.download(package.id)
    assert downloaded[:2] == b"PK"
    # another project sees the public package, not a private one of ours
    other = Client(server.url, token=server.token(project="other", user="bob"))
    assert [p.id for p in other.packages.filter()] == [package.id]

    template = client.env_templates.create({"name": "web-template"})
    client.env_templates.create_app(template.id, {
        "?": {"id": "web1", "type": "org.laguna.examples.WebServer"}, "name": "web",
        "instance": {"?": {"id": "vm1", "type": "io.murano.resources.LinuxMuranoInstance"},
                     "name": "web-1", "image": "ubuntu", "flavor": "m1.small"}})
    assert [t.name for t in client.env_templates.list()] == ["web-template"]
    [service] = client.env_templates.get(template.id).services
    assert service["name"] == "web"
    made = client.env_templates.create_env(template.id, {"name": "from-template"})
    environment = client.environments.get(made.environment_id)
    assert environment.name == "from-template"
    session = client.sessions.get(environment.id, made.session_id)
    assert session.state == "opened"
    assert [s.name for s in client.services.list(environment.id,
                                                 session_id=made.session_id)] == ["web"]
    assert client.instance_statistics.get(environment.id) == []
    assert client.instance_statistics.get_aggregated(environment.id) == []
    statistics = admin.request_statistics.list()
    assert statistics and statistics[0].request_count > 0

    client.environments.delete(environment.id)
    client.env_templates.delete(template.id)
    assert client.env_templates.list() == []
    client.packages.delete(package.id)
    assert list(client.packages.filter()) == []
