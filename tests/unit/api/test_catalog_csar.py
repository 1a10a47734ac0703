"""CSARs through the API's package upload (the path python-muranoclient takes):
stored as TOSCA packages beside the MuranoPL ones, or refused with every problem."""

from __future__ import annotations

from tests.unit.api.conftest import Api
from tests.unit.api.packages import fault, upload, uploaded
from tests.unit.frontends.tosca.csars import zip_of

TEMPLATE = """tosca_definitions_version: tosca_simple_yaml_1_3
description: hello as a CSAR
metadata: {template_name: hello-csar, template_version: 0.2.0}
topology_template:
  node_templates:
    hello: {type: tosca.nodes.Root}
"""


def test_a_csar_upload_is_stored_as_a_tosca_package(api: Api) -> None:
    body = uploaded(api, api.token(), zip_of({"service.yaml": TEMPLATE}), {"tags": ["x"]})
    assert (body["fully_qualified_name"], body["name"], body["type"], body["description"],
            body["owner_id"], body["class_definitions"]) == (
        "hello-csar", "hello-csar", "Tosca", "hello as a CSAR", "p1", [])
    listed = api.client.get("/v1/catalog/packages", params={"type": "tosca"},
                            headers=api.headers(api.token())).json()["packages"]
    assert [p["fully_qualified_name"] for p in listed] == ["hello-csar"]
    again = upload(api, api.token(), zip_of({"service.yaml": TEMPLATE}))
    assert (again.status_code, again.json()) == (409, fault(
        409, "Package with specified full name is already registered"))


def test_a_csar_with_a_path_out_of_it_is_refused(api: Api) -> None:
    response = upload(api, api.token(), zip_of({"service.yaml": TEMPLATE,
                                                "../outside.sh": "true"}))
    assert (response.status_code, response.json()) == (400, fault(
        400, "Couldn't load package from file: CSAR refused: archive entry "
             "'../outside.sh' points outside the package ('..')"))


def test_a_csar_whose_template_is_invalid_is_refused_with_its_problems(api: Api) -> None:
    response = upload(api, api.token(), zip_of({"service.yaml": TEMPLATE.replace(
        "tosca.nodes.Root", "tosca.nodes.Nothing")}))
    assert (response.status_code, response.json()) == (400, fault(
        400, "Couldn't load package from file: CSAR refused: service.yaml:6:13: "
             "error[LAG-E1503]: node hello: unknown node type 'tosca.nodes.Nothing'"))


def test_a_csar_whose_scripts_would_run_on_the_apis_machine_is_not_deployed(
        api: Api) -> None:
    token = api.token()
    uploaded(api, token, zip_of({"service.yaml": TEMPLATE.replace(
        "hello: {type: tosca.nodes.Root}",
        "hello: {type: tosca.nodes.Root, interfaces: {Standard: {create: run.sh}}}"),
        "run.sh": "touch ran\n"}))
    env_id = api.client.post("/v1/environments", json={"name": "here"},
                             headers=api.headers(token)).json()["id"]
    session_id = api.client.post(f"/v1/environments/{env_id}/configure",
                                 headers=api.headers(token)).json()["id"]
    api.client.post(f"/v1/environments/{env_id}/services",
                    json={"?": {"id": "a1", "type": "hello-csar"}},
                    headers=api.headers(token, session_id))
    api.client.post(f"/v1/environments/{env_id}/sessions/{session_id}/deploy",
                    headers=api.headers(token))
    assert api.run_tasks() == 1
    session = api.client.get(f"/v1/environments/{env_id}/sessions/{session_id}",
                             headers=api.headers(token)).json()
    assert session["state"] == "deploy failure"
    assert not (api.workdir / "ran").exists()
    task = api.queue.database
    from laguna.store.models import TaskRecord
    with task.session() as db:
        results = [record.result for record in db.query(TaskRecord)]
    assert results == [{"status": "rejected", "error": {
        "kind": "model_invalid", "code": "LAG-E1010",
        "message": "hello-csar: node hello would run its operations on the API's machine; "
                   "through the API, every node with operations is hosted on a "
                   "tosca.nodes.Compute"}}]
