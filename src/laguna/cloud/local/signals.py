"""The local cloud's wait-condition signal endpoint (Heat's WaitConditionHandle URL).

One small HTTP server per :class:`~laguna.cloud.local.driver.LocalCloud`,
started when the first handle is created, in a daemon thread of the engine's
process, on an address every host reaches: 127.0.0.1 with loopback isolation
(all of 127/8 is one interface), the bridge's own address with ``netns``.

A handle's URL is ``http://ADDR:PORT/signal/<handle id>/<secret>``: the
secret (random, per handle) stands where Heat puts its token, so that
nothing but what was given the URL can signal; a wrong or missing secret is
403 and says nothing of the handle. ``POST`` with an optional JSON body
``{"status": "SUCCESS"|"FAILURE", "reason", "data", "id"}`` (Heat's; an empty
body is a success) records one signal; the same ``id`` signalled again
replaces the first, as in Heat.

Signals live in the engine's process: a wait condition is satisfied during
the push that creates it (as murano-apps use them). A handle created by an
earlier process keeps a URL that no longer answers.
"""

from __future__ import annotations

import hmac
import http.server
import json
import secrets
import socket
import threading
import time
import typing as t

STATUSES = ("SUCCESS", "FAILURE")


class Handle:
    """The signals one handle received, in arrival order (by ``id``)."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.signals: dict[str, dict[str, t.Any]] = {}


class SignalServer:
    """Receives signals for handles; :meth:`wait` blocks until enough arrived."""

    def __init__(self, address: str, *, freebind: bool = False) -> None:
        self.address = address
        #: bind before the address exists (a bridge that comes up with its first
        #: container: the container cloud's gateway)
        self.freebind = freebind
        self._handles: dict[str, Handle] = {}
        self._changed = threading.Condition()
        self._server: http.server.ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        server = self._start()
        return f"http://{self.address}:{server.server_address[1]}"

    def register(self, handle_id: str, secret: str | None = None) -> tuple[str, str]:
        """Accept signals for ``handle_id``: its URL and secret."""
        secret = secret or secrets.token_urlsafe(24)
        with self._changed:
            self._handles.setdefault(handle_id, Handle(secret))
        return f"{self.base_url}/signal/{handle_id}/{secret}", secret

    def forget(self, handle_id: str) -> None:
        with self._changed:
            self._handles.pop(handle_id, None)

    def signals(self, handle_id: str) -> list[dict[str, t.Any]]:
        with self._changed:
            handle = self._handles.get(handle_id)
            return list(handle.signals.values()) if handle is not None else []

    def wait(self, handle_id: str, count: int, timeout: float) -> list[dict[str, t.Any]]:
        """The signals once ``count`` arrived or one is a FAILURE; what arrived
        when ``timeout`` seconds passed first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                handle = self._handles.get(handle_id)
                received = list(handle.signals.values()) if handle is not None else []
                if len(received) >= count or any(s["status"] == "FAILURE" for s in received):
                    return received
                left = deadline - time.monotonic()
                if left <= 0:
                    return received
                self._changed.wait(left)

    def receive(self, handle_id: str, secret: str, body: bytes) -> int:
        """Record one signal; the HTTP status to answer."""
        with self._changed:
            handle = self._handles.get(handle_id)
            # compare_digest: the time taken tells nothing of the secret
            if handle is None or not hmac.compare_digest(handle.secret.encode(),
                                                         secret.encode()):
                return 403
            try:
                data = json.loads(body) if body.strip() else {}
            except ValueError:
                return 400
            if not isinstance(data, dict):
                return 400
            status = str(data.get("status") or "SUCCESS").upper()
            if status not in STATUSES:
                return 400
            signal_id = str(data.get("id") or len(handle.signals) + 1)
            handle.signals[signal_id] = {"id": signal_id, "status": status,
                                         "reason": data.get("reason"),
                                         "data": data.get("data")}
            self._changed.notify_all()
            return 200

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _start(self) -> http.server.ThreadingHTTPServer:
        with self._changed:
            if self._server is None:
                kind = _FreeBindServer if self.freebind else http.server.ThreadingHTTPServer
                self._server = kind((self.address, 0), _handler(self))
                self._server.daemon_threads = True
                threading.Thread(target=self._server.serve_forever, daemon=True,
                                 name="laguna-signals").start()
            return self._server


class _FreeBindServer(http.server.ThreadingHTTPServer):
    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_IP, IP_FREEBIND, 1)
        super().server_bind()


#: Linux's IP_FREEBIND (the socket module does not name it)
IP_FREEBIND = 15


def _handler(owner: SignalServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:   # noqa: N802 (http.server's name)
            parts = self.path.strip("/").split("/")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, 65536)) if length > 0 else b""
            status = (owner.receive(parts[1], parts[2], body)
                      if len(parts) == 3 and parts[0] == "signal" else 404)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: t.Any) -> None:
            pass    # the engine's own log is not the place for every signal

    return Handler


__all__ = ["SignalServer", "STATUSES"]
