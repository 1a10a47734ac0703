"""The dashboard's way to the v1 API: HTTP in process (httpx over ASGI), with
the signed-in caller's token."""

from __future__ import annotations

import dataclasses
import json
import typing as t

import httpx

#: an ASGI application: the API the dashboard is mounted in
Asgi = t.Callable[..., t.Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class ApiFailure(Exception):
    """The API refused a request: its status and its message."""

    status: int
    message: str

    def __str__(self) -> str:
        return self.message


class ApiClient:
    """Calls of the v1 API on behalf of one caller (``token``)."""

    def __init__(self, app: Asgi, token: str) -> None:
        self._client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                         base_url="http://laguna", timeout=60.0)
        self._token = token

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self._client.aclose()

    async def get(self, path: str, params: t.Mapping[str, str | list[str]] | None = None,
                  *, session: str | None = None) -> t.Any:
        return self._answer(await self._client.get(path, params=params,
                                                   headers=self._headers(session)))

    async def post(self, path: str, body: t.Any = None, *, session: str | None = None) -> t.Any:
        return self._answer(await self._client.post(path, json=body,
                                                    headers=self._headers(session)))

    async def delete(self, path: str, params: t.Mapping[str, str] | None = None) -> t.Any:
        return self._answer(await self._client.delete(path, params=params,
                                                      headers=self._headers(None)))

    async def upload(self, path: str, metadata: t.Mapping[str, t.Any], filename: str,
                     content: bytes) -> t.Any:
        """A package upload as python-muranoclient sends it: multipart, the
        ``__metadata__`` part (JSON) and the archive as a file part."""
        return self._answer(await self._client.post(
            path, data={"__metadata__": json.dumps(metadata)},
            files={filename: (filename, content, "application/octet-stream")},
            headers=self._headers(None)))

    async def patch(self, path: str, operations: list[dict[str, t.Any]],
                    media_type: str = "application/murano-packages-json-patch") -> t.Any:
        """A JSON patch (Murano's package patch media type by default)."""
        return self._answer(await self._client.patch(
            path, content=json.dumps(operations).encode(),
            headers={**self._headers(None), "Content-Type": media_type}))

    async def raw(self, path: str) -> httpx.Response:
        return await self._client.get(path, headers=self._headers(None))

    def _headers(self, session: str | None) -> dict[str, str]:
        headers = {"X-Auth-Token": self._token}
        if session is not None:
            headers["X-Configuration-Session"] = session
        return headers

    @staticmethod
    def _answer(response: httpx.Response) -> t.Any:
        if response.status_code >= 400:
            raise ApiFailure(response.status_code, _message(response))
        if not response.content:
            return None
        return response.json()


def _message(response: httpx.Response) -> str:
    """The API's error message (its fault body), else the status line."""
    try:
        body = response.json()
    except ValueError:
        return f"{response.status_code} {response.reason_phrase}"
    if isinstance(body, dict):
        for key in ("explanation", "message", "detail", "title"):
            value = body.get(key)
            if isinstance(value, str) and value:
                return value
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return f"{response.status_code} {response.reason_phrase}"
