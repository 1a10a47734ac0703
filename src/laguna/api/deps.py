"""FastAPI dependencies: the caller's context and a store session per request.

:func:`api_state` and :func:`caller` do no I/O and are ``async``: FastAPI runs
a plain ``def`` dependency in its thread pool, a hop that costs more than
either's work. The sessions' dependencies stay plain functions (their exits
commit or roll back, I/O): the routes the clients call most open their
session in their own body instead, so that its I/O shares the route's hop.
"""

from __future__ import annotations

import typing as t

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from laguna.api.identity import RequestContext, authenticate
from laguna.api.limits import CALLER_KEY
from laguna.api.state import ApiState


async def api_state(request: Request) -> ApiState:
    return state_of(request)


def state_of(request: Request) -> ApiState:
    return t.cast(ApiState, request.app.state.laguna)


async def caller(request: Request,
                 x_auth_token: t.Annotated[str | None, Header()] = None) -> RequestContext:
    """The caller of the request, from ``X-Auth-Token``; 401 without a valid one.

    :class:`~laguna.api.limits.RequestLimits` authenticated every ``/v1``
    request before its body was read and left the caller in the scope."""
    state = request.scope.setdefault("state", {})
    found = state.get(CALLER_KEY)
    if isinstance(found, RequestContext):
        return found
    # the identity may read the store or ask Keystone: not on the event loop
    context = await run_in_threadpool(authenticate, state_of(request).identity, x_auth_token)
    state[CALLER_KEY] = context
    state["project_id"] = context.project_id
    return context


def store(request: Request) -> t.Iterator[Session]:
    """A session of the store, committed when the route returns, else rolled back.

    Used with the scope ``function`` (:data:`Store`): FastAPI's default runs a
    dependency's exit after the answer is sent, so a client could read its
    own write's answer, ask again and be served the snapshot before the
    commit (or be told 200 for a commit that then failed)."""
    with state_of(request).database.session() as session:
        yield session


def reader(request: Request) -> t.Iterator[Session]:
    """A session that only reads (GETs): it does not wait for writers on SQLite.

    Closed before the answer is sent (scope ``function``), so that no read
    transaction stays open on a pooled connection while a slow client
    reads the answer."""
    with state_of(request).database.read_session() as session:
        yield session


Caller = t.Annotated[RequestContext, Depends(caller)]
Store = t.Annotated[Session, Depends(store, scope="function")]
Reader = t.Annotated[Session, Depends(reader, scope="function")]
State = t.Annotated[ApiState, Depends(api_state)]
ConfigurationSessionHeader = t.Annotated[str | None, Header(alias="X-Configuration-Session")]
