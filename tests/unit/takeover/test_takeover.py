"""``laguna takeover murano`` on a Murano database (tests/fixtures/murano/build.py)
on SQLite and PostgreSQL: what the dry run says, what the store holds after,
that a second run changes nothing, and what a taken-over environment allows."""

from __future__ import annotations

import json
import sqlite3
import typing as t
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result

from laguna.cli.main import cli
from laguna.store.db import Database
from laguna.store.models import Base
from tests.fixtures.murano import build as murano
from tests.fixtures.murano.schemas import murano_mariadb, murano_schema
from tests.pgschema import private_schema

A, B = murano.TENANT_A, murano.TENANT_B


@pytest.fixture(params=["sqlite", "postgresql", "mariadb"])
def source_url(request: pytest.FixtureRequest, tmp_path: Path) -> t.Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
        murano.build(url)
        yield url
    elif request.param == "postgresql":
        with murano_schema() as url:
            yield url
    else:
        with murano_mariadb() as url:
            yield url


# (the lines of the report are as long as the ids and reasons they carry)
def laguna(workdir: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--workdir", str(workdir)])


DRY_RUN = f"""\
Murano database at migration head 016
would import:
  (all tenants): categories 4, api stats 1
  {A} (project local): packages 3, environments 2, sessions 1, deployments 2, templates 1, instance stats 2
  {B}: packages 3, environments 1, deployments 1
already in the store:
  nothing
not imported:
  package {murano.PKG_NO_ARCHIVE} (com.example.Gone, tenant {B}): its archive is missing
  package {murano.PKG_DUP} (test.smoke, tenant {B}): version 0.0.0 of test.smoke is in the store already, as package {murano.PKG_HELLO} (laguna keeps one package of a name and version)
  environment {murano.ENV_LOST} (lost-class, tenant {B}): its model does not load with the packages present: no package defines com.example.Gone
  session {murano.SESSION_NEW} (opened, tenant {A}): open sessions are not carried over: open a new one
  session {murano.SESSION_BAD} (deploy failure, tenant {B}): only deployed sessions are carried over; its deployment and its reports are
imported, but would not load:
  package {murano.PKG_BROKEN} (com.example.Broken, tenant {B}): LAG-E0531 file 'Classes/Missing.yaml' of class 'com.example.Missing' does not exist
"""


def dump(workdir: Path) -> dict[str, list[tuple[t.Any, ...]]]:
    """Every row of every table of the working directory's store."""
    database = Database(f"sqlite:///{workdir / '.laguna' / 'laguna.sqlite'}")
    try:
        with database.session() as session:
            return {name: sorted(map(tuple, session.execute(sa.select(table))), key=repr)
                    for name, table in Base.metadata.tables.items()}
    finally:
        database.dispose()


def store_rows(workdir: Path, sql: str) -> list[sa.Row[t.Any]]:
    database = Database(f"sqlite:///{workdir / '.laguna' / 'laguna.sqlite'}")
    try:
        with database.session() as session:
            return list(session.execute(sa.text(sql)))
    finally:
        database.dispose()


def test_takeover(source_url: str, tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    project_map = tmp_path / "projects.yaml"
    project_map.write_text(f"{A}: local\n")
    mapped = ("--project-map", str(project_map))

    dry = laguna(workdir, "takeover", "murano", source_url, "--dry-run", *mapped)
    assert (dry.output, dry.exit_code) == (DRY_RUN, 1)
    # the dry run wrote nothing
    assert {table: rows for table, rows in dump(workdir).items() if rows} == {}

    first = laguna(workdir, "takeover", "murano", source_url, *mapped)
    assert first.output == DRY_RUN.replace("would import:", "imported:")
    after = dump(workdir)

    def rows(sql: str) -> list[tuple[t.Any, ...]]:
        return sorted(tuple(row) for row in store_rows(workdir, sql))

    packages = {row[0]: row[1:] for row in rows(
        "SELECT id, fully_qualified_name, is_public, enabled, owner_id FROM packages")}
    tags = rows("SELECT package_id, tag FROM package_tags")
    categories = rows("SELECT package_id, category FROM package_categories")
    environments = rows("SELECT id, project_id, name, status, version, language "
                        "FROM environments")
    reports = rows("SELECT deployment_id, position, level, text, details FROM status_reports")
    deployments = rows("SELECT id, environment_id, operation, state FROM deployments")
    # SQLite keeps the UUIDs as 32 hex digits
    assert {uuid.UUID(k).hex: v for k, v in packages.items()} == {
        murano.PKG_HELLO: ("test.smoke", 1, 1, "local"),
        murano.PKG_PROBE: ("org.laguna.tests.Probe", 0, 1, "local"),
        murano.PKG_APP: ("com.example.App", 0, 0, B),
        murano.PKG_BROKEN: ("com.example.Broken", 0, 1, B),
        murano.PKG_LIB: ("com.example.Lib", 1, 1, B),
        murano.PKG_WEB: ("org.laguna.examples.WebServer", 0, 1, "local"),
    }
    assert [(uuid.UUID(p).hex, tag) for p, tag in tags] == sorted([
        (murano.PKG_APP, "example"), (murano.PKG_HELLO, "demo"), (murano.PKG_WEB, "example"), (murano.PKG_PROBE, "demo"),
        (murano.PKG_PROBE, "probe")])
    assert [(uuid.UUID(p).hex, c) for p, c in categories] == sorted([
        (murano.PKG_APP, "Legacy Apps"), (murano.PKG_HELLO, "Web"),
        (murano.PKG_PROBE, "Databases"), (murano.PKG_PROBE, "Monitoring"),
        (murano.PKG_WEB, "Web")])
    assert [(uuid.UUID(p).hex, c) for p, c in rows(
        "SELECT package_id, class_name FROM package_classes")] == sorted([
        (murano.PKG_HELLO, "test.smoke.Smoke"), (murano.PKG_PROBE, "org.laguna.tests.Probe"),
        (murano.PKG_APP, "com.example.App"), (murano.PKG_APP, "com.example.Second"),
        (murano.PKG_APP, "com.example.helpers.First"),
        (murano.PKG_APP, "com.example.helpers.Helper"),
        (murano.PKG_BROKEN, "com.example.Missing"), (murano.PKG_LIB, "com.example.lib.Base"),
        (murano.PKG_WEB, "org.laguna.examples.WebServer")])
    # the UI Murano's catalog kept wins over the archive's (the probe's has none)
    assert [ui for p, ui in rows("SELECT id, ui_definition FROM packages")
            if uuid.UUID(p).hex == murano.PKG_PROBE] == [murano.PROBE_UI]
    # the object models whole, as Murano's API last showed them: objects, their
    # ids and properties, the default networks, Attributes
    assert {id_: json.loads(model) for id_, model in rows(
        "SELECT id, description FROM environments")} == {
        murano.ENV_NEW: murano.NEW_MODEL, murano.ENV_OK: murano.OK_MODEL,
        murano.ENV_BAD: murano.BAD_MODEL}
    assert environments == [
        (murano.ENV_NEW, "local", "never-deployed", "ready", 0, None),
        (murano.ENV_OK, "local", "deployed-ok", "taken over", 2, "muranopl"),
        (murano.ENV_BAD, B, "deployed-bad", "taken over", 1, "muranopl"),
    ]
    assert deployments == sorted([
        (murano.TASK_OK, murano.ENV_OK, "deploy", "success"),
        (murano.TASK_ACTION, murano.ENV_OK, "action", "success"),
        (murano.TASK_BAD, murano.ENV_BAD, "deploy", "failure"),
    ])
    assert [r for r in reports if r[0] == murano.TASK_BAD] == [
        (murano.TASK_BAD, 0, "info", "Action deploy is scheduled", None),
        (murano.TASK_BAD, 1, "error", "Probe db failed: script exited 3",
         "Traceback: script.sh line 4"),
        (murano.TASK_BAD, 2, "warning", "Deployment finished with errors", None),
    ]
    # what head 015 added, and what laguna's store had no column for before 0010
    assert rows("SELECT id, description_text FROM environments") == [
        (murano.ENV_NEW, ""), (murano.ENV_OK, murano.ENV_OK_TEXT), (murano.ENV_BAD, "")]
    assert rows("SELECT id, description_text FROM environment_templates") == [
        (murano.TEMPLATE, "two probes")]
    assert [(uuid.UUID(p).hex, logo) for p, logo in rows(
        "SELECT id, supplier_logo FROM packages WHERE supplier_logo IS NOT NULL")] == [
        (murano.PKG_PROBE, murano.SUPPLIER_LOGO)]
    assert rows("SELECT id, host, request_count, error_count, average_response_time, "
                "requests_per_tenant, requests_per_second, errors_per_second, cpu_count, "
                "cpu_percent, created FROM api_stats") == [
        (1, "murano-api-1", 120, 3, 0.25, f'{{"{A}": 100, "{B}": 20}}', 0.5, 0.01, 4, 12.5,
         "2023-05-04 10:50:00.000000")]

    second = laguna(workdir, "takeover", "murano", source_url, *mapped)
    assert (second.output.splitlines()[1:3], second.exit_code) == (
        ["imported:", "  nothing"], 1)
    assert dump(workdir) == after


def test_taken_over_environment(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url)
    workdir = tmp_path / "work"
    workdir.mkdir()
    # both tenants into the CLI's project
    (tmp_path / "projects.json").write_text(f'{{"{A}": "local", "{B}": "local"}}')
    laguna(workdir, "takeover", "murano", url, "--project-map", str(tmp_path / "projects.json"))

    status = laguna(workdir, "status", "deployed-ok")
    assert (status.output, status.exit_code) == (
        "environment deployed-ok: taken over\n"
        "ID                                   TYPE                   NAME STATE\n"
        f"{murano.APP_OK} org.laguna.tests.Probe web  taken over\n", 0)
    failed = laguna(workdir, "status", "deployed-bad")
    assert (failed.output, failed.exit_code) == (
        "environment deployed-bad: taken over (failed)\n"
        "ID                                   TYPE                   NAME STATE\n"
        f"{murano.APP_BAD} org.laguna.tests.Probe db   taken over\n"
        "error[LAG-E0400]: script failed [muranopl_error]\n", 0)
    refused = laguna(workdir, "undeploy", "deployed-ok")
    assert refused.exit_code == 2
    assert ("environment 'deployed-ok' was deployed by Murano on OpenStack; laguna has no "
            "OpenStack cloud driver yet: abandon or delete it (laguna forget deployed-ok)"
            ) in refused.output
    examples = Path(__file__).parents[3] / "examples"
    redeploy = laguna(workdir, "deploy", str(examples / "webserver" / "web.yaml"), "--name",
                      "deployed-bad", "-l", str(examples))
    assert redeploy.exit_code == 2
    assert ("error[LAG-E1030]: environment 'deployed-bad' was deployed by Murano on "
            "OpenStack; laguna has no OpenStack cloud driver yet: abandon or delete it "
            "(laguna forget deployed-bad) [cloud_unavailable]") in redeploy.output
    deployments = laguna(workdir, "deployments", "deployed-ok")
    assert "Probe web is ready" in deployments.output
    forgotten = laguna(workdir, "forget", "deployed-ok")
    assert (forgotten.output, forgotten.exit_code) == ("environment deployed-ok: forgotten\n", 0)


def test_not_a_murano_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'other.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE package (id TEXT)"))
    engine.dispose()
    result = laguna(tmp_path, "takeover", "murano", url)
    assert result.exit_code == 2
    assert result.output == (
        "error: not a Murano database (migration head 010 to 016): no table category, tag, "
        "package_to_tag, package_to_category, environment, session, task, status, "
        "environment-template, instance_stats, apistats\n")


def test_head_010(tmp_path: Path) -> None:
    """Before 011 templates had no ``is_public``, before 015 environments and
    templates no ``description_text``: such a database is read all the same."""
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url, head=10)
    result = laguna(tmp_path, "takeover", "murano", url)
    assert result.output.splitlines()[:5] == [
        "Murano database at migration head 010", "imported:",
        "  (all tenants): categories 4, api stats 1",
        f"  {A}: packages 3, environments 2, sessions 1, deployments 2, templates 1, "
        "instance stats 2",
        f"  {B}: packages 3, environments 1, deployments 1"]
    assert [tuple(row) for row in store_rows(
        tmp_path, "SELECT id, name, is_public FROM environment_templates")] == [
        (murano.TEMPLATE, "probe-pair", 0)]
    assert [tuple(row) for row in store_rows(
        tmp_path, "SELECT DISTINCT description_text FROM environments")] == [(None,)]


def test_into_a_postgresql_store(tmp_path: Path) -> None:
    """``--db``: the store may be PostgreSQL (the Murano database here is SQLite)."""
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url)
    with private_schema() as store_url:
        first = laguna(tmp_path, "takeover", "murano", url, "--db", store_url)
        assert first.output.splitlines()[3] == (
            f"  {A}: packages 3, environments 2, sessions 1, deployments 2, templates 1, "
            "instance stats 2")
        second = laguna(tmp_path, "takeover", "murano", url, "--db", store_url)
        assert second.output.splitlines()[1:3] == ["imported:", "  nothing"]
        engine = sa.create_engine(store_url)
        try:
            with engine.connect() as connection:
                rows = connection.execute(sa.text(
                    "SELECT id, status FROM environments ORDER BY id")).all()
        finally:
            engine.dispose()
        assert [tuple(row) for row in rows] == [
            (murano.ENV_NEW, "ready"), (murano.ENV_OK, "taken over"),
            (murano.ENV_BAD, "taken over")]


