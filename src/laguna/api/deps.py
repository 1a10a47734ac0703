"""FastAPI dependencies: the caller's context and a store session per request."""

from __future__ import annotations

import typing as t

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

from laguna.api.errors import ApiError
from laguna.api.identity import RequestContext
from laguna.api.state import ApiState


def api_state(request: Request) -> ApiState:
    return t.cast(ApiState, request.app.state.laguna)


def caller(request: Request,
           x_auth_token: t.Annotated[str | None, Header()] = None) -> RequestContext:
    """The caller of the request, from ``X-Auth-Token``; 401 without a valid one."""
    if not x_auth_token:
        raise ApiError(401, "Authentication required: send a token in X-Auth-Token")
    context = api_state(request).identity.authenticate(x_auth_token)
    if context is None:
        raise ApiError(401, "The token in X-Auth-Token is not valid or has expired")
    request.scope.setdefault("state", {})["project_id"] = context.project_id
    return context


def store(request: Request) -> t.Iterator[Session]:
    """A session of the store, committed when the route returns, else rolled back."""
    with api_state(request).database.session() as session:
        yield session


def reader(request: Request) -> t.Iterator[Session]:
    """A session that only reads (GETs): it does not wait for writers on SQLite."""
    with api_state(request).database.read_session() as session:
        yield session


Caller = t.Annotated[RequestContext, Depends(caller)]
Store = t.Annotated[Session, Depends(store)]
Reader = t.Annotated[Session, Depends(reader)]
State = t.Annotated[ApiState, Depends(api_state)]
ConfigurationSessionHeader = t.Annotated[str | None, Header(alias="X-Configuration-Session")]
