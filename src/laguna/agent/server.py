"""The agent's HTTP server (standard library only, so that it starts fast).

``GET /v1/health``
    200 ``{"name": NAME, "status": "ready"}``
``GET /v1/drift``
    200 ``{"name": NAME, "components": {ID: {"tracked": {processes, files,
    addresses}, "drift": [{"kind", "what", "problem"}]}}}`` (``tracking``)
``POST /v1/plans`` with ``{"plan": <v1 or v2 plan>, "timeout": seconds}``
    (and laguna's ``"component": ID``, ``"files": [paths]``: what the plan
    leaves is recorded as that component's)
    200 murano-agent's result document (success, or an error with ``ErrorCode``);
    400 ``{"error": {"code", "message"}, "result"?}`` for a malformed request or
    a refused plan; 504 ``{"error": {"message", "plan_id", "seconds"}, "result"}``
    when the plan's time ran out (its script was killed).

Every request must be signed with the host's secret (``signing``): else 401
``{"error": {"message"}}``. A body larger than ``max_request`` bytes is refused
with 413 from its ``Content-Length``, before it is read; so is an unsigned one
(401). Every answer is signed for the request it answers.
"""

from __future__ import annotations

import json
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer

from laguna.agent.protocol import (BODY_HEADER, DRIFT_PATH, HEALTH_PATH, MAX_REQUEST,
                                   NONCE_HEADER, PLAN_MALFORMED, PLANS_PATH,
                                   SIGNATURE_HEADER, TIMESTAMP_HEADER)

# The agent's start imports this module; typing alone would cost it ~20 ms
# (mypy reads any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from laguna.agent.executor import Outcome
    from laguna.agent.signing import Verifier

    class Executor(Protocol):
        """What the server needs of a ``PlanExecutor`` (``main`` hands it a deferred one)."""

        def execute(self, raw: Any, timeout: float, component: str | None = None,
                    files: tuple[str, ...] = ()) -> Outcome: ...

        def drift(self) -> dict[str, Any]: ...

DEFAULT_TIMEOUT = 600.0


class AgentServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, name: str, address: tuple[str, int], executor: Executor,
                 secret: str, max_request: int = MAX_REQUEST, quiet: bool = False) -> None:
        if not secret:
            raise ValueError("an agent needs a secret")
        super().__init__(address, _Handler)
        self.name = name
        self.executor = executor
        self.secret = secret.encode()
        self.max_request = max_request
        self.quiet = quiet
        self._verifier: Verifier | None = None
        self._verifier_lock = threading.Lock()

    @property
    def verifier(self) -> Verifier:
        """Made at the first request: hmac (OpenSSL's libcrypto) costs the start ~5 ms."""
        with self._verifier_lock:   # one nonce memory, even for two first requests
            if self._verifier is None:
                from laguna.agent.signing import Verifier

                self._verifier = Verifier(self.secret)
            return self._verifier

    def server_bind(self) -> None:
        # HTTPServer's own asks the resolver for the address's name (socket.getfqdn):
        # a DNS query for every host's start, waiting out the resolver's timeout when
        # none answers, for a name only CGI scripts read.
        TCPServer.server_bind(self)
        self.server_name = str(self.server_address[0])
        self.server_port = int(self.server_address[1])

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: AgentServer
    protocol_version = "HTTP/1.1"
    nonce = ""      # of the request being answered; answers are signed with it

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self._accept() is None:
            return
        if self.path == HEALTH_PATH:
            self._send(HTTPStatus.OK, {"name": self.server.name, "status": "ready"})
        elif self.path == DRIFT_PATH:
            try:
                components = self.server.executor.drift()
            except Exception as exc:  # a bug of the agent: answer rather than drop
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR,
                           {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                return
            self._send(HTTPStatus.OK, {"name": self.server.name, "components": components})
        else:
            self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        body = self._accept()
        if body is None:
            return
        if self.path != PLANS_PATH:
            self._not_found()
            return
        request = self._read_request(body)
        if request is None:
            return
        plan, timeout, component, files = request
        try:
            outcome = self.server.executor.execute(plan, timeout, component, files)
        except Exception as exc:  # a bug of the agent: answer rather than drop the connection
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR,
                       {"error": {"message": f"{type(exc).__name__}: {exc}"}})
            return
        if outcome.status == "done":
            self._send(HTTPStatus.OK, outcome.result)
        elif outcome.status == "rejected":
            self._send(HTTPStatus.BAD_REQUEST, {
                "error": {"code": outcome.error_code, "message": outcome.message},
                "result": outcome.result})
        else:
            self._send(HTTPStatus.GATEWAY_TIMEOUT, {
                "error": {"message": outcome.message, "plan_id": outcome.plan_id,
                          "seconds": outcome.seconds},
                "result": outcome.result})

    def _accept(self) -> bytes | None:
        """The request's body once its size and signature are checked; None once refused.

        Everything is decided from the headers before a byte of the body is
        read: a caller without the secret cannot make the agent hold its body."""
        from laguna.agent.signing import NONCE_DIGITS, Refused, digest, is_hex

        nonce = self.headers.get(NONCE_HEADER, "")
        self.nonce = nonce if is_hex(nonce, NONCE_DIGITS) else ""
        length = self._content_length()
        if length is None:
            return None
        if length > self.server.max_request:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                         f"The request's body of {length} bytes is larger than the "
                         f"agent's limit of {self.server.max_request} bytes")
            return None
        headers = {name: value for name in (TIMESTAMP_HEADER, NONCE_HEADER, BODY_HEADER,
                                            SIGNATURE_HEADER)
                   if (value := self.headers.get(name)) is not None}
        try:
            _, body_sha = self.server.verifier.check(self.command, self.path, headers)
        except Refused as refusal:
            self._refuse(HTTPStatus.UNAUTHORIZED, str(refusal))
            return None
        body = self.rfile.read(length)
        if len(body) != length:
            self._refuse(HTTPStatus.BAD_REQUEST, f"The request's body ended after "
                         f"{len(body)} of its {length} bytes", PLAN_MALFORMED)
            return None
        if digest(body) != body_sha:
            self._refuse(HTTPStatus.UNAUTHORIZED,
                         f"The request's body does not match its {BODY_HEADER}")
            return None
        return body

    def _content_length(self) -> int | None:
        if self.headers.get("Transfer-Encoding") is not None:
            self._refuse(HTTPStatus.BAD_REQUEST, "The request must have a Content-Length, "
                         "not a Transfer-Encoding", PLAN_MALFORMED)
            return None
        text = self.headers.get("Content-Length")
        if text is None and self.command == "GET":
            return 0
        if text is None or not text.isascii() or not text.isdigit():
            self._refuse(HTTPStatus.BAD_REQUEST, "The request has no Content-Length"
                         if text is None else "The request's Content-Length is not a number",
                         PLAN_MALFORMED)
            return None
        return int(text)

    def _read_request(self, body: bytes
                      ) -> tuple[Any, float, str | None, tuple[str, ...]] | None:
        try:
            document = json.loads(body)
        except ValueError as exc:
            self._bad_request(f"The request is not JSON: {exc}")
            return None
        if not isinstance(document, dict) or "plan" not in document:
            self._bad_request('The request is not an object with a "plan"')
            return None
        timeout = document.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            self._bad_request(f"timeout must be a positive number of seconds, not {timeout!r}")
            return None
        component = document.get("component")
        if component is not None and (not isinstance(component, str) or not component
                                      or "\0" in component):
            self._bad_request(f"component must be a non-empty string, not {component!r}")
            return None
        files = document.get("files", [])
        if not isinstance(files, list) or not all(isinstance(f, str) and f and "\0" not in f
                                                  for f in files):
            self._bad_request(f"files must be a list of paths, not {files!r}")
            return None
        return document["plan"], float(timeout), component, tuple(files)

    def _refuse(self, status: HTTPStatus, message: str, code: int | None = None) -> None:
        """Answer a request refused before its body was read, and close the
        connection: the unread body leaves the stream out of step."""
        self.close_connection = True
        error: dict[str, Any] = {"message": message}
        if code is not None:
            error = {"code": code, **error}
        self._send(status, {"error": error})

    def _not_found(self) -> None:
        self._send(HTTPStatus.NOT_FOUND,
                   {"error": {"message": f"No such endpoint: {self.command} {self.path}"}})

    def _bad_request(self, message: str) -> None:
        self._send(HTTPStatus.BAD_REQUEST, {"error": {"code": PLAN_MALFORMED, "message": message}})

    def _send(self, status: HTTPStatus, document: dict[str, Any]) -> None:
        body = json.dumps(document, default=str).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:   # say so: the client must not send another request
            self.send_header("Connection", "close")
        from laguna.agent.signing import response_signature

        self.send_header(SIGNATURE_HEADER,
                         response_signature(self.server.secret, status, self.nonce, body))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(f"laguna-agent {self.server.name}: {format % args}\n")
