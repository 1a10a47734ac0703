"""The bounds of a request, held before the application reads it.

:class:`RequestLimits` is plain ASGI in front of the routes. FastAPI reads a
route's whole body before it solves the route's dependencies, the caller
included, so an unauthenticated client could make the server hold any body
it sent; and Starlette spools an upload's file parts to disk before a route
sees their size. Here, in order:

1. a ``/v1`` request's ``X-Auth-Token`` is checked before a byte of its body
   is received: 401 without reading it;
2. a body whose ``Content-Length`` is over the limit answers 413 at once;
   a body sent without one (chunked) is counted as it arrives and cut with
   413 at the first chunk over the limit;
3. a JSON body is scanned for its nesting while it arrives, 400 past
   ``max_json_depth`` levels: ``json.loads`` recurses once per level (and
   the server's recursion limit is high, :mod:`laguna.process`), and
   pydantic refuses to serialise an answer nested deeper than about 250.

Package uploads (``POST /v1/catalog/packages``, and the dashboard's import
page) are bounded by the archive's limit plus :data:`UPLOAD_ALLOWANCE` for the
metadata part and the multipart framing; every other body by
``max_body_size``. A refused request of the dashboard gets its error page.
"""

from __future__ import annotations

import re
import typing as t

from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from laguna.api.errors import ApiError, fault
from laguna.api.identity import Identity, authenticate
from laguna.api.settings import ApiSettings
from laguna.dashboard import pages as dashboard
from laguna.errors import LagunaError

#: what an upload may carry besides its archive: the ``__metadata__`` part and
#: the multipart boundaries and part headers
UPLOAD_ALLOWANCE = 64 * 1024
#: where the middleware leaves the caller for :func:`laguna.api.deps.caller`
CALLER_KEY = "laguna.caller"
#: the routes whose body is a package upload (method, path)
#: (the dashboard's import page posts the same archive: laguna.dashboard.catalog)
UPLOAD_ROUTES = frozenset({("POST", "/v1/catalog/packages"), ("POST", dashboard.IMPORT_PATH)})


def body_too_large(limit: int) -> str:
    return f"Request body is too large: the limit (max_body_size) is {limit} bytes"


def upload_too_large(limit: int) -> str:
    return f"Uploading file is too large: the limit (max_package_size) is {limit} bytes"


def too_deep(limit: int) -> str:
    return f"Request body is nested too deep: the limit (max_json_depth) is {limit} levels"


class LimitExceeded(HTTPException, LagunaError):
    """A bound of the request crossed while the application reads its body.

    An HTTPException (as well as a LagunaError) so that FastAPI lets it through
    its body parsing (which turns any other error into its own 400) to the API's
    error handler; the middleware answers it in any case, whatever the
    application made of it. ``status`` is the HTTP status."""

    code = "LAG-E1701"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message


# outside a string only brackets and quotes matter; inside one, quotes and escapes
_STRUCTURE = re.compile(rb'[\[\]{}"]')
_IN_STRING = re.compile(rb'["\\]')


