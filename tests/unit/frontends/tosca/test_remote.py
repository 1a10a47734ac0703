"""Imports and artifacts fetched from URLs and repositories, from a loopback
server only, each once, bounded in size and time."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest
import yaml

from laguna.deploy.frontend import PrepareOptions
from laguna.deploy.errors import Rejected
from laguna.frontends.tosca.frontend import DATA_REFUSAL, ToscaFrontend
from laguna.frontends.tosca.remote import FetchError, Fetcher
from laguna.frontends.tosca.topology import load_topology
from tests.unit.frontends.tosca.loopback import TOKEN, USER, Served, serve
from tests.unit.frontends.tosca.test_topology import template, write


@pytest.fixture
def server(tmp_path: Path) -> t.Iterator[Served]:
    folder = tmp_path / "served"
    write(folder, "scripts/create.sh", "echo created\n")
    write(folder, "scripts/lib.sh", "LIB=1\n")
    write(folder, "private/secret.sh", "echo secret\n")
    write(folder, "types/base.yaml", template("""
        imports: [more.yaml]
        node_types:
          remote.Base:
            derived_from: tosca.nodes.SoftwareComponent
            artifacts:
              setup: {file: ../scripts/lib.sh, type: tosca.artifacts.Implementation.Bash}
        """))
    write(folder, "types/more.yaml", template("""
        node_types:
          remote.App:
            derived_from: remote.Base
        """))
    with serve(folder) as served:
        yield served


def fetcher(tmp_path: Path, **limits: t.Any) -> Fetcher:
    return Fetcher(tmp_path / "cache", **limits)


def test_a_url_is_fetched_once_and_siblings_stay_side_by_side(server: Served,
                                                              tmp_path: Path) -> None:
    fetch = fetcher(tmp_path)
    create = fetch.fetch(f"{server.url}/scripts/create.sh")
    assert create.read_text() == "echo created\n"
    assert fetch.fetch(f"{server.url}/scripts/create.sh") == create
    assert Fetcher(tmp_path / "cache").fetch(f"{server.url}/scripts/create.sh") == create
    assert server.hits["/scripts/create.sh"] == 1
    assert fetch.fetch(f"{server.url}/scripts/lib.sh").parent == create.parent
    assert create.name == "create.sh"


def test_what_cannot_be_fetched_says_why(server: Served, tmp_path: Path) -> None:
    fetch = fetcher(tmp_path, timeout=0.3, max_bytes=1024)
    cases = {f"{server.url}/nothing.sh": "HTTP 404",
             f"{server.url}/slow.sh": "it took longer than 0.3 s",
             f"{server.url}/huge.sh": "it is larger than 1024 bytes",
             f"{server.url}/private/secret.sh": "HTTP 401",
             "ftp://127.0.0.1/x.sh": "unsupported URL scheme 'ftp' (expected one of http, "
                                     "https, file)",
             "file://elsewhere/etc/hosts": "a file: URL names this machine's files, not host "
                                           "'elsewhere'"}
    for url, why in cases.items():
        with pytest.raises(FetchError) as caught:
            fetch.fetch(url)
        assert str(caught.value) == why, url
    assert not list((tmp_path / "cache").rglob("*.sh"))
    with pytest.raises(FetchError, match="^fetching URLs is disabled$"):
        Fetcher(None).fetch(f"{server.url}/scripts/create.sh")
    assert server.hits["/scripts/create.sh"] == 0


def test_credentials_and_file_urls(server: Served, tmp_path: Path) -> None:
    fetch = fetcher(tmp_path)
    got = fetch.fetch(f"{server.url}/private/secret.sh", {"user": USER, "token": TOKEN})
    assert got.read_text() == "echo secret\n"
    local = fetch.fetch((server.folder / "scripts" / "lib.sh").as_uri())
    assert local.read_text() == "LIB=1\n"
    assert local != server.folder / "scripts" / "lib.sh"     # a copy in the cache


def test_imports_and_artifacts_from_urls_and_repositories(server: Served,
                                                          tmp_path: Path) -> None:
    path = write(tmp_path / "bp", "s.yaml", template(f"""
        repositories:
          site: {{url: "{server.url}/"}}
          scripts: "{server.url}/scripts"
          private:
            url: {server.url}/private
            credential: {{user: {USER}, token: {TOKEN}}}
        imports:
          - {{file: types/base.yaml, repository: site}}
        topology_template:
          node_templates:
            app:
              type: remote.App
              artifacts:
                secret: {{file: secret.sh, repository: private}}
              interfaces:
                Standard:
                  create:
                    implementation:
                      primary: {server.url}/scripts/create.sh
                      dependencies: [setup]
                  configure:
                    implementation: {{primary: secret}}
                  start:
                    implementation:
                      primary: {{file: lib.sh, repository: scripts}}
        """))
    topology, problems = load_topology(path, fetcher=fetcher(tmp_path))
    assert [p.brief() for p in problems.sorted()] == []
    assert topology is not None
    app = topology.nodes["app"]
    create = app.interfaces["Standard"]["create"]
    assert create.primary is not None and create.primary.read_text() == "echo created\n"
    assert [p.read_text() for p in create.dependencies] == ["LIB=1\n"]
    # the type's artifact is relative to the fetched file that declares it
    assert app.artifacts["setup"] == create.dependencies[0]
    assert create.dependencies[0].parent == create.primary.parent
    configure = app.interfaces["Standard"]["configure"]
    assert configure.primary is not None and configure.primary.read_text() == \
        "echo secret\n"
    assert server.hits["/scripts/lib.sh"] == 1
    assert server.hits["/types/more.yaml"] == 1


def test_every_unfetchable_file_is_a_problem_with_its_place(server: Served,
                                                           tmp_path: Path) -> None:
    path = write(tmp_path / "bp", "s.yaml", template(f"""
        repositories:
          site: {server.url}
        imports:
          - {{file: types/none.yaml, repository: site}}
          - {{file: x.yaml, repository: nowhere}}
          - {server.url}/gone.yaml
        topology_template:
          node_templates:
            app:
              type: tosca.nodes.SoftwareComponent
              artifacts:
                lost: {{file: lost.sh, repository: site}}
                odd: {{file: x.sh, repository: unknown}}
              interfaces:
                Standard:
                  create: {server.url}/missing.sh
        """))
    topology, problems = load_topology(path, fetcher=fetcher(tmp_path))
    assert topology is None
    assert [f"{p.kind}: {p.brief()}" for p in problems.sorted()] == [
        f"invalid_template: s.yaml:6:5: import types/none.yaml: cannot fetch "
        f"{server.url}/types/none.yaml: HTTP 404",
        "invalid_template: s.yaml:7:5: import x.yaml: repository 'nowhere' is not declared "
        "in repositories",
        f"invalid_template: s.yaml:8:5: import {server.url}/gone.yaml: cannot fetch "
        f"{server.url}/gone.yaml: HTTP 404",
        f"missing_artifact: s.yaml:14:16: node app: artifact lost: cannot fetch "
        f"{server.url}/lost.sh: HTTP 404",
        "missing_artifact: s.yaml:15:15: node app: artifact odd: repository 'unknown' is not "
        "declared in repositories",
        f"missing_artifact: s.yaml:18:11: node app: interface Standard: operation create: "
        f"cannot fetch {server.url}/missing.sh: HTTP 404",
    ]


def test_a_template_given_as_data_fetches_nothing(server: Served, tmp_path: Path) -> None:
    data = {"tosca_definitions_version": "tosca_simple_yaml_1_3",
            "imports": [f"{server.url}/types/base.yaml"]}
    with pytest.raises(Rejected) as caught:
        ToscaFrontend().prepare_data(data, PrepareOptions(workdir=tmp_path))
    assert caught.value.message == (
        f"service.yaml:3:3: import {server.url}/types/base.yaml: cannot fetch "
        f"{server.url}/types/base.yaml: {DATA_REFUSAL}")
    assert sum(server.hits.values()) == 0
    enabled = ToscaFrontend(fetch_for_data=True).prepare_data(
        data, PrepareOptions(workdir=tmp_path))
    assert enabled.name == "service"
    assert server.hits["/types/base.yaml"] == 1


def test_a_temporary_cache_lives_as_long_as_its_fetcher(server: Served) -> None:
    fetch = Fetcher(None, temporary=True)
    got = fetch.fetch(f"{server.url}/scripts/create.sh")
    assert got.read_text() == "echo created\n"
    cache = fetch.cache
    assert cache is not None and got.is_relative_to(cache)
    del fetch
    assert not cache.exists()


def test_a_template_given_as_data_reads_no_file_outside_its_folder(tmp_path: Path) -> None:
    secret = write(tmp_path, "secret.sh", "echo secret\n")
    types = write(tmp_path, "types.yaml", template("node_types: {}\n"))
    data = {"tosca_definitions_version": "tosca_simple_yaml_1_3",
            "imports": [str(types), "../" * 12 + str(types).lstrip("/")],
            "topology_template": {"node_templates": {"app": {
                "type": "tosca.nodes.SoftwareComponent",
                "artifacts": {"it": {"file": str(secret)}},
                "interfaces": {"Standard": {"create": "../" * 12 + str(secret)[1:]}}}}}}
    with pytest.raises(Rejected) as caught:
        ToscaFrontend().prepare_data(data, PrepareOptions(workdir=tmp_path))
    up = "../" * 12
    assert caught.value.message.splitlines() == [
        f"service.yaml:3:3: imported file {types} does not exist",
        f"service.yaml:4:3: imported file {up}{str(types)[1:]} does not exist",
        f"service.yaml:11:11: node app: artifact it: file {secret} does not exist",
        f"service.yaml:14:11: node app: interface Standard: operation create: artifact file "
        f"{up}{str(secret)[1:]} does not exist"]
    # from a file, the same artifact may be read (the user chose to run the template)
    path = write(tmp_path / "bp", "s.yaml", template(f"""
        topology_template:
          node_templates:
            app:
              type: tosca.nodes.SoftwareComponent
              artifacts: {{it: {{file: "{secret}"}}}}
        """))
    topology, problems = load_topology(path)
    assert [p.brief() for p in problems.sorted()] == []
    assert topology is not None and topology.nodes["app"].artifacts == {"it": secret}


def test_a_template_given_as_data_is_kept_once_in_the_working_directory(
        tmp_path: Path) -> None:
    data = {"tosca_definitions_version": "tosca_simple_yaml_1_3",
            "topology_template": {"node_templates": {"app": {
                "type": "tosca.nodes.SoftwareComponent"}}}}
    first = ToscaFrontend().prepare_data(data, PrepareOptions(workdir=tmp_path))
    again = ToscaFrontend().prepare_data(data, PrepareOptions(workdir=tmp_path))
    kept = sorted((tmp_path / ".laguna" / "tosca-data").glob("*/service.yaml"))
    assert len(kept) == 1
    assert first.source == again.source == str(kept[0])
    assert yaml.safe_load(kept[0].read_text()) == data
