"""``GET /``: the versions document, answered without a token, as the original did."""

from __future__ import annotations

import typing as t

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

router = APIRouter()


@router.get("/", summary="The API versions this service offers",
            responses={300: {"description": "The versions document"}})
def versions(request: Request) -> JSONResponse:
    base = str(request.base_url).rstrip("/")
    body: dict[str, t.Any] = {"versions": [{
        "id": "v1.0", "status": "CURRENT",
        "links": [{"rel": "self", "href": f"{base}/v1/"}]}]}
    # 300 Multiple Choices, as the original's version negotiation answered
    return JSONResponse(body, status_code=300)
