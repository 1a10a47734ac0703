"""Who is calling: the token of ``X-Auth-Token`` turned into a project and a user.

Two identities: the embedded one keeps projects, users and tokens in the
store (``laguna token create``); the Keystone one asks a Keystone v3 service
to validate each token. Both remember a valid token for a short while
(:class:`TokenCache`, as keystonemiddleware's token cache does), so that a
client's requests do not each read the store or call Keystone; a token
deleted or revoked meanwhile keeps working until its entry ends.
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

    def remembered(self, token: str) -> RequestContext | None:
        """The caller of a token validated a moment ago, found without I/O (so
        on the event loop, not in a thread); None: ask :meth:`authenticate`."""
        ...


class TokenCache:
    """Valid tokens and their callers, each until ``ttl`` seconds after it was
    validated (never past the token's own expiry). Bounded: past
    :data:`SIZE` tokens it forgets them all rather than grow."""

    SIZE = 10_000

    def __init__(self, ttl: float, clock: Clock) -> None:
        self.ttl = datetime.timedelta(seconds=ttl)
        self.clock = clock
        self._entries: dict[str, tuple[RequestContext, datetime.datetime]] = {}
        self._lock = threading.Lock()

    def get(self, token: str, now: datetime.datetime | None = None) -> RequestContext | None:
        with self._lock:
            found = self._entries.get(token)
        if found is None or found[1] <= (now or self.clock()):
            return None
        return found[0]

    def put(self, context: RequestContext, now: datetime.datetime,
            expires: datetime.datetime) -> None:
        with self._lock:
            if len(self._entries) >= self.SIZE:
                self._entries.clear()
            self._entries[context.token] = (context, min(expires, now + self.ttl))


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

    def remembered(self, token: str) -> RequestContext | None:
        if not token or token == NOAUTH_PLACEHOLDER:
            return self.context
        return self.identity.remembered(token)


#: what keystoneauth's ``none`` plugin (``--os-auth-type none``) sends as its token
NOAUTH_PLACEHOLDER = "notused"


class StoreIdentity:
    """Tokens issued by ``laguna token create``, checked against the store.

    A valid token is remembered for :data:`CACHE_SECONDS` (never past its
    expiry) in each server process, so that a client's requests do not each
    read the store; a token deleted from the store stops working within
    that time."""

    CACHE_SECONDS = 10.0

    def __init__(self, database: Database, clock: Clock = utcnow) -> None:
        self.database = database
        self.clock = clock
        self.cache = TokenCache(self.CACHE_SECONDS, clock)

    def remembered(self, token: str) -> RequestContext | None:
        return self.cache.get(token) if token else None

    def authenticate(self, token: str) -> RequestContext | None:
        if not token:
            return None
        now = self.clock()
        cached = self.cache.get(token, now)
        if cached is not None:
            return cached
        with self.database.read_session() as session:
            owner = store_identity.token_owner(session, token, now)
        if owner is None:
            return None
        context = RequestContext(owner.project_id, owner.user_id, owner.is_admin, token)
        self.cache.put(context, now, owner.expires)
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
        # a minute: a revoked token stops working soon, Keystone is asked rarely
        self.cache = TokenCache(self.CACHE_SECONDS, clock)

    CACHE_SECONDS = 60.0

    def remembered(self, token: str) -> RequestContext | None:
        return self.cache.get(token) if token else None

    def authenticate(self, token: str) -> RequestContext | None:
        if not token:
            return None
        now = self.clock()
        cached = self.cache.get(token, now)
        if cached is not None:
            return cached
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
        self.cache.put(context, now, _parse_time(body.get("expires_at")) or now)
        return context


def _parse_time(value: t.Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)
