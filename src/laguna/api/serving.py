"""``laguna serve --processes N``: the API in N processes on one listening socket.

The parent binds the socket (``laguna serve`` says a port in use before
anything starts) and hands it to uvicorn's own process manager
(:class:`uvicorn.supervisors.Multiprocess`), which starts N children, each
building its application with :func:`app_from_environment` from the
settings the parent left in :data:`SETTINGS_VARIABLE` (a child is a new
interpreter, not a fork: it gets the settings as text, not as objects).
The supervisor starts a new child in place of one that dies.

Every child runs the embedded engine's workers too: they share the store,
and a task is claimed by a conditional UPDATE, so each runs once whichever
process claims it.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import socket
import typing as t
from pathlib import Path

from fastapi import FastAPI

from laguna.api.settings import ApiSettings

#: the environment variable carrying the settings (JSON) from the parent to its children
SETTINGS_VARIABLE = "LAGUNA_API_SETTINGS"
#: the event loop and HTTP parser of every server process (locked dependencies)
LOOP = "uvloop"
HTTP = "httptools"


def settings_to_json(settings: ApiSettings) -> str:
    """``settings`` as JSON text that :func:`settings_from_json` reads back."""
    values: dict[str, t.Any] = {}
    for field in dataclasses.fields(settings):
        value = getattr(settings, field.name)
        if isinstance(value, Path):
            value = str(value)
        elif isinstance(value, datetime.timedelta):
            value = value.total_seconds()
        values[field.name] = value
    return json.dumps(values)


def settings_from_json(text: str) -> ApiSettings:
    """The settings :func:`settings_to_json` wrote."""
    values = dict(json.loads(text))
    values["workdir"] = Path(values["workdir"])
    if "token_lifetime" in values:
        values["token_lifetime"] = datetime.timedelta(seconds=values["token_lifetime"])
    if values.get("anonymous") is not None:
        project, user = values["anonymous"]
        values["anonymous"] = (project, user)
    return ApiSettings(**values)


def app_from_environment(environ: t.Mapping[str, str] | None = None) -> FastAPI:
    """The application of one server process, from :data:`SETTINGS_VARIABLE`
    (uvicorn's factory in each child)."""
    from laguna import process
    from laguna.api.app import create_app

    # a child does not pass through the `laguna` command's entry point
    process.prepare()
    environ = os.environ if environ is None else environ
    return create_app(settings_from_json(environ[SETTINGS_VARIABLE]))


def serve_processes(settings: ApiSettings, listening: socket.socket, processes: int) -> None:
    """Serve on ``listening`` in ``processes`` children until interrupted (SIGINT,
    SIGTERM); a child that dies is replaced by uvicorn's supervisor."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    # the children inherit the environment; the store is migrated by the
    # parent beforehand, so that N children do not race to migrate it
    os.environ[SETTINGS_VARIABLE] = settings_to_json(settings)
    config = uvicorn.Config("laguna.api.serving:app_from_environment", factory=True,
                            workers=processes, loop=LOOP, http=HTTP, log_level="warning")
    Multiprocess(config, sockets=[listening]).run()
