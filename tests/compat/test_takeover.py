"""After ``laguna takeover murano``, the original client (python-muranoclient)
against ``laguna serve`` finds each tenant's environments, packages, templates
and deployments with their reports where Murano kept them, with their ids; a
never-deployed environment deploys on the local cloud; a taken-over one is
refused."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest
import yaml
from muranoclient.common.exceptions import HTTPForbidden
from muranoclient.v1.client import Client

from tests.compat.test_muranoclient import wait_for
from tests.fixtures.murano import build as murano
from tests.fixtures.murano.schemas import murano_mariadb, murano_schema
from tests.pgschema import private_schema
from tests.servers import Server, serve

A, B = murano.TENANT_A, murano.TENANT_B


@dataclasses.dataclass
class Installation:
    """A ``laguna serve`` over a store a Murano database was taken over into."""

    server: Server
    store: str

    def token(self, project: str, user: str, admin: bool = False) -> str:
        output = self.server.laguna("token", "create", "--db-url", self.store, "--project",
                                    project, "--user", user, *(("--admin",) if admin else ()))
        return output.strip().splitlines()[-1]


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def installation(request: pytest.FixtureRequest, tmp_path: Path) -> t.Iterator[Installation]:
    """Murano's database and laguna's store both SQLite files, or both PostgreSQL
    (private schemas), or Murano's on MariaDB (laguna's store is not kept there:
    an SQLite file), taken over before ``laguna serve`` starts."""
    with contextlib.ExitStack() as stack:
        if request.param in ("sqlite", "mariadb"):
            if request.param == "sqlite":
                source = f"sqlite:///{tmp_path / 'murano.sqlite'}"
                murano.build(source)
            else:
                source = stack.enter_context(murano_mariadb())
            store = str(tmp_path / ".laguna" / "laguna.sqlite")
            options: tuple[str, ...] = ()
        else:
            source = stack.enter_context(murano_schema())
            store = stack.enter_context(private_schema())
            options = ("--db-url", store)
        taken = subprocess.run(
            [sys.executable, "-m", "laguna.cli", "--workdir", str(tmp_path), "takeover",
             "murano", source, *options], capture_output=True, text=True, timeout=300)
        # exit status 1: the rows it lists as not imported (tests/unit/takeover)
        assert taken.returncode == 1, taken.stderr
        server = stack.enter_context(serve(tmp_path, *options))
        yield Installation(server, store)


def packages(client: Client) -> list[tuple[str, str, bool, bool, list[str], list[str]]]:
    return sorted((p.id, p.name, p.is_public, p.enabled, sorted(p.tags), sorted(p.categories))
                  for p in client.packages.list(include_disabled=True))


def test_the_original_client_finds_the_taken_over_installation(
        installation: Installation) -> None:
    url = installation.server.url
    tenant_a = Client(url, token=installation.token(project=A, user="alice"))
    tenant_b = Client(url, token=installation.token(project=B, user="bob"))

    assert [(e.id, e.name, e.status) for e in tenant_a.environments.list()] == [
        (murano.ENV_NEW, "never-deployed", "ready"),
        (murano.ENV_OK, "deployed-ok", "taken over")]
    assert [(e.id, e.name, e.status) for e in tenant_b.environments.list()] == [
        (murano.ENV_BAD, "deployed-bad", "taken over")]

    assert packages(tenant_a) == sorted([
        (murano.PKG_HELLO, "Hello", True, True, ["demo"], ["Web"]),
        (murano.PKG_PROBE, "Probe", False, True, ["demo", "probe"],
         ["Databases", "Monitoring"]),
        (murano.PKG_LIB, "Example Lib", True, True, [], []),
        (murano.PKG_WEB, "Web Server", False, True, ["example"], ["Web"])])
    assert packages(tenant_b) == sorted([
        (murano.PKG_HELLO, "Hello", True, True, ["demo"], ["Web"]),
        (murano.PKG_APP, "Example App", False, False, ["example"], ["Legacy Apps"]),
        (murano.PKG_BROKEN, "Broken", False, True, [], []),
        (murano.PKG_LIB, "Example Lib", True, True, [], [])])

    # the archive as Murano kept it, and the logo it had
    assert tenant_a.packages.download(murano.PKG_WEB) == murano.zipped(
        murano.ROOT / "examples/webserver")
    assert tenant_a.packages.get_logo(murano.PKG_PROBE) == b"\x89PNG probe logo"
    assert tenant_a.packages.get_supplier_logo(murano.PKG_PROBE) == murano.SUPPLIER_LOGO
    assert tenant_a.packages.get_ui(murano.PKG_PROBE) == yaml.safe_load(murano.PROBE_UI)

    assert [(tm.id, tm.name, tm.is_public, tm.description_text)
            for tm in tenant_a.env_templates.list()] == [
        (murano.TEMPLATE, "probe-pair", True, "two probes")]
    assert [s["name"] for s in tenant_a.env_templates.get(murano.TEMPLATE).services] == [
        "one", "two"]

    shown = tenant_a.environments.get(murano.ENV_OK)
    # the model as Murano last showed it, its objects' ids kept
    assert (shown.status, [(s["?"]["id"], s["name"], s["mode"]) for s in shown.services]) == (
        "taken over", [(murano.APP_OK, "web", "succeed")])
    assert [(e.name, e.description_text) for e in tenant_a.environments.list()] == [
        ("never-deployed", ""), ("deployed-ok", murano.ENV_OK_TEXT)]
    assert shown.description_text == murano.ENV_OK_TEXT
    stats = tenant_a.instance_statistics.get(murano.ENV_OK)
    assert sorted((s.instance_id, s.type_name, s.active) for s in stats) == [
        (murano.APP_OK, "org.laguna.tests.Probe", True),
        ("vm-0001", "io.murano.resources.LinuxMuranoInstance", False)]
    deployments = tenant_a.deployments.list(murano.ENV_OK)
    # newest first, as the original listed them
    assert [(d.id, d.state) for d in deployments] == [
        (murano.TASK_ACTION, "success"), (murano.TASK_OK, "success")]
    assert (deployments[0].action, deployments[0].result) == (
        {"object_id": murano.APP_OK, "method": "restart", "args": {"hard": True}},
        {"isException": False, "result": "restarted"})
    assert [(r.level, r.text, r.entity_id) for r in tenant_a.deployments.reports(
        murano.ENV_OK, murano.TASK_OK)] == [
        ("info", "Action deploy is scheduled", None),
        ("info", "Probe web is ready", murano.APP_OK),
        ("info", "Deployment finished", None)]
    [failed] = tenant_b.deployments.list(murano.ENV_BAD)
    assert (failed.id, failed.state, failed.result) == (
        murano.TASK_BAD, "completed_w_errors",
        {"isException": True, "result": {"message": "script failed"}})
    assert [(r.level, r.details) for r in tenant_b.deployments.reports(
        murano.ENV_BAD, murano.TASK_BAD)] == [
        ("info", None), ("error", "Traceback: script.sh line 4"), ("warning", None)]

    # Murano's API host's statistics, as it last wrote them, before laguna's host's
    # (admins only: they count every tenant)
    admin = Client(url, token=installation.token(project="ops", user="root", admin=True))
    murano_host, laguna_host = admin.request_statistics.list()
    assert murano_host.to_dict() == {
        "id": 1, "host": "murano-api-1", "created": "2023-05-04T10:50:00",
        "updated": "2023-05-04T10:50:00", "request_count": 120, "error_count": 3,
        "average_response_time": 0.25, "requests_per_tenant": f'{{"{A}": 100, "{B}": 20}}',
        "requests_per_second": 0.5, "errors_per_second": 0.01, "cpu_count": 4,
        "cpu_percent": 12.5}
    assert laguna_host.id == 2
    [own] = tenant_a.request_statistics.list()
    assert (own.id, list(json.loads(own.requests_per_tenant))) == (2, [A])

    # a taken-over environment is read and abandoned, never operated on
    refusal = ("Environment 'deployed-ok' was deployed by Murano on OpenStack; laguna has no "
               "OpenStack cloud driver yet: abandon it (delete it with abandon=True)")
    with pytest.raises(HTTPForbidden, match=r"^" + re.escape(refusal)):
        tenant_a.sessions.configure(murano.ENV_OK)
    with pytest.raises(HTTPForbidden, match=r"^" + re.escape(refusal)):
        tenant_a.environments.delete(murano.ENV_OK)
    with pytest.raises(HTTPForbidden, match=r"^" + re.escape(refusal)):
        tenant_a.actions.call(murano.ENV_OK, "any-action", {})
    assert tenant_a.environments.get(murano.ENV_OK).status == "taken over"
    tenant_a.environments.delete(murano.ENV_OK, abandon=True)

    # the never-deployed environment deploys on the local cloud
    session = tenant_a.sessions.configure(murano.ENV_NEW)
    tenant_a.sessions.deploy(murano.ENV_NEW, session.id)
    try:
        state = wait_for(lambda: tenant_a.sessions.get(murano.ENV_NEW, session.id).state
                         in ("deployed", "deploy failure")
                         and tenant_a.sessions.get(murano.ENV_NEW, session.id).state)
        [deployed] = tenant_a.deployments.list(murano.ENV_NEW)
        assert state == "deployed", [r.text for r in tenant_a.deployments.reports(
            murano.ENV_NEW, deployed.id)]
        [service] = tenant_a.environments.get(murano.ENV_NEW).services
        assert (service["?"]["id"], service["url"][:14]) == (murano.APP_NEW, "http://127.42.")
    finally:
        tenant_a.environments.delete(murano.ENV_NEW)
        wait_for(lambda: murano.ENV_NEW not in [e.id for e in tenant_a.environments.list()])
