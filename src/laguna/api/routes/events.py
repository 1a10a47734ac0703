"""``/v1/environments/{id}/events``: an environment's live events (server-sent events)."""

from __future__ import annotations

import typing as t

from fastapi import APIRouter, Header, Query
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from laguna.api.deps import Caller, State
from laguna.api.environments import check_environment
from laguna.api.errors import ApiError, bad_request
from laguna.api.eventstream import EventStream, follow
from laguna.api.identity import RequestContext
from laguna.store import events as store_events
from laguna.store.db import Database
from laguna.store.events import Cursor, InvalidCursor

router = APIRouter(tags=["environments"])

DESCRIPTION = """\
The environment's events as `text/event-stream`: status reports (`event: report`),
deployments started and finished (`event: deployment`) and status changes
(`event: status`), each with `id:` (a cursor) and `data:` (JSON). First the events
after `Last-Event-ID` (or the `since` query; `0`: from the first deployment; neither:
from the start of the last deployment), then each one as it is committed, by any
process sharing the store. A comment line is sent every 15 s while nothing happens.
Scoped as `GET /v1/environments/{environment_id}` (404, 403). 503 when the server
has its maximum of streams open. See docs/API.md for the events' fields.
"""


def too_many(limit: int) -> ApiError:
    return ApiError(503, f"Too many event streams are open: the limit (max_event_streams) "
                         f"is {limit}; try again later")


@router.get("/environments/{environment_id}/events",
            summary="Stream the environment's events (server-sent events)",
            description=DESCRIPTION, response_class=EventStream,
            responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                             "description": "The events, as they come"}})
async def stream_events(
        environment_id: str, context: Caller, state: State,
        since: t.Annotated[str | None, Query(
            description="A cursor (an event's `id`) to start after; `0`: the beginning")] = None,
        last_event_id: t.Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    limit = state.settings.max_event_streams
    # taken before the store is read: a server at its bound answers without work
    if not state.streams.take(limit):
        raise too_many(limit)
    try:
        cursor = await run_in_threadpool(_start, state.database, context, environment_id,
                                         last_event_id or since)
    except BaseException:
        state.streams.give_back()
        raise
    return EventStream(follow(state.database, environment_id, cursor,
                              state.settings.event_poll_interval,
                              state.settings.event_keepalive),
                       release=state.streams.give_back)


def _start(database: Database, context: RequestContext, environment_id: str,
           given: str | None) -> Cursor:
    """The stream's first cursor, once the caller may see the environment."""
    with database.read_session() as session:
        check_environment(session, context, environment_id)
        if given is None or not given.strip():
            return store_events.before_last_deployment(session, environment_id)
    try:
        return Cursor.parse(given)
    except InvalidCursor as error:
        raise bad_request(error.message) from None
