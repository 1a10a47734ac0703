"""A Keystone stand-in: a real HTTP server process speaking the part of
Keystone's v3 identity API that laguna uses, for the tests of
``laguna serve --keystone-url``.

- ``POST /v3/auth/tokens``: the ``password`` method with a user name, its
  domain and a project scope (by name and domain); answers 201 with the token
  in ``X-Subject-Token`` and its body, or Keystone's own 401 refusal.
- ``GET /v3/auth/tokens``: validates ``X-Subject-Token`` (the token itself
  or a known one in ``X-Auth-Token``); 404 for an unknown token, as Keystone.

Users are given on the command line as JSON: ``[{"name", "password",
"domain", "project", "project_id", "roles"}]``. Run as
``python -m tests.keystone PORT USERS_JSON``; :func:`keystone` starts one on
a free loopback port for a test and stops it after.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import json
import secrets
import subprocess
import sys
import time
import typing as t

import httpx

from tests.servers import free_port, stop

#: Keystone's words when credentials do not authenticate
UNAUTHORIZED = "The request you have made requires authentication."
EXPIRES = "2099-01-01T00:00:00.000000Z"
#: the largest request body the stand-in reads
MAX_BODY = 64 * 1024


@dataclasses.dataclass(frozen=True)
class User:
    name: str
    password: str
    project: str
    project_id: str
    roles: tuple[str, ...] = ("member",)
    domain: str = "Default"

    @property
    def id(self) -> str:
        return f"user-{self.name}"


@dataclasses.dataclass
class Keystone:
    url: str
    """the v3 endpoint (``http://127.0.0.1:PORT/v3``), as ``--keystone-url`` takes it"""

    def token(self, user: User) -> str:
        """A token of ``user``, scoped to the user's project."""
        answer = httpx.post(f"{self.url}/auth/tokens", json=password_body(user), timeout=10)
        answer.raise_for_status()
        return answer.headers["X-Subject-Token"]


def password_body(user: User) -> dict[str, t.Any]:
    domain = {"name": user.domain}
    return {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": user.name, "domain": domain, "password": user.password}}},
        "scope": {"project": {"name": user.project, "domain": domain}}}}


@contextlib.contextmanager
def keystone(users: t.Sequence[User]) -> t.Iterator[Keystone]:
    """The stand-in on a free loopback port until the block ends."""
    port = free_port()
    listed = json.dumps([dataclasses.asdict(user) for user in users])
    process = subprocess.Popen([sys.executable, "-m", "tests.keystone", str(port), listed],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/v3"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Keystone stand-in did not start: "
                                   f"{process.stderr.read() if process.stderr else b''!r}")
            time.sleep(0.1)
        yield Keystone(url)
    finally:
        stop(process, timeout=10)


# -- the server process ----------------------------------------------------------------


def _error(code: int, title: str, message: str) -> dict[str, t.Any]:
    return {"error": {"code": code, "title": title, "message": message}}


class _Handler(http.server.BaseHTTPRequestHandler):
    users: t.ClassVar[list[User]] = []
    #: issued tokens and whom they speak for
    tokens: t.ClassVar[dict[str, User]] = {}

    def log_message(self, format: str, *args: t.Any) -> None:   # noqa: A002
        pass   # quiet: the test's output is the test's

    def _send(self, status: int, body: t.Mapping[str, t.Any],
              headers: t.Mapping[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    @staticmethod
    def _token_body(user: User) -> dict[str, t.Any]:
        domain = {"id": user.domain.lower(), "name": user.domain}
        return {"token": {
            "methods": ["password"], "expires_at": EXPIRES,
            "issued_at": "2026-01-01T00:00:00.000000Z",
            "user": {"id": user.id, "name": user.name, "domain": domain},
            "project": {"id": user.project_id, "name": user.project, "domain": domain},
            "roles": [{"id": f"role-{role}", "name": role} for role in user.roles]}}

    def do_GET(self) -> None:   # noqa: N802 (http.server's name)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/v3":
            self._send(200, {"version": {"id": "v3.14", "status": "stable"}})
            return
        if path != "/v3/auth/tokens":
            self._send(404, _error(404, "Not Found", "The resource could not be found."))
            return
        asking = self.headers.get("X-Auth-Token", "")
        subject = self.headers.get("X-Subject-Token", "")
        if asking not in self.tokens:
            self._send(401, _error(401, "Unauthorized", UNAUTHORIZED))
            return
        user = self.tokens.get(subject)
        if user is None:
            self._send(404, _error(404, "Not Found", f"Could not find token: {subject}."))
            return
        self._send(200, self._token_body(user))

    def do_POST(self) -> None:   # noqa: N802
        if self.path.split("?", 1)[0].rstrip("/") != "/v3/auth/tokens":
            self._send(404, _error(404, "Not Found", "The resource could not be found."))
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._send(413, _error(413, "Request Entity Too Large",
                                   "Request is too large."))
            return
        try:
            auth = json.loads(self.rfile.read(length))["auth"]
            given = auth["identity"]["password"]["user"]
            scope = auth["scope"]["project"]
            name, password = given["name"], given["password"]
            domain = given.get("domain", {}).get("name", "Default")
            project = scope["name"]
        except (ValueError, KeyError, TypeError):
            self._send(400, _error(400, "Bad Request",
                                   "Expecting to find auth in request body."))
            return
        for user in self.users:
            if (user.name, user.domain) == (name, domain) and \
                    secrets.compare_digest(user.password, password):
                if user.project != project:
                    self._send(401, _error(
                        401, "Unauthorized",
                        f"User {user.id} has no access to project {project}"))
                    return
                token = secrets.token_hex(16)
                self.tokens[token] = user
                self._send(201, self._token_body(user), {"X-Subject-Token": token})
                return
        self._send(401, _error(401, "Unauthorized", UNAUTHORIZED))


def main(argv: t.Sequence[str]) -> None:
    port, listed = int(argv[0]), json.loads(argv[1])
    _Handler.users = [User(**{**user, "roles": tuple(user["roles"])}) for user in listed]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
