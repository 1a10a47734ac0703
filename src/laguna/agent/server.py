"""The agent's HTTP server (standard library only, so that it starts fast).

``GET /v1/health``
    200 ``{"name": NAME, "status": "ready"}``
``POST /v1/plans`` with ``{"plan": <v1 or v2 plan>, "timeout": seconds}``
    200 murano-agent's result document (success, or an error with ``ErrorCode``);
    400 ``{"error": {"code", "message"}, "result"?}`` for a malformed request or
    a refused plan; 504 ``{"error": {"message", "plan_id", "seconds"}, "result"}``
    when the plan's time ran out (its script was killed).

With a token, every request must carry it in ``X-Laguna-Agent-Token`` (else 401).
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer

from laguna.agent.protocol import HEALTH_PATH, PLAN_MALFORMED, PLANS_PATH, TOKEN_HEADER

# The agent's start imports this module; typing alone would cost it ~20 ms
# (mypy reads any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from laguna.agent.executor import Outcome

    class Executor(Protocol):
        """What the server needs of a ``PlanExecutor`` (``main`` hands it a deferred one)."""

        def execute(self, raw: Any, timeout: float) -> Outcome: ...

MAX_REQUEST = 256 * 1024 * 1024
DEFAULT_TIMEOUT = 600.0


class AgentServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, name: str, address: tuple[str, int], executor: Executor,
                 token: str | None = None, quiet: bool = False) -> None:
        super().__init__(address, _Handler)
        self.name = name
        self.executor = executor
        self.token = token
        self.quiet = quiet

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

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if not self._authorised():
            return
        if self.path == HEALTH_PATH:
            self._send(HTTPStatus.OK, {"name": self.server.name, "status": "ready"})
        else:
            self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        if not self._authorised():
            return
        if self.path != PLANS_PATH:
            self._not_found()
            return
        request = self._read_request()
        if request is None:
            return
        plan, timeout = request
        try:
            outcome = self.server.executor.execute(plan, timeout)
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

    def _read_request(self) -> tuple[Any, float] | None:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._bad_request("The request has no Content-Length")
            return None
        if length > MAX_REQUEST:
            self._bad_request(f"The request is larger than {MAX_REQUEST} bytes")
            return None
        try:
            document = json.loads(self.rfile.read(length))
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
        return document["plan"], float(timeout)

    def _authorised(self) -> bool:
        token = self.server.token
        if token is None:
            return True
        import hmac  # (OpenSSL's libcrypto) only for agents that have a token

        given = self.headers.get(TOKEN_HEADER)
        if given is not None and hmac.compare_digest(given.encode(), token.encode()):
            return True
        self._send(HTTPStatus.UNAUTHORIZED,
                   {"error": {"message": f"Missing or wrong {TOKEN_HEADER}"}})
        return False

    def _not_found(self) -> None:
        self._send(HTTPStatus.NOT_FOUND,
                   {"error": {"message": f"No such endpoint: {self.command} {self.path}"}})

    def _bad_request(self, message: str) -> None:
        self.close_connection = True  # the body may be unread: the stream is out of step
        self._send(HTTPStatus.BAD_REQUEST, {"error": {"code": PLAN_MALFORMED, "message": message}})

    def _send(self, status: HTTPStatus, document: dict[str, Any]) -> None:
        body = json.dumps(document, default=str).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(f"laguna-agent {self.server.name}: {format % args}\n")
