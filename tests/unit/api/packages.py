"""Package archives for the catalog's API tests, and uploading them."""

from __future__ import annotations

import io
import json
import typing as t
import zipfile
from pathlib import Path

import httpx
import yaml

from laguna.packages.package import load_package
from tests.unit.api.conftest import Api

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


def fixture_zip(name: str) -> bytes:
    """A package of tests/fixtures/packages as a zip."""
    return load_package(FIXTURES / name).to_archive()


def package_zip(fqn: str, *, name: str | None = None, version: str = "1.0.0",
                description: str | None = None, author: str | None = None,
                tags: t.Sequence[str] = (), kind: str = "Application",
                files: t.Mapping[str, bytes] | None = None,
                manifest: t.Mapping[str, t.Any] | None = None) -> bytes:
    """A small valid package: one class ``<fqn>.Main``."""
    document: dict[str, t.Any] = {
        "Format": "MuranoPL/1.3", "Type": kind, "FullName": fqn, "Name": name or fqn,
        "Version": version, "Tags": list(tags), "Classes": {f"{fqn}.Main": "Main.yaml"}}
    if description is not None:
        document["Description"] = description
    if author is not None:
        document["Author"] = author
    document.update(manifest or {})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.yaml", yaml.safe_dump(document))
        archive.writestr("Classes/Main.yaml", f"Namespaces:\n  =: {fqn}\nName: Main\n")
        for path, content in (files or {}).items():
            archive.writestr(path, content)
    return buffer.getvalue()


def upload(api: Api, token: str, archive: bytes, metadata: t.Mapping[str, t.Any] | None = None,
           part: str = "package") -> httpx.Response:
    """POST the archive as the original client does: ``__metadata__`` plus the file."""
    return api.client.post(
        "/v1/catalog/packages", headers={"X-Auth-Token": token},
        data={"__metadata__": json.dumps(dict(metadata or {}))},
        files={part: ("package.zip", archive, "application/octet-stream")})


def uploaded(api: Api, token: str, archive: bytes,
             metadata: t.Mapping[str, t.Any] | None = None) -> dict[str, t.Any]:
    """The package an upload created; the upload must succeed."""
    response = upload(api, token, archive, metadata)
    assert response.status_code == 200, response.text
    return t.cast(dict[str, t.Any], response.json())


def add_category(api: Api, name: str) -> dict[str, t.Any]:
    response = api.client.post("/v1/catalog/categories", json={"name": name},
                               headers=api.headers(api.token("admin", "root", admin=True)))
    assert response.status_code == 200, response.text
    return t.cast(dict[str, t.Any], response.json())


def fault(code: int, message: str) -> dict[str, t.Any]:
    """The error body: the original fault middleware's fields under ``error``
    (what the original client reads)."""
    titles = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
              409: "Conflict", 413: "Request Entity Too Large", 500: "Internal Server Error",
              503: "Service Unavailable"}
    types = {400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden",
             404: "HTTPNotFound", 409: "HTTPConflict", 413: "HTTPRequestEntityTooLarge",
             500: "HTTPInternalServerError", 503: "HTTPServiceUnavailable"}
    return {"error": {"code": code, "title": titles[code], "message": message,
                      "explanation": message, "type": types[code], "traceback": None}}
