"""Instance statistics of an environment and the service's request statistics."""

from __future__ import annotations

import datetime
import typing as t

import pytest

from laguna.api.environments import create_environment
from laguna.api.identity import RequestContext
from laguna.store.instances import APPLICATION, INSTANCE, destroy_instance, track_instance
from laguna.store.models import ApiStatRecord
from tests.unit.api.conftest import Api

def moment() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def ago(seconds: int, now: datetime.datetime) -> datetime.datetime:
    return now - datetime.timedelta(seconds=seconds)


@pytest.fixture()
def environment(api: Api) -> str:
    """An environment of project p1 with a destroyed VM (lived 60 s), a live VM
    (since 1000 s ago) and a live application (since 500 s ago)."""
    context = RequestContext("p1", "u1", False, "token")
    now = moment()
    with api.database.session() as session:
        record = create_environment(session, context, "env1")
        environment_id = record.id
        track_instance(session, environment_id, "p1", "vm-1", INSTANCE,
                       "io.murano.resources.LinuxMuranoInstance", "Linux VM", None, ago(2000, now))
        destroy_instance(session, environment_id, "vm-1", ago(1940, now))
        track_instance(session, environment_id, "p1", "vm-2", INSTANCE,
                       "io.murano.resources.LinuxMuranoInstance", None, None, ago(1000, now))
        track_instance(session, environment_id, "p1", "app-1", APPLICATION,
                       "io.murano.apps.Telnet", "Telnet", 2, ago(500, now))
    return environment_id


def get(api: Api, path: str, project: str = "p1", admin: bool = False) -> t.Any:
    return api.client.get(f"/v1{path}", headers=api.headers(api.token(project, "u", admin)))


def near(value: int, expected: int) -> bool:
    # a live component's duration runs until the request: allow the test's own time
    return expected <= value <= expected + 30


def test_raw_statistics_of_an_environment(api: Api, environment: str) -> None:
    response = get(api, f"/environments/{environment}/instance-statistics/raw")
    assert response.status_code == 200
    rows = response.json()
    assert [row["instance_id"] for row in rows] == ["vm-1", "vm-2", "app-1"]
    assert rows[0] == {"type": 200, "duration": 60, "active": False, "instance_id": "vm-1",
                       "type_name": "io.murano.resources.LinuxMuranoInstance",
                       "type_title": "Linux VM", "unit_count": None}
    assert (rows[1]["active"], rows[1]["type_title"]) == (True, None)
    assert near(rows[1]["duration"], 1000)
    assert (rows[2]["type"], rows[2]["unit_count"], rows[2]["active"]) == (100, 2, True)
    assert near(rows[2]["duration"], 500)


def test_raw_statistics_of_one_instance(api: Api, environment: str) -> None:
    rows = get(api, f"/environments/{environment}/instance-statistics/raw/vm-1").json()
    assert [(row["instance_id"], row["duration"]) for row in rows] == [("vm-1", 60)]
    assert get(api, f"/environments/{environment}/instance-statistics/raw/none").json() == []


def test_aggregated_statistics(api: Api, environment: str) -> None:
    rows = get(api, f"/environments/{environment}/instance-statistics/aggregated").json()
    assert [(row["type"], row["count"]) for row in rows] == [(100, 1), (200, 2)]
    assert near(rows[0]["duration"], 500)
    assert near(rows[1]["duration"], 1060)


def test_tracking_again_keeps_the_start_and_takes_the_unit_count(api: Api,
                                                                 environment: str) -> None:
    now = moment()
    with api.database.session() as session:
        track_instance(session, environment, "p1", "app-1", APPLICATION,
                       "io.murano.apps.Telnet", "Telnet", 5, ago(10, now))
        destroy_instance(session, environment, "vm-1", ago(5, now))   # already destroyed
    rows = get(api, f"/environments/{environment}/instance-statistics/raw").json()
    assert rows[0]["duration"] == 60
    assert (rows[2]["unit_count"], near(rows[2]["duration"], 500)) == (5, True)


def test_an_environment_without_instances(api: Api) -> None:
    with api.database.session() as session:
        environment_id = create_environment(
            session, RequestContext("p1", "u1", False, "t"), "empty").id
    for kind in ("raw", "aggregated"):
        response = get(api, f"/environments/{environment_id}/instance-statistics/{kind}")
        assert (response.status_code, response.json()) == (200, [])


@pytest.mark.parametrize("path", ["raw", "raw/vm-1", "aggregated"])
def test_another_projects_statistics_are_403(api: Api, environment: str, path: str) -> None:
    response = get(api, f"/environments/{environment}/instance-statistics/{path}", "p2")
    assert response.status_code == 403
    assert response.json()["error"]["explanation"] == (
        "User is not authorized to access these tenant resources")
    admin = get(api, f"/environments/{environment}/instance-statistics/{path}", "p2", True)
    assert admin.status_code == 200


