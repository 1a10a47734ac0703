"""Who is calling: the token of ``X-Auth-Token`` turned into a project and a user.

Two identities: the embedded one keeps projects, users and tokens in the
store (``laguna token create``); the Keystone one asks a Keystone v3 service
to validate each token (cached until shortly before it expires).
"""

from __future__ import annotations

import dataclasses
import datetime
import threading
import typing as t

import httpx

from laguna.api.errors import ApiError
from laguna.store import identity as store_identity
from laguna.store.db import Database

Clock = t.Callable[[], datetime.datetime]


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


@dataclasses.dataclass(frozen=True)
class RequestContext:
    """The caller of one request; every query is scoped to ``project_id``."""

    project_id: str
    user_id: str
    is_admin: bool
    token: str


class Identity(t.Protocol):
    def authenticate(self, token: str) -> RequestContext | None:
        """The caller ``token`` speaks for (``""``: a request without a token);
        None when it is not valid."""
        ...


def authenticate(identity: Identity, token: str | None) -> RequestContext:
    """The caller ``token`` (``X-Auth-Token``) speaks for; 401 without a valid one."""
    context = identity.authenticate(token or "")
    if context is None:
        if not token:
            raise ApiError(401, "Authentication required: send a token in X-Auth-Token")
        raise ApiError(401, "The token in X-Auth-Token is not valid or has expired")
    return context


class LocalAnonymous:
    """Requests without a token act as one project's user; those with a token as
    the token says (``laguna serve --anonymous PROJECT:USER``, which listens on
    loopback only): for clients that cannot send a token, such as the OpenStack
    client's ``--os-auth-type none``. Never an admin."""

    def __init__(self, identity: Identity, project_id: str, user_id: str) -> None:
        self.identity = identity
        self.context = RequestContext(project_id, user_id, False, "")

    def authenticate(self, token: str) -> RequestContext | None:
        if not token or token == NOAUTH_PLACEHOLDER:
            return self.context
        return self.identity.authenticate(token)


#: what keystoneauth's ``none`` plugin (``--os-auth-type none``) sends as its token
NOAUTH_PLACEHOLDER = "notused"


class StoreIdentity:
    """Tokens issued by ``laguna token create``, checked against the store.

    A valid token is remembered for :data:`CACHE_SECONDS` (never past its
    expiry), so that a client's requests do not each read the store; a token
    deleted from the store stops working within that time."""

    CACHE_SECONDS = 30.0

    def __init__(self, database: Database, clock: Clock = utcnow) -> None:
        self.database = database
        self.clock = clock
        self._cache: dict[str, tuple[RequestContext, datetime.datetime]] = {}
        self._lock = threading.Lock()

    def authenticate(self, token: str) -> RequestContext | None:
        if not token:
            return None
        now = self.clock()
        with self._lock:
            cached = self._cache.get(token)
        if cached is not None and cached[1] > now:
            return cached[0]
        with self.database.read_session() as session:
            owner = store_identity.token_owner(session, token, now)
        if owner is None:
            return None
        context = RequestContext(owner.project_id, owner.user_id, owner.is_admin, token)
        until = min(owner.expires, now + datetime.timedelta(seconds=self.CACHE_SECONDS))
        with self._lock:
            if len(self._cache) > 10_000:   # bounded: forget everything rather than grow
                self._cache.clear()
            self._cache[token] = (context, until)
        return context


class KeystoneIdentity:
    """Tokens validated by Keystone v3 (``GET /v3/auth/tokens``).

    The service authenticates with its own token (``service_token``) when it
    has one, else with the token it validates, which Keystone allows for a
    token checking itself.
    """

    def __init__(self, url: str, service_token: str | None = None, clock: Clock = utcnow,
                 client: httpx.Client | None = None) -> None:
        self.url = url.rstrip("/")
        self.service_token = service_token
        self.clock = clock
        self.client = client or httpx.Client(timeout=10.0)
        self._cache: dict[str, tuple[RequestContext, datetime.datetime]] = {}
        self._lock = threading.Lock()

    def authenticate(self, token: str) -> RequestContext | None:
        if not token:
            return None
        now = self.clock()
        with self._lock:
            cached = self._cache.get(token)
        if cached is not None and cached[1] > now:
            return cached[0]
        response = self.client.get(
            f"{self.url}/auth/tokens",
            headers={"X-Auth-Token": self.service_token or token, "X-Subject-Token": token})
        if response.status_code != 200:
            return None
        body = response.json().get("token", {})
        project = (body.get("project") or {}).get("id")
        user = (body.get("user") or {}).get("id")
        if not project or not user:
            return None   # an unscoped token names no project to work in
        roles = {role.get("name") for role in body.get("roles") or ()}
        context = RequestContext(project, user, "admin" in roles, token)
        expires = _parse_time(body.get("expires_at")) or now
        # Cached for at most a minute: a revoked token stops working soon.
        with self._lock:
            self._cache[token] = (context, min(expires, now + datetime.timedelta(minutes=1)))
        return context


def _parse_time(value: t.Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)