@pytest.mark.parametrize(("text", "message"), [
    ("- a\n- b\n", "expected a mapping of tenant ids to project ids (text to text)"),
    ("a: [b]\n", "expected a mapping of tenant ids to project ids (text to text)"),
    ("a: b: c\n", "not YAML or JSON: mapping values are not allowed here"),
])
def test_a_bad_project_map(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "map.yaml").write_text(text)
    result = laguna(tmp_path, "takeover", "murano", "sqlite://", "--project-map",
                    str(tmp_path / "map.yaml"))
    assert result.exit_code == 2
    assert f"Invalid value for --project-map: {tmp_path / 'map.yaml'}: {message}" in " ".join(
        result.output.split())


def test_a_driver_laguna_does_not_install(tmp_path: Path) -> None:
    """oslo.db's URLs name mysqlclient's driver (``mysql://``) or PyMySQL's;
    laguna installs PyMySQL only."""
    result = laguna(tmp_path, "takeover", "murano", "mysql+mysqldb://murano:x@db/murano")
    assert (result.output, result.exit_code) == (
        "error: the database driver of mysql+mysqldb is not installed (MySQLdb): install it "
        "beside laguna, or use mysql+pymysql://, whose driver laguna installs\n", 2)


def test_no_such_sqlite_file(tmp_path: Path) -> None:
    result = laguna(tmp_path, "takeover", "murano", f"sqlite:///{tmp_path / 'typo.sqlite'}")
    assert (result.output, result.exit_code) == (
        f"error: no SQLite database at {tmp_path / 'typo.sqlite'}\n", 2)
    assert not (tmp_path / "typo.sqlite").exists()


