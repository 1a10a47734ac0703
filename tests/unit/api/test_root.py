from __future__ import annotations

from tests.unit.api.conftest import Api
from tests.unit.api.packages import fault


def test_versions_answer_without_a_token(api: Api) -> None:
    response = api.client.get("/")
    assert response.status_code == 300
    assert response.json() == {"versions": [{
        "id": "v1.0", "status": "CURRENT",
        "links": [{"rel": "self", "href": "http://testserver/v1/"}]}]}


def test_an_unknown_route_answers_in_the_original_fault_shape(api: Api) -> None:
    response = api.client.get("/v1/nothing-here", headers=api.headers(api.token()))
    assert response.status_code == 404
    assert response.json() == fault(404, "Not Found")
