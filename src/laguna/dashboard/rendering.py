"""Pages from templates: Jinja2 with autoescaping, the templates shipped in
the package."""

from __future__ import annotations

import typing as t

import jinja2
from starlette.responses import HTMLResponse

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("laguna.dashboard", "templates"),
    autoescape=jinja2.select_autoescape(default=True),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True, lstrip_blocks=True)


def page(template: str, status: int = 200, **values: t.Any) -> HTMLResponse:
    return HTMLResponse(_TEMPLATES.get_template(template).render(**values), status_code=status)
