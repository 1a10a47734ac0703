"""``AgentClient``: the engine's side of the HTTP transport to a ``laguna-agent``.

The plan's timeout is enforced here: the agent kills a script at the timeout
and answers 504, and if no answer comes within the timeout (plus a short
grace for the answer to travel) the client gives up; both raise ``AgentTimeout``.

Every request is signed with the host's secret and every answer must be
signed for it (``laguna.agent.signing``); an answer that is not raises
``AgentForgedAnswer`` and none of it is used.
"""

from __future__ import annotations

import functools
import json
import secrets
import ssl
import time
from typing import Any

import httpx

from laguna.agent import signing
from laguna.agent.errors import (AgentForgedAnswer, AgentPlanRejected, AgentTimeout,
                                 AgentUnreachable)
from laguna.agent.protocol import (DRIFT_PATH, HEALTH_PATH, MAX_REQUEST, PLAN_MALFORMED,
                                   PLANS_PATH, SIGNATURE_HEADER)
from laguna.agent.transport import Track

CONNECT_TIMEOUT = 5.0
GRACE = 5.0
#: a drift check lists the host's processes and files: bounded, not instant
DRIFT_TIMEOUT = 60.0


class AgentClient:
    """Talks to one agent at ``url`` (``http://127.42.0.7:40123``) with the host's
    ``secret``; an ``AgentTransport``. A plan whose request would be larger than
    ``max_request`` bytes (the agent's limit) is refused before it is sent."""

    def __init__(self, url: str, secret: str, *,
                 transport: httpx.BaseTransport | None = None, grace: float = GRACE,
                 max_request: int = MAX_REQUEST) -> None:
        self.url = url.rstrip("/")
        self.grace = grace
        self.max_request = max_request
        self._secret = secret.encode()
        # Plain HTTP never uses TLS, and loading the CA bundle takes a tenth of a
        # second a client: https gets one verifying context for the whole process.
        # httpx makes a context even for plain HTTP (``verify=False`` builds a new
        # one, a millisecond a client, a client a host): one serves them all.
        verify = _verifying_context() if self.url.startswith("https:") else _unused_context()
        self._http = httpx.Client(base_url=self.url, transport=transport,
                                  trust_env=False, verify=verify)

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def health(self) -> dict[str, Any]:
        try:
            response = self._request("GET", HEALTH_PATH, None, httpx.Timeout(CONNECT_TIMEOUT))
        except httpx.TimeoutException as exc:
            raise AgentUnreachable(self.url, f"no answer within {CONNECT_TIMEOUT:g} "
                                   "seconds") from exc
        return self._json(response)

    def drift(self) -> dict[str, Any]:
        """Per component, what its plans left on the host and what of it is gone
        (``laguna.agent.tracking``): ``{ID: {"tracked": {...}, "drift": [...]}}``."""
        try:
            response = self._request("GET", DRIFT_PATH, None,
                                     httpx.Timeout(DRIFT_TIMEOUT, connect=CONNECT_TIMEOUT))
        except httpx.TimeoutException as exc:
            raise AgentUnreachable(self.url, f"no answer within {DRIFT_TIMEOUT:g} "
                                   "seconds") from exc
        if response.status_code != 200:
            raise AgentUnreachable(self.url, f"HTTP {response.status_code}: "
                                   f"{_message(response)}")
        components = self._json(response).get("components")
        if not isinstance(components, dict):
            raise AgentUnreachable(self.url, "the answer has no components")
        return components

    def execute(self, plan: dict[str, Any], timeout: float, *,
                track: Track | None = None) -> dict[str, Any]:
        plan_id = plan.get("ID") if isinstance(plan.get("ID"), str) else None
        limits = httpx.Timeout(timeout + self.grace, connect=CONNECT_TIMEOUT)
        request: dict[str, Any] = {"plan": plan, "timeout": timeout}
        if track is not None:
            request["component"] = track.component
            request["files"] = list(track.files)
        body = json.dumps(request, separators=(",", ":")).encode()
        if len(body) > self.max_request:
            raise AgentPlanRejected(f"The request of {len(body)} bytes is larger than the "
                                    f"agent's limit of {self.max_request} bytes",
                                    PLAN_MALFORMED)
        try:
            response = self._request("POST", PLANS_PATH, body, limits)
        except httpx.TimeoutException as exc:
            raise AgentTimeout(plan_id, timeout) from exc
        if response.status_code == 504:
            raise AgentTimeout(plan_id, timeout)
        if response.status_code in (400, 413):
            document = self._json(response)
            error = document.get("error") or {}
            raise AgentPlanRejected(str(error.get("message")), int(error.get("code", 2)),
                                    document.get("result"))
        return self._json(response)

    def _request(self, method: str, path: str, body: bytes | None,
                 timeout: httpx.Timeout) -> httpx.Response:
        request = self._http.build_request(method, path, content=body, timeout=timeout)
        nonce = secrets.token_hex(signing.NONCE_DIGITS // 2)
        request.headers.update(signing.request_headers(
            self._secret, method, request.url.raw_path.decode("ascii"), body or b"", nonce,
            int(time.time())))
        try:
            response = self._http.send(request)
        except httpx.ConnectTimeout as exc:
            raise AgentUnreachable(self.url, f"no connection within {CONNECT_TIMEOUT:g} "
                                   "seconds") from exc
        except httpx.TransportError as exc:
            if isinstance(exc, httpx.TimeoutException):
                raise
            raise AgentUnreachable(self.url, f"{type(exc).__name__}: {exc}") from exc
        if response.status_code == 401:
            # unverified: a refusal carries nothing the engine acts on, and with a
            # wrong secret the agent's own signature could not be checked either
            raise AgentUnreachable(self.url, "the agent refused the request: "
                                   f"{_message(response)}")
        if not signing.response_is_signed(self._secret, response.status_code, nonce,
                                          response.content,
                                          response.headers.get(SIGNATURE_HEADER)):
            which = "a wrong" if SIGNATURE_HEADER in response.headers else "no"
            raise AgentForgedAnswer(self.url, f"HTTP {response.status_code} with {which} "
                                    f"{SIGNATURE_HEADER}")
        if response.status_code not in (200, 400, 413, 504):
            raise AgentUnreachable(self.url, f"HTTP {response.status_code}: "
                                   f"{response.text[:200]}")
        return response

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        try:
            document = response.json()
        except ValueError as exc:
            raise AgentUnreachable(self.url, f"the answer is not JSON: {exc}") from exc
        if not isinstance(document, dict):
            raise AgentUnreachable(self.url, "the answer is not a JSON object")
        return document


def _message(response: httpx.Response) -> str:
    """The ``error.message`` of an agent's refusal, else the start of its text."""
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return response.text[:200]
    return str(message)


@functools.cache
def _unused_context() -> ssl.SSLContext:
    """The context httpx wants for a plain-HTTP client, where it is never used."""
    return httpx.create_ssl_context(verify=False, trust_env=False)


@functools.cache
def _verifying_context() -> ssl.SSLContext:
    """What httpx verifies with by default (certifi's CA bundle)."""
    return httpx.create_ssl_context(trust_env=False)
