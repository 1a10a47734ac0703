"""A CSAR's inputs and an assembly descriptor's properties through the API, as
the dashboard's forms use them: listed as fields with their types and
constraints (GET .../inputs), checked with the front ends' own messages when
the application is added to a session, and an assembly descriptor of the
catalog deployed as an environment's application."""

from __future__ import annotations

import io
import shutil
import typing as t
import zipfile
from pathlib import Path

from laguna.frontends.assembly.packaging import read_package
from laguna.store import packages as repo
from tests.unit.api.conftest import EXAMPLES, Api
from tests.unit.api.packages import uploaded
from tests.unit.api.test_environments import configure, create

FORMS = Path(__file__).parents[2] / "fixtures" / "forms"


def zipped(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def import_descriptors(api: Api, *folders: Path) -> dict[str, str]:
    ids = {}
    with api.database.session() as session:
        for folder in folders:
            found = read_package(folder)
            record = repo.import_descriptor_package(
                session, kind=found.kind, name=found.name, version=found.version,
                description=found.description, archive=found.archive,
                manifest=found.manifest, is_public=True)
            session.flush()
            ids[str(found.manifest["Descriptor"])] = record.id.hex
    return ids


def inputs_of(api: Api, token: str, package_id: str) -> dict[str, t.Any]:
    answer = api.client.get(f"/v1/catalog/packages/{package_id}/inputs",
                            headers=api.headers(token))
    assert answer.status_code == 200, answer.text
    return t.cast(dict[str, t.Any], answer.json())


def test_a_csar_s_inputs_are_fields_and_checked_when_added(api: Api) -> None:
    token = api.token()
    package = uploaded(api, token, zipped(FORMS / "greeter"))
    shown = inputs_of(api, token, package["id"])
    assert (shown["kind"], shown["type"], shown["name"]) == ("tosca", "greeter", "greeter")
    assert shown["inputs"][:2] == [
        {"name": "greeting", "type": "string", "required": True,
         "description": "The text of the page.", "default": "Hello from a form",
         "constraints": [{"min_length": 2}, {"max_length": 40}]},
        {"name": "port", "type": "integer", "required": True,
         "description": "The port the page is served on, unprivileged.",
         "constraints": [{"in_range": [1024, 65535]}]}]
    assert [(f["name"], f["required"], f.get("entry_schema")) for f in shown["inputs"][2:]] == [
        ("colour", True, None), ("code", False, None), ("ratio", True, None),
        ("shout", True, None), ("tags", False, {"type": "string"})]

    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    refused = api.client.post(
        f"/v1/environments/{env_id}/services", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "greeter"}, "port": 80, "colour": "pink"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "The inputs of greeter are refused:\n"
        "input port: the value given: 80 is not in range [1024, 65535]\n"
        "input colour: the value given: 'pink' is not one of 'blue', 'green', 'red'")
    added = api.client.post(
        f"/v1/environments/{env_id}/services", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "greeter"}, "port": 8095, "colour": "green"})
    assert added.status_code == 200, added.text
    # replacing the application is checked the same way
    replaced = api.client.put(
        f"/v1/environments/{env_id}/services/a1", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "greeter"}, "port": 8095, "ratio": 0})
    assert (replaced.status_code, replaced.json()["error"]["message"]) == (400, (
        "The inputs of greeter are refused:\n"
        "input ratio: the value given: 0 is not greater than 0"))


