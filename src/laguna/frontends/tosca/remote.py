"""Files a blueprint names by URL: imports and artifacts with an absolute URL, or
with ``repository: NAME`` (the file relative to the repository's URL).

They are fetched while the blueprint is validated (``http``/``https`` with
httpx, ``file:`` read from disk) into a cache folder, once per URL: a file
keeps its base name in a folder named after its URL's directory, so files
fetched from one directory stay side by side (an operation's ``dependencies``
sit beside its primary). Templates are untrusted: every download is bounded
in size and time, and a :class:`Fetcher` without a cache fetches nothing.
"""

from __future__ import annotations

from laguna.errors import LagunaError

import hashlib
import os
import shutil
import tempfile
import time
import typing as t
import urllib.parse
import urllib.request
import weakref
from pathlib import Path

import httpx

#: the largest file fetched, in bytes
MAX_BYTES = 16 * 1024 * 1024
#: the longest a download may take, in seconds (connecting included)
TIMEOUT = 20.0
#: the schemes fetched
SCHEMES = ("http", "https", "file")


class FetchError(LagunaError):
    """A URL could not be fetched; the message says why."""

    code = "LAG-E1546"


def is_url(file: str) -> bool:
    """Whether an import or artifact ``file`` is a URL (AMP's ``classpath://`` is a
    path in the blueprint, not a URL)."""
    return "://" in file and not file.startswith("classpath://") or file.startswith("file:")


def in_repository(base: str, file: str) -> str:
    """``file`` of the repository at ``base``: relative to it, whether or not the
    repository's URL ends with a slash (TOSCA 1.3, 3.6.8)."""
    return base.rstrip("/") + "/" + file.lstrip("/")


def repository(name: object, *sections: object) -> tuple[str, t.Any] | None:
    """The URL and credential of repository ``name``, from the first of ``sections``
    (``repositories:`` maps) that declares it."""
    for section in sections:
        if isinstance(section, dict) and isinstance(name, str) and name in section:
            body = section[name]
            if isinstance(body, str):
                return body, None
            if isinstance(body, dict) and isinstance(body.get("url"), str):
                return str(body["url"]), body.get("credential")
    return None


class Fetcher:
    """Fetches URLs into ``cache`` (None: refuses every URL, saying ``refusal``)."""

    def __init__(self, cache: Path | None, *, refusal: str = "fetching URLs is disabled",
                 max_bytes: int = MAX_BYTES, timeout: float = TIMEOUT,
                 temporary: bool = False) -> None:
        self.cache = cache
        #: no cache given: a temporary folder, made when the first URL is fetched and
        #: removed with the fetcher
        self.temporary = temporary
        self.refusal = refusal
        self.max_bytes = max_bytes
        self.timeout = timeout

    def fetch(self, url: str, credential: t.Mapping[str, t.Any] | None = None) -> Path:
        """The local copy of ``url``, fetched on first use."""
        if self.cache is None and self.temporary:
            self.cache = Path(tempfile.mkdtemp(prefix="laguna-tosca-fetched-"))
            # the files live as long as this fetcher (a prepared blueprint keeps it)
            weakref.finalize(self, shutil.rmtree, self.cache, True)
        if self.cache is None:
            raise FetchError(self.refusal)
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in SCHEMES:
            raise FetchError(f"unsupported URL scheme {parsed.scheme!r} (expected one of "
                             f"{', '.join(SCHEMES)})")
        target = self._place(url)
        if target.is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        data = self._read_file(parsed) if parsed.scheme == "file" \
            else self._download(url, credential)
        # written whole or not at all: a later run must not take half a file for the file
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
        return target

    def _place(self, url: str) -> Path:
        assert self.cache is not None
        plain = url.partition("#")[0]
        folder, _, name = plain.partition("?")[0].rpartition("/")
        name = urllib.parse.unquote(name)
        if name in ("", ".", "..") or "/" in name or "\0" in name:
            name = "index"
        # one folder per URL directory (siblings stay siblings); a query is its own
        key = hashlib.sha256((folder if "?" not in plain else plain).encode()).hexdigest()
        return self.cache / key[:24] / name

    def _read_file(self, parsed: urllib.parse.SplitResult) -> bytes:
        if parsed.netloc not in ("", "localhost"):
            raise FetchError(f"a file: URL names this machine's files, not host "
                             f"{parsed.netloc!r}")
        path = Path(urllib.request.url2pathname(parsed.path))
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise FetchError(f"{path} is not a file")
            if size > self.max_bytes:
                raise FetchError(f"{path} is larger than {self.max_bytes} bytes")
            return path.read_bytes()
        except OSError as exc:
            raise FetchError(f"cannot read {path}: {exc.strerror}") from None

    def _download(self, url: str, credential: t.Mapping[str, t.Any] | None) -> bytes:
        deadline = time.monotonic() + self.timeout
        try:
            with httpx.Client(timeout=self.timeout, follow_redirects=True, max_redirects=5,
                              trust_env=False) as client, \
                    client.stream("GET", url, **_authorisation(credential)) as response:
                if response.status_code != 200:
                    raise FetchError(f"HTTP {response.status_code}")
                declared = response.headers.get("content-length")
                if declared is not None and declared.isdigit() and \
                        int(declared) > self.max_bytes:
                    raise FetchError(f"it is larger than {self.max_bytes} bytes")
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchError(f"it is larger than {self.max_bytes} bytes")
                    if time.monotonic() > deadline:
                        raise FetchError(f"it took longer than {self.timeout:g} s")
                    chunks.append(chunk)
                return b"".join(chunks)
        except httpx.TimeoutException:
            raise FetchError(f"it took longer than {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise FetchError(f"{type(exc).__name__}: {exc}") from None


def _authorisation(credential: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """httpx arguments for a tosca.datatypes.Credential: ``user`` and ``token`` are
    HTTP basic authentication; a ``token`` alone is sent as ``<token_type> <token>``
    (token_type defaults to Bearer)."""
    if not credential or credential.get("token") is None:
        return {}
    token = str(credential["token"])
    if credential.get("user") is not None:
        return {"auth": httpx.BasicAuth(str(credential["user"]), token)}
    scheme = str(credential.get("token_type") or "Bearer")
    if scheme == "password":
        scheme = "Bearer"
    return {"headers": {"Authorization": f"{scheme} {token}"}}