@pytest.mark.parametrize("path", ["raw", "raw/vm-1", "aggregated"])
def test_statistics_of_an_unknown_environment_are_404(api: Api, path: str) -> None:
    response = get(api, f"/environments/nothing/instance-statistics/{path}")
    assert response.status_code == 404
    assert response.json()["error"]["explanation"] == "Environment with id nothing not found"


def test_request_statistics(api: Api) -> None:
    token = api.token("p1", "u1")
    api.client.get("/v1/templates", headers=api.headers(token))
    api.client.get("/v1/templates/nothing", headers=api.headers(token))
    response = api.client.get("/v1/stats", headers=api.headers(token))
    assert response.status_code == 200
    [entry] = response.json()
    assert set(entry) == {"id", "host", "created", "updated", "request_count", "error_count",
                          "average_response_time", "requests_per_tenant",
                          "requests_per_second", "errors_per_second", "cpu_count",
                          "cpu_percent"}
    # the two requests before (a 404 is not a server error); this one counts when done
    assert (entry["request_count"], entry["error_count"]) == (2, 0)
    assert entry["requests_per_tenant"] == '{"p1": 2}'


def test_request_statistics_need_a_token(api: Api) -> None:
    assert api.client.get("/v1/stats").status_code == 401


def test_request_statistics_show_a_project_its_own_counts_only(api: Api) -> None:
    mine, theirs = api.token("pa", "u1"), api.token("pb", "u2")
    api.client.get("/v1/templates", headers=api.headers(mine))
    for _ in range(3):
        api.client.get("/v1/templates", headers=api.headers(theirs))
    api.client.get("/v1/environments")    # no token: 401, the host's alone
    [entry] = api.client.get("/v1/stats", headers=api.headers(mine)).json()
    assert (entry["request_count"], entry["error_count"]) == (1, 0)
    assert entry["requests_per_tenant"] == '{"pa": 1}'
    # an admin sees the host's counts and every project's
    admin = api.token("ops", "root", admin=True)
    [entry] = api.client.get("/v1/stats", headers=api.headers(admin)).json()
    assert (entry["request_count"], entry["error_count"]) == (6, 0)
    assert entry["requests_per_tenant"] == '{"pa": 2, "pb": 3}'


def test_request_statistics_of_a_project_without_requests_are_zero(api: Api) -> None:
    api.client.get("/v1/templates", headers=api.headers(api.token("pb", "u2")))
    [entry] = api.client.get("/v1/stats", headers=api.headers(api.token("pa", "u1"))).json()
    assert (entry["request_count"], entry["requests_per_tenant"]) == (0, "{}")
    assert (entry["average_response_time"], entry["requests_per_second"]) == (0.0, 0.0)


def test_the_originals_rows_are_shown_to_admins_before_the_hosts(api: Api) -> None:
    """Rows ``laguna takeover murano`` brought from Murano's ``apistats`` (one per
    API host it had) come first, with their ids, as Murano last wrote them; this
    host's follows with the next id. A project sees its own counts only."""
    at = datetime.datetime(2023, 5, 4, 10, 50, tzinfo=datetime.timezone.utc)
    with api.database.session() as session:
        session.add_all(ApiStatRecord(
            id=id_, host=f"murano-api-{id_}", request_count=10 * id_, error_count=id_,
            average_response_time=0.25, requests_per_tenant='{"t1": 10}',
            requests_per_second=0.5, errors_per_second=0.01, cpu_count=4, cpu_percent=12.5,
            created=at, updated=at) for id_ in (1, 2))
    admin = api.token("ops", "root", admin=True)
    entries = api.client.get("/v1/stats", headers=api.headers(admin)).json()
    assert [(e["id"], e["host"], e["request_count"], e["error_count"]) for e in entries[:2]] \
        == [(1, "murano-api-1", 10, 1), (2, "murano-api-2", 20, 2)]
    assert entries[0] == {
        "id": 1, "host": "murano-api-1", "created": "2023-05-04T10:50:00",
        "updated": "2023-05-04T10:50:00", "request_count": 10, "error_count": 1,
        "average_response_time": 0.25, "requests_per_tenant": '{"t1": 10}',
        "requests_per_second": 0.5, "errors_per_second": 0.01, "cpu_count": 4,
        "cpu_percent": 12.5}
    assert (len(entries), entries[2]["id"], entries[2]["request_count"]) == (3, 3, 0)
    [mine] = api.client.get("/v1/stats", headers=api.headers(api.token("pa", "u1"))).json()
    assert (mine["id"], mine["request_count"], mine["requests_per_tenant"]) == (3, 0, "{}")


def test_event_streams_are_not_counted_as_answered_requests() -> None:
    import asyncio

    from laguna.api.app import _CountRequests
    from laguna.api.stats import RequestStats

    async def answer(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def nothing(_message: t.Any) -> None:
        pass

    async def receive() -> dict[str, t.Any]:
        return {"type": "http.request", "body": b""}

    stats = RequestStats()
    counting = _CountRequests(answer, stats)
    for path in ("/v1/environments", "/v1/environments/e1/events", "/v1/environments/e1"):
        asyncio.run(counting({"type": "http", "path": path, "state": {}}, receive, nothing))
    assert stats.host.requests == 2