def test_an_assembly_s_properties_are_fields_checked_and_deployed(api: Api) -> None:
    ids = import_descriptors(api, EXAMPLES / "assembly" / "web", FORMS / "site")
    token = api.token()
    shown = inputs_of(api, token, ids["assembly::forms.site::1.0"])
    assert (shown["kind"], shown["type"]) == ("assembly", "assembly::forms.site::1.0")
    assert shown["inputs"] == [
        {"name": "greeting", "type": "string", "required": False, "description": "",
         "default": "Hello from an assembly form", "constraints": []},
        {"name": "port", "type": "integer", "required": True, "description": "",
         "constraints": []},
        {"name": "loud", "type": "boolean", "required": False, "description": "",
         "default": False, "constraints": []},
        {"name": "location", "type": "string", "required": False, "description": "",
         "default": "local-cloud", "constraints": []}]
    # a resource descriptor is deployed by the assemblies that use it
    other = api.client.get(f"/v1/catalog/packages/{ids['resource::example.web::1.0']}/inputs",
                           headers=api.headers(token))
    assert other.status_code == 400

    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    refused = api.client.post(
        f"/v1/environments/{env_id}/services", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "assembly::forms.site"}, "port": "eighty",
              "colour": "red"})
    assert (refused.status_code, refused.json()["error"]["message"]) == (400, (
        "The inputs of assembly::forms.site::1.0 are refused:\n"
        "property 'port' (integer): \"eighty\" is not an integer\n"
        "property 'colour' is not an input of assembly::forms.site::1.0 "
        "(its inputs: greeting, port, loud, location)"))
    missing = api.client.post(
        f"/v1/environments/{env_id}/services", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "assembly::forms.site"}})
    assert missing.json()["error"]["message"] == (
        "The inputs of assembly::forms.site::1.0 are refused:\n"
        "property 'port' (integer): a value is required")
    added = api.client.post(
        f"/v1/environments/{env_id}/services", headers=api.headers(token, session_id),
        json={"?": {"id": "a1", "type": "assembly::forms.site"}, "port": 8096})
    assert added.status_code == 200, added.text

    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    assert api.run_tasks() == 1
    # the page's Install ran through its host's agent (a recording one here,
    # which answers no result): on a server of the cloud, not on this machine
    assert task_results(api) == [{"status": "failed", "error": {
        "kind": "transition_failed", "code": "LAG-E1618",
        "message": "Install of shop__page exited with 1",
        "output": "the agent of shop__page failed plan 'Install': None"}}]


def test_an_assembly_whose_scripts_would_run_on_the_api_s_machine_is_refused(
        api: Api, tmp_path: Path) -> None:
    # the resource's Uninstall leaves a mark where it runs
    web = tmp_path / "web"
    shutil.copytree(EXAMPLES / "assembly" / "web", web)
    marker = tmp_path / "uninstalled-here"
    (web / "Lifecycle" / "shell" / "scripts" / "Uninstall.sh").write_text(f"touch {marker}\n")
    import_descriptors(api, web, FORMS / "site")
    token = api.token()
    env_id = create(api, token)["id"]
    session_id = configure(api, token, env_id)
    api.client.post(f"/v1/environments/{env_id}/services",
                    headers=api.headers(token, session_id),
                    json={"?": {"id": "a1", "type": "assembly::forms.site::1.0"},
                          "port": 8097, "location": "here"})
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    assert api.run_tasks() == 1
    [result] = task_results(api)
    assert (result["status"], result["error"]["message"]) == ("failed", (
        "shop__page: its deploymentLocation is 'here', which runs its scripts on the "
        "API's machine; through the API, every resource with scripts is placed on "
        "local-cloud"))
    # deleting it runs nothing of it here either: the API's engine confines
    # every operation on an assembly (its undeploy too), not its deploy alone
    assert api.client.delete(f"/v1/environments/{env_id}",
                             headers=api.headers(token)).status_code == 200
    assert api.run_tasks() == 1
    assert task_results(api)[-1] == {"status": "failed", "error": {
        "kind": "transition_failed", "code": "LAG-E1618",
        "message": "shop__page: its deploymentLocation is 'here', which runs its scripts "
                   "on the API's machine; through the API, every resource with scripts is "
                   "placed on local-cloud"}}
    assert not marker.exists()
    # abandoned, it is gone from the store, and still nothing ran here
    assert api.client.delete(f"/v1/environments/{env_id}", params={"abandon": "true"},
                             headers=api.headers(token)).status_code == 200
    assert api.client.get(f"/v1/environments/{env_id}",
                          headers=api.headers(token)).status_code == 404
    assert not marker.exists()

def task_results(api: Api) -> list[t.Any]:
    from laguna.store.models import TaskRecord
    with api.queue.database.session() as db:
        return [record.result for record in db.query(TaskRecord)]
