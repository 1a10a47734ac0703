"""The API's routes, one module per resource of the original's v1 API.

:data:`V1` lists the routers served under ``/v1``; a path that two routers
could both match goes to the first.
"""

from __future__ import annotations

from fastapi import APIRouter

V1: list[APIRouter] = []

from laguna.api.routes import statistics, templates  # noqa: E402 - each module appends its router

V1.append(templates.router)
V1.append(statistics.router)