class JsonDepth:
    """The nesting of a JSON text fed in pieces, without parsing it.

    Counts ``[`` and ``{`` outside strings; bytes of multi-byte UTF-8
    characters are never ASCII, so scanning bytes is exact. A text that is
    not JSON is left for the parser to refuse."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0
        self.in_string = False
        self.escaped = False   # a backslash ended the previous piece

    def feed(self, data: bytes) -> bool:
        """False as soon as the text nests deeper than the limit."""
        position = 0
        if self.escaped and data:
            position, self.escaped = 1, False
        while True:
            if self.in_string:
                found = _IN_STRING.search(data, position)
                if found is None:
                    return True
                if data[found.start()] == ord("\\"):
                    position = found.end() + 1   # the escaped character, whatever it is
                    if position > len(data):
                        self.escaped = True
                        return True
                    continue
                self.in_string = False
                position = found.end()
                continue
            found = _STRUCTURE.search(data, position)
            if found is None:
                return True
            byte = data[found.start()]
            if byte == ord('"'):
                self.in_string = True
            elif byte in b"[{":
                self.depth += 1
                if self.depth > self.limit:
                    return False
            else:
                self.depth -= 1
            position = found.end()


def check_json_depth(data: bytes, limit: int) -> None:
    """400 when ``data`` (JSON read outside the middleware: an upload's
    metadata part) nests deeper than ``limit``."""
    if not JsonDepth(limit).feed(data):
        raise ApiError(400, too_deep(limit))


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return t.cast(bytes, value)
    return None


class RequestLimits:
    """The token, then the body's size and nesting, before the application
    reads the body (see the module's docstring)."""

    def __init__(self, app: ASGIApp, settings: ApiSettings, identity: Identity) -> None:
        self.app = app
        self.settings = settings
        self.identity = identity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            if scope["path"].startswith("/v1/"):
                await self._authenticate(scope)
            limit, message = self._size_limit(scope)
            declared = _header(scope, b"content-length")
            if declared is not None and declared.isdigit() and int(declared) > limit:
                raise ApiError(413, message)
        except ApiError as error:
            await _answer(scope, receive, send, error.status, error.message)
            return
        if (declared is None or declared == b"0") \
                and _header(scope, b"transfer-encoding") is None:
            # no body (most GETs): nothing to count or scan, no wrappers to pay for
            await self.app(scope, receive, send)
            return
        await self._bounded(scope, receive, send, limit, message)

    async def _authenticate(self, scope: Scope) -> None:
        header = _header(scope, b"x-auth-token")
        token = header.decode("latin-1") if header else None
        # a token validated a moment ago is known without I/O; else the identity
        # may read the store or ask Keystone: not on the event loop
        context = self.identity.remembered(token or "")
        if context is None:
            context = await run_in_threadpool(authenticate, self.identity, token)
        state = scope.setdefault("state", {})
        state[CALLER_KEY] = context
        state["project_id"] = context.project_id   # the request statistics' project

    def _size_limit(self, scope: Scope) -> tuple[int, str]:
        if (scope["method"], scope["path"]) in UPLOAD_ROUTES:
            limit = self.settings.max_package_size
            return limit + UPLOAD_ALLOWANCE, upload_too_large(limit)
        return self.settings.max_body_size, body_too_large(self.settings.max_body_size)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send, limit: int,
                       message: str) -> None:
        content_type = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        # multipart bodies are not JSON; an upload's JSON part is checked by its route
        depth = None if content_type == b"multipart/form-data" \
            else JsonDepth(self.settings.max_json_depth)
        received = 0
        refused: list[LimitExceeded] = []
        started = False

        async def bounded_receive() -> Message:
            nonlocal received
            if refused:
                raise refused[0]
            message_in = await receive()
            if message_in["type"] == "http.request":
                chunk = message_in.get("body", b"")
                received += len(chunk)
                if received > limit:
                    refused.append(LimitExceeded(413, message))
                elif depth is not None and not depth.feed(chunk):
                    refused.append(LimitExceeded(400, too_deep(depth.limit)))
                if refused:
                    raise refused[0]
            return message_in

        async def guarded_send(message_out: Message) -> None:
            nonlocal started
            # once a bound is crossed, the answer is ours, whatever the
            # application made of the exception (FastAPI may wrap it)
            if refused and not started:
                return
            started = started or message_out["type"] == "http.response.start"
            await send(message_out)

        try:
            await self.app(scope, bounded_receive, guarded_send)
        except Exception:
            if not refused:
                raise
        if refused and not started:
            await _answer(scope, receive, send, refused[0].status, refused[0].message)


async def _answer(scope: Scope, receive: Receive, send: Send, code: int, message: str) -> None:
    # the body is left unread: the server closes the connection after the answer;
    # a browser's request of the dashboard gets a page, not the API's JSON
    if scope["path"].startswith(dashboard.PREFIX + "/"):
        await dashboard.refused(code, message)(scope, receive, send)
        return
    await JSONResponse(fault(code, message), status_code=code)(scope, receive, send)
