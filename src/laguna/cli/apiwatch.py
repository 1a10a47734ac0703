"""``laguna status NAME --watch --api URL``: the running deployment's events
through a remote ``laguna serve``'s event stream
(``GET /v1/environments/{id}/events``), for a machine that does not share
the store.

The environment is found by name among the token's project's
(``GET /v1/environments``); its status (``GET /v1/environments/{id}``) is
printed, and when a deployment runs, the stream is followed from that
deployment's start until its end, printed as the store-side watch prints it
(:func:`laguna.cli.watch.event_line`). A connection that breaks is opened
again with the last event's id (``Last-Event-ID``): nothing is printed twice
or lost.
"""

from __future__ import annotations

import json
import time
import typing as t

import click
import httpx

from laguna.cli.errors import ApiUnusable
from laguna.cli.watch import Watched, event_line

__all__ = ["ApiUnusable", "RECONNECTS", "watch_api"]

#: the environment states of a running operation, as the API shows them
BUSY = ("deploying", "deleting")
#: how many times a broken stream is opened again before the watch gives up
RECONNECTS = 5


def _get(client: httpx.Client, path: str) -> t.Any:
    try:
        answer = client.get(path)
    except httpx.HTTPError as error:
        raise ApiUnusable(f"cannot reach the API at {client.base_url}: {error}") from None
    if answer.status_code != 200:
        raise ApiUnusable(f"the API answered {answer.status_code} to GET {path}: "
                       f"{_message(answer)}")
    return answer.json()


def _message(answer: httpx.Response) -> str:
    try:
        return str(answer.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return answer.text[:200]


def watch_api(url: str, token: str | None, name: str, as_json: bool,
              transport: httpx.BaseTransport | None = None) -> Watched:
    """Print ``name``'s status, then its running deployment's events until it ends."""
    headers = {"X-Auth-Token": token} if token else {}
    with httpx.Client(base_url=url.rstrip("/"), headers=headers, transport=transport,
                      timeout=httpx.Timeout(30, read=None)) as client:
        listed = _get(client, "/v1/environments")["environments"]
        found = [e for e in listed if e.get("name") == name]
        if not found:
            raise ApiUnusable(f"environment {name!r} not found at {url} (the token's project)")
        environment = _get(client, f"/v1/environments/{found[0]['id']}")
        if as_json:
            click.echo(json.dumps({"name": name, "id": environment["id"],
                                   "status": environment["status"]}))
        else:
            click.echo(f"environment {name} ({environment['id']}): {environment['status']}")
        if environment["status"] not in BUSY:
            return Watched(None)
        return _follow(client, environment["id"], environment["status"], as_json)


def _follow(client: httpx.Client, environment_id: str, status: str,
            as_json: bool) -> Watched:
    last_id: str | None = None
    watched: str | None = None
    failures = 0
    while True:
        headers = {"Last-Event-ID": last_id} if last_id is not None else {}
        try:
            with client.stream("GET", f"/v1/environments/{environment_id}/events",
                               headers=headers) as answer:
                if answer.status_code != 200:
                    answer.read()
                    raise ApiUnusable(f"the API answered {answer.status_code} to the event "
                                   f"stream: {_message(answer)}")
                for kind, data, event_id in _events(answer.iter_lines()):
                    failures = 0
                    last_id = event_id or last_id
                    if kind == "status" and data.get("status") is None:
                        return Watched(None, gone=True)
                    if kind == "status" and data.get("status") == status:
                        continue        # printed already
                    _print(kind, data, event_id, as_json)
                    if kind == "status":
                        status = data["status"]
                    if kind != "deployment":
                        continue
                    if data["finished"] is None:
                        watched = watched or data["deployment_id"]
                    elif data["deployment_id"] == watched:
                        return Watched(data["state"])
        except httpx.HTTPError as error:
            failures += 1
            if failures > RECONNECTS:
                raise ApiUnusable(f"the event stream broke: {error}") from None
            time.sleep(min(failures, 5))
            continue
        # the server ended the stream without deleting the environment: open it again
        failures += 1
        if failures > RECONNECTS:
            raise ApiUnusable("the API keeps ending the event stream")


def _events(lines: t.Iterable[str]) -> t.Iterator[tuple[str, dict[str, t.Any], str | None]]:
    """(event, data, id) of each server-sent event; comments skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if line.startswith(":"):
            continue
        if line:
            key, _, value = line.partition(":")
            fields[key] = value[1:] if value.startswith(" ") else value
            continue
        if "data" in fields:
            yield fields.get("event", "message"), json.loads(fields["data"]), fields.get("id")
        fields = {}


def _print(kind: str, data: t.Mapping[str, t.Any], event_id: str | None,
           as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"id": event_id, "event": kind, "data": data},
                              ensure_ascii=False))
    else:
        click.echo(event_line(kind, data, {}))
