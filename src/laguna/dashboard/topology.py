"""An environment's topology as a graph: its applications, their hosts and
the other objects they hold, and the links between them; drawn on the
server as SVG (no script, no layout library: the graphs are small).

A MuranoPL environment's graph comes from its object model: every object
(a mapping whose ``?`` has an ``id`` and a ``type``) is a node; an object
held in another's property, or named by its id in one, is a link labelled
with that property. Hosts are instances (a class named ``...Instance``, as
io.murano.resources' are). Other languages' graphs come from the API's
components and links (a TOSCA node's requirements, an assembly's members
and relationships); their hosts are TOSCA Computes and the targets of
``host`` requirements.
"""

from __future__ import annotations

import dataclasses
import typing as t

from markupsafe import Markup, escape

APPLICATION = "application"
HOST = "host"
COMPONENT = "component"
ASSEMBLY = "assembly"

#: the drawing's measures (px)
BOX_WIDTH, BOX_HEIGHT, COLUMN, ROW, MARGIN = 170, 46, 200, 100, 20
#: a graph is bounded so that a model with thousands of objects draws in bounded time
MAX_NODES = 200


@dataclasses.dataclass(frozen=True)
class Node:
    id: str
    name: str
    type: str
    kind: str

    @property
    def label(self) -> str:
        """What a screen reader says of the node: its kind, name and type."""
        return f"{self.kind} {self.name} ({self.type})"


@dataclasses.dataclass(frozen=True)
class Link:
    source: str
    target: str
    kind: str


@dataclasses.dataclass
class Graph:
    nodes: dict[str, Node] = dataclasses.field(default_factory=dict)
    links: list[Link] = dataclasses.field(default_factory=list)

    def name(self, node_id: str) -> str:
        node = self.nodes.get(node_id)
        return node.name if node is not None else node_id


def _is_host_type(type_name: str) -> bool:
    short = type_name.split("/")[0].rsplit(".", 1)[-1]
    return short.endswith("Instance") or type_name == "tosca.nodes.Compute"


def from_services(services: t.Sequence[t.Any]) -> Graph:
    """The graph of a MuranoPL object model's applications (``services``)."""
    graph = Graph()
    pending: list[tuple[str | None, str, t.Any]] = []

    def header(value: t.Any) -> tuple[str, str] | None:
        marker = value.get("?") if isinstance(value, dict) else None
        if isinstance(marker, dict) and isinstance(marker.get("id"), str) \
                and isinstance(marker.get("type"), str):
            return marker["id"], marker["type"]
        return None

    def visit(value: t.Any, owner: str | None, prop: str, top: bool) -> None:
        found = header(value)
        if found is not None and len(graph.nodes) < MAX_NODES:
            object_id, type_name = found
            # the name the user gave (``?.name``, ui.yaml 2.2 on), else the object's own
            given = [value["?"].get("name"), value.get("name")]
            name = next((n for n in given if isinstance(n, str) and n), None)
            kind = APPLICATION if top else HOST if _is_host_type(type_name) else COMPONENT
            graph.nodes[object_id] = Node(object_id, name or type_name.rsplit(".", 1)[-1],
                                          type_name.split("/")[0], kind)
            if owner is not None:
                graph.links.append(Link(owner, object_id, prop))
            for key, item in value.items():
                if key != "?":
                    visit(item, object_id, key, False)
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(item, owner, key if owner is None else prop, False)
        elif isinstance(value, list):
            for item in value:
                visit(item, owner, prop, False)
        elif isinstance(value, str) and owner is not None:
            pending.append((owner, prop, value))

    for service in services:
        visit(service, None, "", True)
    # references by id, once every object is known
    for owner, prop, value in pending:
        if owner is not None and value in graph.nodes and value != owner:
            graph.links.append(Link(owner, value, prop))
    return graph


