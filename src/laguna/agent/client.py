"""``AgentClient``: the engine's side of the HTTP transport to a ``laguna-agent``.

The plan's timeout is enforced here: the agent kills a script at the timeout
and answers 504, and if no answer comes within the timeout (plus a short
grace for the answer to travel) the client gives up; both raise ``AgentTimeout``.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx

from laguna.agent.errors import AgentPlanRejected, AgentTimeout, AgentUnreachable
from laguna.agent.protocol import HEALTH_PATH, PLANS_PATH, TOKEN_HEADER

CONNECT_TIMEOUT = 5.0
GRACE = 5.0


class AgentClient:
    """Talks to one agent at ``url`` (``http://127.42.0.7:40123``); an ``AgentTransport``."""

    def __init__(self, url: str, token: str | None = None, *,
                 transport: httpx.BaseTransport | None = None, grace: float = GRACE) -> None:
        self.url = url.rstrip("/")
        self.grace = grace
        headers = {TOKEN_HEADER: token} if token is not None else {}
        # Plain HTTP never uses TLS, and loading the CA bundle takes a tenth of a
        # second a client: https gets one verifying context for the whole process.
        # httpx makes a context even for plain HTTP (``verify=False`` builds a new
        # one, a millisecond a client, a client a host): one serves them all.
        verify = _verifying_context() if self.url.startswith("https:") else _unused_context()
        self._http = httpx.Client(base_url=self.url, headers=headers, transport=transport,
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

    def execute(self, plan: dict[str, Any], timeout: float) -> dict[str, Any]:
        plan_id = plan.get("ID") if isinstance(plan.get("ID"), str) else None
        limits = httpx.Timeout(timeout + self.grace, connect=CONNECT_TIMEOUT)
        try:
            response = self._request("POST", PLANS_PATH, {"plan": plan, "timeout": timeout},
                                     limits)
        except httpx.TimeoutException as exc:
            raise AgentTimeout(plan_id, timeout) from exc
        if response.status_code == 504:
            raise AgentTimeout(plan_id, timeout)
        if response.status_code == 400:
            document = self._json(response)
            error = document.get("error") or {}
            raise AgentPlanRejected(str(error.get("message")), int(error.get("code", 2)),
                                    document.get("result"))
        return self._json(response)

    def _request(self, method: str, path: str, body: Any,
                 timeout: httpx.Timeout) -> httpx.Response:
        try:
            response = self._http.request(method, path, json=body, timeout=timeout)
        except httpx.ConnectTimeout as exc:
            raise AgentUnreachable(self.url, f"no connection within {CONNECT_TIMEOUT:g} "
                                   "seconds") from exc
        except httpx.TransportError as exc:
            if isinstance(exc, httpx.TimeoutException):
                raise
            raise AgentUnreachable(self.url, f"{type(exc).__name__}: {exc}") from exc
        if response.status_code == 401:
            raise AgentUnreachable(self.url, "the agent refused the token")
        if response.status_code not in (200, 400, 504):
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


@functools.cache
def _unused_context() -> ssl.SSLContext:
    """The context httpx wants for a plain-HTTP client, where it is never used."""
    return httpx.create_ssl_context(verify=False, trust_env=False)


@functools.cache
def _verifying_context() -> ssl.SSLContext:
    """What httpx verifies with by default (certifi's CA bundle)."""
    return httpx.create_ssl_context(trust_env=False)
