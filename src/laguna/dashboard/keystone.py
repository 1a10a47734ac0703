"""Signing in with Keystone credentials: the dashboard asks the server's
Keystone (``laguna serve --keystone-url``, never an address the browser
names) for a token scoped to a project, with the ``password`` method of
Keystone v3 (``POST /v3/auth/tokens``), as Horizon did for murano-dashboard.

The token is then used as any other: the API validates it with the same
Keystone. Keystone's answer is bounded before it is read (its catalog is not
asked for: ``nocatalog``), and its refusal is shown in its own words.
"""

from __future__ import annotations

import dataclasses
import json

import httpx

from laguna.errors import LagunaError

#: Keystone's limit on user, project and domain names
MAX_NAME = 255
#: a password longer than this is not sent (Keystone's own limit is 4096)
MAX_PASSWORD = 4096
#: the most of Keystone's answer that is read (a token without its catalog is small)
MAX_ANSWER = 256 * 1024
TIMEOUT_SECONDS = 10.0


@dataclasses.dataclass(frozen=True)
class Credentials:
    user: str
    password: str
    project: str
    domain: str = "Default"

    def problem(self) -> str | None:
        """What is missing or too long; None when the credentials can be sent."""
        for label, value in (("user name", self.user), ("project", self.project),
                             ("domain", self.domain)):
            if not value:
                return f"Give a {label}."
            if len(value) > MAX_NAME:
                return f"The {label} is longer than {MAX_NAME} characters."
        if not self.password:
            return "Give a password."
        if len(self.password) > MAX_PASSWORD:
            return f"The password is longer than {MAX_PASSWORD} characters."
        return None


class Refused(LagunaError):
    """Keystone did not issue a token: its message (or why it could not be asked),
    shown on the sign-in page."""

    code = "LAG-E1721"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def body(credentials: Credentials) -> dict[str, object]:
    domain = {"name": credentials.domain}
    return {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": credentials.user, "domain": domain, "password": credentials.password}}},
        "scope": {"project": {"name": credentials.project, "domain": domain}}}}


async def issue_token(keystone_url: str, credentials: Credentials,
                      transport: httpx.AsyncBaseTransport | None = None) -> str:
    """A token of ``credentials`` scoped to their project; :class:`Refused` otherwise."""
    url = keystone_url.rstrip("/") + "/auth/tokens"
    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, transport=transport) as client:
        try:
            async with client.stream("POST", url, params={"nocatalog": "1"},
                                     json=body(credentials)) as answer:
                content = b""
                async for chunk in answer.aiter_bytes():
                    content += chunk
                    if len(content) > MAX_ANSWER:
                        raise Refused(f"Keystone's answer is longer than {MAX_ANSWER} bytes.")
        except httpx.HTTPError as error:
            raise Refused(f"Keystone at {keystone_url} could not be reached: {error}") from None
    token = answer.headers.get("X-Subject-Token")
    if answer.status_code == 201 and token:
        return str(token)
    raise Refused(_message(answer.status_code, content))


def _message(status: int, content: bytes) -> str:
    """Keystone's error message (``{"error": {"message": ...}}``), else its status."""
    try:
        error = json.loads(content).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"]:
        return str(error["message"])
    return f"Keystone answered {status} without a token."