def from_components(components: t.Mapping[str, t.Any],
                    links: t.Sequence[t.Mapping[str, t.Any]]) -> Graph:
    """The graph of the API's components and links (TOSCA, assemblies)."""
    graph = Graph()
    hosts = {str(link.get("target")) for link in links if link.get("kind") == "host"}
    for component_id, body in list(components.items())[:MAX_NODES]:
        type_name = str(body.get("type") or "") if isinstance(body, dict) else ""
        name = body.get("name") if isinstance(body, dict) else None
        kind = HOST if component_id in hosts or _is_host_type(type_name) else APPLICATION
        graph.nodes[component_id] = Node(component_id, str(name or component_id), type_name,
                                         kind)
    for link in links:
        source, target = str(link.get("source")), str(link.get("target"))
        for end in (source, target):
            if end not in graph.nodes and len(graph.nodes) < MAX_NODES:
                graph.nodes[end] = Node(end, end, "assembly", ASSEMBLY)
        if source in graph.nodes and target in graph.nodes:
            graph.links.append(Link(source, target, str(link.get("kind") or "")))
    return graph


def described(graph: Graph) -> list[str]:
    """Each link in words, for the list beside the picture (a screen reader's view)."""
    return [f"{graph.name(link.source)} → {graph.name(link.target)}: {link.kind}"
            for link in graph.links]


def _layers(graph: Graph) -> list[list[str]]:
    """Rows for the drawing: each node one row below the lowest node linking
    to it (a cycle, which references may make, is cut where it is met)."""
    depth: dict[str, int] = {}
    incoming: dict[str, list[str]] = {node: [] for node in graph.nodes}
    for link in graph.links:
        incoming[link.target].append(link.source)

    def depth_of(node: str, seen: frozenset[str]) -> int:
        if node in depth:
            return depth[node]
        parents = [p for p in incoming[node] if p not in seen]
        depth[node] = 1 + max((depth_of(p, seen | {node}) for p in parents), default=-1)
        return depth[node]

    for node_id in graph.nodes:
        depth_of(node_id, frozenset())
    rows: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for node_id in graph.nodes:
        rows[depth[node_id]].append(node_id)
    return rows


def svg(graph: Graph) -> Markup:
    """The graph as an SVG figure: each node a labelled image, each link an
    arrow with its property's name."""
    rows = _layers(graph)
    width = max((len(row) for row in rows), default=1) * COLUMN + MARGIN
    height = max(len(rows), 1) * ROW + MARGIN
    place: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        for x, node_id in enumerate(row):
            place[node_id] = (MARGIN + x * COLUMN, MARGIN + y * ROW)
    parts = [f'<svg class="topology" role="group" aria-label="Topology" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" '
             'xmlns="http://www.w3.org/2000/svg">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
             'markerWidth="8" markerHeight="8" orient="auto-start-reverse">'
             '<path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>']
    for link in graph.links:
        (x1, y1), (x2, y2) = place[link.source], place[link.target]
        ax, ay = x1 + BOX_WIDTH // 2, y1 + BOX_HEIGHT
        bx, by = x2 + BOX_WIDTH // 2, y2
        if y2 <= y1:    # a link upwards or sideways (a reference back) leaves from the side
            ay, by = y1 + BOX_HEIGHT // 2, y2 + BOX_HEIGHT // 2
        parts.append(f'<g class="link" aria-hidden="true"><line x1="{ax}" y1="{ay}" '
                     f'x2="{bx}" y2="{by}" marker-end="url(#arrow)"/>'
                     f'<text x="{(ax + bx) // 2 + 4}" y="{(ay + by) // 2}">'
                     f'{escape(link.kind)}</text></g>')
    for node_id, node in graph.nodes.items():
        x, y = place[node_id]
        parts.append(f'<g class="node {node.kind}" role="img" aria-label="{escape(node.label)}">'
                     f'<title>{escape(node.label)}</title>'
                     f'<rect x="{x}" y="{y}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" '
                     f'rx="6"/><text x="{x + 8}" y="{y + 19}" class="name">'
                     f'{escape(_clip(node.name, 22))}</text><text x="{x + 8}" y="{y + 37}" '
                     f'class="type">{escape(_clip(node.kind + " · " + node.type, 28))}</text>'
                     '</g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _clip(text: str, size: int) -> str:
    return text if len(text) <= size else text[:size - 1] + "…"
