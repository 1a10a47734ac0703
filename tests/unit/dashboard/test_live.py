"""The environment's events relayed under the dashboard's cookie, through a
real uvicorn server: events as they are written, resumption, the API's
refusals passed on, and the API's stream ended (its slot freed) when the
browser goes away."""

from __future__ import annotations

import time
import typing as t

import httpx

from tests.unit.api.sse import Stream, token
from tests.unit.api.test_event_stream import Server, serve, summary  # noqa: F401 - the fixture
from tests.unit.store.conftest import database_url  # noqa: F401 - the fixture, reused
from tests.unit.store.test_store_events import Story


def relay_url(server: Server, environment_id: str) -> str:
    return f"{server.served.url}/dashboard/environments/{environment_id}/events"


def relayed(server: Server, environment_id: str, signed_in: str | None = None,
            last_event_id: str | None = None) -> Stream:
    headers = {"Cookie": f"laguna_dashboard_token={signed_in or server.token}"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return Stream(relay_url(server, environment_id), headers)


def test_events_come_through_as_they_are_written_and_resume(
        serve: t.Callable[..., Server]) -> None:  # noqa: F811
    server = serve()
    story = Story(server.database)
    stream = relayed(server, story.environment_id)
    try:
        assert stream.response.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert "content-length" not in stream.response.headers
        assert summary(stream.events(1)) == [("status", "pending")]
        deployment = story.start(1)
        story.report(deployment, "Creating the web server instance", 2)
        events = stream.events(3)
        # the status comes after the events a read found, or between reads
        assert sorted(summary(events)) == [("deployment", "running"),
                                           ("report", "Creating the web server instance"),
                                           ("status", "deploying")]
        events = [e for e in events if e.event == "report"]
    finally:
        stream.close()
    # EventSource's reconnection sends the last id: only what came after it
    story.report(deployment, "Starting the web server", 3)
    resumed = relayed(server, story.environment_id, last_event_id=events[-1].id)
    try:
        assert summary(resumed.events(1)) == [("report", "Starting the web server")]
    finally:
        resumed.close()


def test_the_apis_refusals_are_passed_on(serve: t.Callable[..., Server]) -> None:  # noqa: F811
    server = serve()
    story = Story(server.database)
    stranger = token(server.database, "p2")
    refused = httpx.get(relay_url(server, story.environment_id),
                        headers={"Cookie": f"laguna_dashboard_token={stranger}"})
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == ("User is not authorized to access these "
                                                  "tenant resources")
    missing = httpx.get(relay_url(server, "nothing"),
                        headers={"Cookie": f"laguna_dashboard_token={server.token}"})
    assert missing.status_code == 404
    # not signed in: the sign-in page, and back after
    anonymous = httpx.get(relay_url(server, story.environment_id))
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == (
        f"/dashboard/sign-in?next=/dashboard/environments/{story.environment_id}/events")


def test_the_browser_going_away_frees_the_apis_stream(
        serve: t.Callable[..., Server]) -> None:  # noqa: F811
    server = serve(max_event_streams=1)
    story = Story(server.database)
    state = server.served.server.config.app.state.laguna
    stream = relayed(server, story.environment_id)
    try:
        assert summary(stream.events(1)) == [("status", "pending")]
        assert state.streams.open == 1
        over = httpx.get(relay_url(server, story.environment_id),
                         headers={"Cookie": f"laguna_dashboard_token={server.token}"})
        assert over.status_code == 503
    finally:
        stream.close()
    # told at once, not when the relay gives up waiting on it (5 s)
    deadline = time.monotonic() + 2
    while state.streams.open != 0:
        assert time.monotonic() < deadline, state.streams.open
        time.sleep(0.02)
    again = relayed(server, story.environment_id)
    try:
        assert again.response.status_code == 200
    finally:
        again.close()
