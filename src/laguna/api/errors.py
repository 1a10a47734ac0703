"""Errors as the original client can read them.

Every error body is one object under ``error``::

    {"error": {"code": 403, "title": "Forbidden", "message": "...",
               "explanation": "...", "type": "HTTPForbidden", "traceback": null}}

The fields are the original's fault middleware's, gathered under one key:
its client reads an error's text as the ``message`` of every object at the
top of a JSON error body (``muranoclient.common.exceptions.from_response``),
and fails on the original's own top-level ``code`` (an integer) and ``title``.
"""

from __future__ import annotations

import http
import logging
import typing as t

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from laguna.errors import LagunaError

log = logging.getLogger(__name__)

#: webob's class names for the codes the API answers
_TYPES = {
    400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden", 404: "HTTPNotFound",
    405: "HTTPMethodNotAllowed", 406: "HTTPNotAcceptable", 409: "HTTPConflict",
    413: "HTTPRequestEntityTooLarge", 415: "HTTPUnsupportedMediaType",
    500: "HTTPInternalServerError", 501: "HTTPNotImplemented", 503: "HTTPServiceUnavailable",
}


class ApiError(LagunaError):
    """An answer other than success: its HTTP ``status`` and what the caller reads."""

    code = "LAG-E1700"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def forbidden(message: str) -> ApiError:
    return ApiError(403, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, message)


def conflict(message: str) -> ApiError:
    return ApiError(409, message)


def fault(code: int, message: str) -> dict[str, t.Any]:
    """The original's error body for ``code``."""
    title = http.HTTPStatus(code).phrase if code in http.HTTPStatus._value2member_map_ \
        else "Error"
    return {"error": {"code": code, "title": title, "message": message,
                      "explanation": message, "type": _TYPES.get(code, "HTTPError"),
                      "traceback": None}}


def _response(code: int, message: str) -> JSONResponse:
    return JSONResponse(fault(code, message), status_code=code)


def install(app: FastAPI) -> None:
    """Answer every error, FastAPI's own included, in the original's shape."""

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, error: ApiError) -> JSONResponse:
        return _response(error.status, error.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _response(error.status_code, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(_problem(item) for item in error.errors())
        return _response(400, f"The request is invalid: {problems}")

    @app.exception_handler(Exception)
    async def internal(_request: Request, error: Exception) -> JSONResponse:
        log.exception("the API failed on a request")
        return _response(500, "The server failed to answer the request; see its log")


def _problem(item: t.Mapping[str, t.Any]) -> str:
    if item.get("type") == "json_invalid":
        # its loc is (body, character offset): say what and where in words
        loc = tuple(item.get("loc", ()))
        reason = (item.get("ctx") or {}).get("error") or item.get("msg")
        return f"the body is not JSON: {reason} at character {loc[-1] if loc else '?'}"
    where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
    return f"{where}: {item.get('msg', 'invalid')}" if where else str(item.get("msg"))


#: what the original answered when its policy refused an operation (webob's text)
ACCESS_DENIED = "Access was denied to this resource."


def admin_only(is_admin: bool) -> None:
    """403 unless the caller is an admin: the original's ``admin_api`` policy rule."""
    if not is_admin:
        raise forbidden(ACCESS_DENIED)
