"""What an environment's page shows of its deployment: the components with
their states and details, the outputs (addresses as links), the topology,
the actions with their argument forms, and what can be deployed (the
caller's open session with changes, or a redeploy)."""

from __future__ import annotations

import dataclasses
import typing as t
import urllib.parse

from markupsafe import Markup

from laguna.dashboard import topology
from laguna.dashboard.arguments import Field, fields_of
from laguna.dashboard.client import ApiClient

#: the statuses from which a deployment may start again
SETTLED = ("ready", "deploy failure", "pending")


@dataclasses.dataclass(frozen=True)
class ActionView:
    id: str | None
    object_name: str
    object_type: str
    name: str
    fields: tuple[Field, ...]
    open: bool

    @property
    def title(self) -> str:
        return f"{self.name} of {self.object_name}"


@dataclasses.dataclass
class DeployedView:
    language: str
    components: list[tuple[str, t.Mapping[str, t.Any]]]
    outputs: dict[str, t.Any]
    links: list[topology.Link]
    actions: list[ActionView] | None
    intended_state: str | None
    picture: Markup | None
    #: the topology's links in words
    described: list[str]
    #: the caller's open session with changes, which the Deploy button deploys
    session: str | None
    redeploy: bool

    @staticmethod
    def address(value: t.Any) -> bool:
        return is_address(value)

    def actions_of(self, name: str) -> list[ActionView]:
        """The actions of the object called ``name`` (TOSCA: a node's operations)."""
        return [a for a in self.actions or () if a.object_name == name]


def is_address(value: t.Any) -> bool:
    """Whether a value is shown as a link: an http(s) URL, nothing else (no
    ``javascript:`` from a deployment's outputs)."""
    if not isinstance(value, str) or len(value) > 2048:
        return False
    parsed = urllib.parse.urlsplit(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def action_views(listed: t.Sequence[t.Mapping[str, t.Any]] | None) -> list[ActionView] | None:
    if listed is None:
        return None
    return [ActionView(id=a.get("id"), object_name=str(a.get("object_name") or ""),
                       object_type=str(a.get("object_type") or ""), name=str(a["name"]),
                       fields=fields_of(a.get("arguments") or ()), open=bool(a.get("open")))
            for a in listed]


async def deployed_view(client: ApiClient, environment: t.Mapping[str, t.Any],
                        sessions: t.Sequence[t.Mapping[str, t.Any]],
                        preferred: str | None = None) -> DeployedView:
    """What the page shows of ``environment`` (as the API's show answered it),
    with the caller's open ``sessions`` (the API's list); the Deploy button
    deploys ``preferred`` (the session the page shows) when it has changes."""
    environment_id = environment["id"]
    changed = sorted((s["id"] for s in sessions
                      if s.get("changed") and s.get("state") == "opened"),
                     key=lambda session_id: session_id != preferred)
    shown = await client.get(f"/v1/environments/{environment_id}/components")
    language = str(shown.get("language") or "muranopl")
    components = {str(k): v for k, v in (shown.get("components") or {}).items()
                  if isinstance(v, dict)}
    links = [topology.Link(str(link["source"]), str(link["target"]), str(link["kind"]))
             for link in shown.get("links") or ()]
    services = environment.get("services") or []
    if language == "muranopl":
        graph = topology.from_services(services)
    else:
        graph = topology.from_components(components, shown.get("links") or ())
    status = environment.get("status")
    return DeployedView(
        language=language, components=list(components.items()),
        outputs=dict(shown.get("outputs") or {}), links=links,
        actions=action_views(shown.get("actions")),
        intended_state=shown.get("intended_state"),
        picture=topology.svg(graph) if graph.nodes else None,
        described=topology.described(graph),
        session=changed[0] if changed and status in SETTLED else None,
        redeploy=not changed and environment.get("version", 0) > 0
        and language == "muranopl" and status in ("ready", "deploy failure"))
