"""``/v1/environments/{id}/components`` (laguna's own): what the last
deployment made, for the dashboard and any client: the components with
their states and details, the outputs, the links between components, and
the actions with their arguments (the contracts the API's ``?/_actions``
entries do not carry)."""

from __future__ import annotations

import functools
import typing as t

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from laguna.api.deps import Caller, State
from laguna.api.environments import check_environment
from laguna.api.identity import RequestContext
from laguna.api.state import ApiState
from laguna.deploy.errors import DeployError

if t.TYPE_CHECKING:
    from laguna.engine.handlers import EngineWiring

router = APIRouter(tags=["environments"])

DESCRIPTION = """\
laguna's own. What the environment's last deployment made, as `laguna status --json`
shows it: `language`, `state`, `outputs`, `components` (by id: `type`, `name`, `state`
and what the language adds: TOSCA's `properties`, `attributes`, `instances`; an
assembly's `properties`), `links` between components (`source`, `target`, `kind`:
a TOSCA requirement's name, an assembly's relationship or `member` of its parent),
`intended_state` (assemblies) and `actions` (each `id` to run through
`POST .../actions/{id}` where the language is MuranoPL, `object`, `object_name`,
`object_type`, `name`, `arguments` with `name`, `required` and `type`: the
argument's contract or TOSCA type; `open`: more arguments are taken). `actions` is
null while an operation holds the environment, or when its language lists none.
"""


@functools.cache
def _wiring() -> EngineWiring:
    # the front ends are read once per process: listing their entry points is not free
    from laguna.engine.handlers import default_wiring
    return default_wiring()


@router.get("/environments/{environment_id}/components",
            summary="The deployed components, outputs, links and actions",
            description=DESCRIPTION)
async def components(environment_id: str, context: Caller, state: State) -> dict[str, t.Any]:
    return await run_in_threadpool(_components, state, context, environment_id)


def _components(state: ApiState, context: RequestContext, environment_id: str) -> dict[str, t.Any]:
    with state.database.read_session() as session:
        record = check_environment(session, context, environment_id)
        name, project, language = record.name, record.project_id, record.language
        model = record.model if isinstance(record.model, dict) else {}
        answer: dict[str, t.Any] = {
            "environment_id": record.id, "language": language, "state": record.status,
            "outputs": dict(record.outputs or {}),
            "components": _components_of(language, record.components or {}, model),
            "links": _links(language, model),
            "intended_state": model.get("intended_state") if language == "assembly" else None,
            "actions": None}
        busy = record.acquired_by is not None
    if not busy and model:
        answer["actions"] = _actions(state, name, project, language)
    return answer


def _actions(state: ApiState, name: str, project: str,
             language: str | None) -> list[dict[str, t.Any]] | None:
    from laguna.deploy.service import Service
    from laguna.deploy.workdir import Workdir

    wiring = _wiring()
    service = Service(Workdir(state.settings.workdir), wiring.frontends,
                      resources=wiring.resources, project=project, database=state.database)
    try:
        listed = service.actions(name)
    except DeployError:
        return None     # the stored packages no longer load: the status still shows
    if listed is None:
        return None
    return [{"id": f"{action.object}_{action.name}" if language == "muranopl" else None,
             **action.to_json()} for action in listed]


def _components_of(language: str | None, components: t.Mapping[str, t.Any],
                   model: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The stored components; an assembly's with the properties its model
    keeps of each instance (``laguna status --json`` shows them so too)."""
    shown = {str(k): dict(v) if isinstance(v, dict) else v for k, v in components.items()}
    if language == "assembly":
        for instance_id, body in (model.get("instances") or {}).items():
            component = shown.get(str(instance_id))
            if isinstance(component, dict) and isinstance(body, dict) \
                    and isinstance(body.get("properties"), dict):
                component.setdefault("properties", body["properties"])
    return shown


def _links(language: str | None, model: t.Mapping[str, t.Any]) -> list[dict[str, str]]:
    """The links between the components the stored model records: a TOSCA
    node's requirements, an assembly's relationships and members. A MuranoPL
    model's links are its objects' references, which its clients read from
    the model itself."""
    links: list[dict[str, str]] = []
    if language == "tosca":
        topology = (model.get("tosca") or {}).get("topology") or {}
        for node, body in (topology.get("nodes") or {}).items():
            requirements = body.get("requirements") if isinstance(body, dict) else None
            for requirement, target in (requirements or {}).items():
                for one in target if isinstance(target, list) else [target]:
                    if isinstance(one, str):
                        links.append({"source": str(node), "target": one,
                                      "kind": str(requirement)})
    elif language == "assembly":
        for instance_id, body in (model.get("instances") or {}).items():
            parent = body.get("parent") if isinstance(body, dict) else None
            if isinstance(parent, str):
                links.append({"source": parent, "target": str(instance_id), "kind": "member"})
        # a relationship made is kept as "ASSEMBLY:NAME:SOURCE->TARGET"
        for key in model.get("relationships") or ():
            if isinstance(key, str) and key.count(":") >= 2 and "->" in key:
                _, relationship, ends = key.rsplit(":", 2)
                source, _, target = ends.partition("->")
                links.append({"source": source, "target": target, "kind": relationship})
    return links