def test_a_later_run_adds_what_is_new(tmp_path: Path) -> None:
    """Rows Murano added after a takeover (a deployment, with its reports) come in
    with the next run; what came before is not counted again."""
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url)
    laguna(tmp_path, "takeover", "murano", url)
    meta = murano.tables()
    engine = sa.create_engine(url)
    later = murano.at(90)
    task = "7a000000000040008000000000000009"
    with engine.begin() as connection:
        connection.execute(meta.tables["task"].insert(), [{
            "id": task, "created": later, "updated": later, "started": later,
            "finished": later, "description": "{}", "environment_id": murano.ENV_OK,
            "action": '{"object_id": "x", "method": "deploy", "args": {}}',
            "result": '{"isException": false, "result": null}'}])
        connection.execute(meta.tables["status"].insert(), [{
            "id": "5a000000000040008000000000000099", "created": later, "updated": later,
            "task_id": task, "text": "Deployment finished", "level": "info",
            "entity_id": None, "entity": None, "details": None}])
    engine.dispose()
    again = laguna(tmp_path, "takeover", "murano", url)
    assert again.output.splitlines()[1:7] == [
        "imported:", f"  {A}: deployments 1", "already in the store:",
        "  (all tenants): categories 4, api stats 1",
        f"  {A}: packages 3, environments 2, sessions 1, deployments 2, templates 1, "
        "instance stats 2",
        f"  {B}: packages 3, environments 1, deployments 1"]
    assert [tuple(row) for row in store_rows(
        tmp_path, f"SELECT text FROM status_reports WHERE deployment_id = '{task}'")] == [
        ("Deployment finished",)]


