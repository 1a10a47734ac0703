"""Signed requests and answers between the engine and an agent (HMAC-SHA256).

Every request carries four headers (``protocol``): a timestamp (whole seconds
since the epoch), a random nonce (32 hexadecimal digits), the SHA-256 of the
body, and an HMAC-SHA256, keyed with the host's secret, of::

    laguna-agent-request-v1 \\n METHOD \\n PATH \\n TIMESTAMP \\n NONCE \\n BODY-SHA256

The agent checks the signature from the headers alone, before it reads a byte
of the body, then reads the body and checks its digest: a process without the
secret cannot make the agent read (or hold) its body. Every answer carries an
HMAC of ``laguna-agent-response-v1 \\n STATUS \\n NONCE \\n BODY-SHA256`` with the
request's nonce, so an answer cannot be replayed to another request nor
forged by whoever holds the agent's port. The two prefixes keep a signed
request from passing as an answer and the reverse.

Standard library only (the agent imports this module at its first request).
"""

from __future__ import annotations

from laguna.errors import LagunaError

import hashlib
import hmac
import threading
import time

from laguna.agent.protocol import (BODY_HEADER, NONCE_HEADER, SIGNATURE_HEADER,
                                   TIMESTAMP_HEADER)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

#: how far a request's timestamp may be from the agent's clock, in seconds
WINDOW = 300
REQUEST = "laguna-agent-request-v1"
RESPONSE = "laguna-agent-response-v1"
NONCE_DIGITS = 32
_HEX = frozenset("0123456789abcdef")


class Refused(LagunaError):
    """A request the agent does not accept; ``str()`` is the answer's message."""

    code = "LAG-E1116"


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _mac(secret: bytes, *fields: str) -> str:
    return hmac.new(secret, "\n".join(fields).encode(), hashlib.sha256).hexdigest()


def request_headers(secret: bytes, method: str, path: str, body: bytes, nonce: str,
                    timestamp: int) -> dict[str, str]:
    """The headers that sign a request (``nonce``: fresh, 32 hex digits)."""
    body_sha = digest(body)
    return {TIMESTAMP_HEADER: str(timestamp), NONCE_HEADER: nonce, BODY_HEADER: body_sha,
            SIGNATURE_HEADER: _mac(secret, REQUEST, method, path, str(timestamp), nonce,
                                   body_sha)}


def response_signature(secret: bytes, status: int, nonce: str, body: bytes) -> str:
    return _mac(secret, RESPONSE, str(status), nonce, digest(body))


def response_is_signed(secret: bytes, status: int, nonce: str, body: bytes,
                       signature: str | None) -> bool:
    return signature is not None and hmac.compare_digest(
        signature.encode(), response_signature(secret, status, nonce, body).encode())


def is_hex(value: str, length: int) -> bool:
    return len(value) == length and _HEX.issuperset(value)


def _hex_header(headers: Mapping[str, str], name: str, length: int) -> str:
    value = headers.get(name)
    if value is None:
        raise Refused(f"The request is not signed: it has no {name} header")
    if not is_hex(value, length):
        raise Refused(f"The request's {name} header is not {length} lowercase "
                      "hexadecimal digits")
    return value


class Verifier:
    """The agent's side: checks requests' signatures and refuses replays.

    A nonce is remembered until its request's timestamp leaves the window; a
    request whose timestamp is outside the window is refused, so a nonce
    forgotten can no longer be replayed. Only requests signed with the secret
    are remembered, so the memory grows with the engine's requests alone.
    """

    def __init__(self, secret: bytes, window: int = WINDOW,
                 clock: Callable[[], float] = time.time) -> None:
        self.secret = secret
        self.window = window
        self.clock = clock
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()   # the server answers in threads

    def check(self, method: str, path: str, headers: Mapping[str, str]) -> tuple[str, str]:
        """Check a request's headers; its nonce and the digest its body must have.

        Raises ``Refused`` for a missing, malformed or wrong signature, a
        timestamp outside the window and a nonce already used."""
        text = headers.get(TIMESTAMP_HEADER)
        if text is None:
            raise Refused(f"The request is not signed: it has no {TIMESTAMP_HEADER} header")
        if not text.isascii() or not text.isdigit() or len(text) > 12:
            raise Refused(f"The request's {TIMESTAMP_HEADER} header is not a whole "
                          "number of seconds")
        nonce = _hex_header(headers, NONCE_HEADER, NONCE_DIGITS)
        body_sha = _hex_header(headers, BODY_HEADER, 64)
        signature = _hex_header(headers, SIGNATURE_HEADER, 64)
        expected = _mac(self.secret, REQUEST, method, path, text, nonce, body_sha)
        if not hmac.compare_digest(signature.encode(), expected.encode()):
            raise Refused("The request's signature is wrong: it was not signed with "
                          "this host's secret")
        now = int(self.clock())
        timestamp = int(text)
        if abs(now - timestamp) > self.window:
            raise Refused(f"The request's timestamp is {abs(now - timestamp)} seconds away "
                          f"from the agent's clock (at most {self.window} allowed)")
        with self._lock:
            for old in [n for n, t in self._seen.items() if t < now - self.window]:
                del self._seen[old]
            if nonce in self._seen:
                raise Refused(f"The request was replayed: nonce {nonce} was already used")
            self._seen[nonce] = timestamp
        return nonce, body_sha
