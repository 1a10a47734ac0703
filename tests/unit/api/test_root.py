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


def test_no_page_loads_scripts_from_a_cdn(api: Api) -> None:
    # FastAPI's /docs and /redoc fetch their scripts from the Internet: not served
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        assert api.client.get(path).status_code == 404, path
    document = api.client.get("/openapi.json")
    assert (document.status_code, document.json()["openapi"]) == (200, "3.1.0")