def test_an_older_head_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url, head=10)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '009'"))
    engine.dispose()
    result = laguna(tmp_path, "takeover", "murano", url)
    assert (result.output, result.exit_code) == (
        "error: the Murano database is at migration head 009; laguna reads heads 010 to "
        "016\n", 2)


def test_the_cli_reads_every_tenants_environments(tmp_path: Path) -> None:
    """Without a project map each tenant's environments are its project's: the CLI
    (project ``local`` by default) lists them with --all-projects and reads one
    with --project or LAGUNA_PROJECT."""
    url = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(url)
    laguna(tmp_path, "takeover", "murano", url)

    assert laguna(tmp_path, "environments").output == "no environments\n"
    listed = laguna(tmp_path, "environments", "--all-projects")
    assert (listed.output, listed.exit_code) == (
        "PROJECT                          NAME           LANGUAGE STATE      VERSION "
        "UPDATED\n"
        f"{A} deployed-ok    muranopl taken over 2       2023-05-04T10:11:00.000000Z\n"
        f"{A} never-deployed -        ready      0       2023-05-04T10:10:00.000000Z\n"
        f"{B} deployed-bad   muranopl taken over 1       2023-05-04T10:12:00.000000Z\n", 0)
    only_a = laguna(tmp_path, "environments", "--project", A, "--output", "json")
    assert [(e["project"], e["name"]) for e in json.loads(only_a.output)["environments"]] == [
        (A, "deployed-ok"), (A, "never-deployed")]
    both = laguna(tmp_path, "environments", "--all-projects", "--project", A)
    assert (both.exit_code, both.output.splitlines()[-1]) == (
        2, "Error: --all-projects lists every project: leave out --project")

    elsewhere = laguna(tmp_path, "status", "deployed-bad")
    assert (elsewhere.output, elsewhere.exit_code) == (
        "error[LAG-E1002]: no environment named 'deployed-bad' in project local; project "
        f"{B} has one: laguna status deployed-bad --project {B} [environment_not_found]\n", 2)
    status = laguna(tmp_path, "status", "deployed-bad", "--project", B)
    assert (status.output, status.exit_code) == (
        "environment deployed-bad: taken over (failed)\n"
        "ID                                   TYPE                   NAME STATE\n"
        f"{murano.APP_BAD} org.laguna.tests.Probe db   taken over\n"
        "error[LAG-E0400]: script failed [muranopl_error]\n", 0)
    history = CliRunner().invoke(cli, ["deployments", "deployed-bad", "--workdir",
                                       str(tmp_path)], env={"LAGUNA_PROJECT": B})
    assert history.output.splitlines()[:2] == [
        f"{murano.TASK_BAD} deploy failure 2023-05-04T10:34:00.000000Z -> "
        "2023-05-04T10:35:00.000000Z",
        "  2023-05-04T10:34:00.000000Z info: Action deploy is scheduled"]
    # an environment held by a deployment: the service lists them (the quick read
    # leaves held ones to it), by project alike, after releasing what no process holds
    with sqlite3.connect(tmp_path / ".laguna" / "laguna.sqlite") as connection:
        connection.execute("UPDATE environments SET acquired_by = ? WHERE name = ?",
                           (murano.TASK_BAD, "deployed-bad"))
    assert [line.split()[:4] for line in laguna(
        tmp_path, "environments", "--all-projects").output.splitlines()] == [
        ["PROJECT", "NAME", "LANGUAGE", "STATE"], [A, "deployed-ok", "muranopl", "taken"],
        [A, "never-deployed", "-", "ready"], [B, "deployed-bad", "muranopl", "taken"]]
    refused = laguna(tmp_path, "undeploy", "deployed-bad", "--project", B)
    assert (refused.exit_code, refused.output.splitlines()[-1]) == (
        2, "error[LAG-E1030]: environment 'deployed-bad' was deployed by Murano on OpenStack; "
        "laguna has no OpenStack cloud driver yet: abandon or delete it (laguna forget "
        f"deployed-bad --project {B}) [cloud_unavailable]")
    forgotten = laguna(tmp_path, "forget", "deployed-bad", "--project", B)
    assert (forgotten.output, forgotten.exit_code) == ("environment deployed-bad: forgotten\n", 0)
    assert [line.split()[:2] for line in laguna(
        tmp_path, "environments", "--all-projects").output.splitlines()[1:]] == [
        [A, "deployed-ok"], [A, "never-deployed"]]
