"""TOSCA templates and assembly descriptors of the catalog added to an
environment: the list of them, and each one's inputs as a form generated from
their types and constraints (``GET /v1/catalog/packages/{id}/inputs``).

What a browser sends is converted by the inputs' types (a number that does not
read as one is passed on as text, for the front end to refuse in its own
words), added to the caller's open configuration session of the environment
(:mod:`configuring`, as the package forms add theirs) as an application
whose ``?.type`` names the blueprint, and the API checks it with the front end's rules: its
refusal is shown on the form, each line beside the field it names. The form
carries the HTML attributes its constraints give (``min``, ``max``,
``pattern``, ``minlength``...) as hints, but ``novalidate``: the server's
check, in the front end's words, is the one that counts (docs/DASHBOARD.md).
"""

from __future__ import annotations

import dataclasses
import re
import typing as t
import uuid

import yaml
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import configuring, signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import field as form_field
from laguna.dashboard.routing import signed_in

#: a list or map input is written as YAML (or JSON) text, bounded before it is read
MAX_TEXT = 64 * 1024
_NUMBERS = {"integer": re.compile(r"[-+]?\d+"),
            "float": re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")}
#: a refusal's line and the input it names: TOSCA's ``input NAME: ...``, an
#: assembly's ``property 'NAME' (...)``
_NAMED = re.compile(r"^(?:input (?P<input>[^:\s]+):|property '(?P<property>[^']+)')")


@dataclasses.dataclass
class Control:
    """One input as the form draws it."""

    name: str
    type: str
    widget: str                 # text, number, checkbox, select, textarea
    required: bool
    help: str
    value: t.Any
    attributes: dict[str, str]
    options: list[str]
    error: str | None = None


def controls(inputs: list[dict[str, t.Any]], given: t.Mapping[str, str] | None = None
             ) -> list[Control]:
    """The form's controls: each input's widget and HTML attributes from its type
    and constraints; its value the one ``given`` (a refused submission) or its
    default."""
    made = []
    for spec in inputs:
        kind = str(spec.get("type", "string"))
        attributes: dict[str, str] = {}
        options: list[str] = []
        widget = {"integer": "number", "float": "number", "boolean": "checkbox",
                  "list": "textarea", "map": "textarea"}.get(kind, "text")
        if widget == "number":
            attributes["step"] = "1" if kind == "integer" else "any"
        for constraint in spec.get("constraints") or []:
            for key, bound in constraint.items():
                _constrain(key, bound, kind, attributes, options)
        if options:
            widget = "select"
        help_text = str(spec.get("description") or "")
        if kind in ("list", "map"):
            help_text = (help_text + " " if help_text else "") + \
                f"A {kind} written as YAML or JSON."
        if given is not None:
            value: t.Any = given.get(spec["name"], "")
        elif "default" in spec:
            value = spec["default"]
            if widget == "textarea" and value is not None:
                value = yaml.safe_dump(value, default_flow_style=True).strip()
        else:
            value = ""
        made.append(Control(str(spec["name"]), kind, widget, bool(spec.get("required")),
                            help_text, value, attributes, options))
    return made


def _constrain(key: str, bound: t.Any, kind: str, attributes: dict[str, str],
               options: list[str]) -> None:
    """A TOSCA constraint as the HTML attribute that says the same (a hint)."""
    numeric = kind in ("integer", "float")
    if key == "valid_values" and isinstance(bound, list):
        options.extend(str(v) for v in bound)
    elif key == "equal":
        options.append(str(bound))
    elif key == "in_range" and isinstance(bound, list) and len(bound) == 2 and numeric:
        attributes["min"], attributes["max"] = str(bound[0]), str(bound[1])
    elif key in ("greater_or_equal", "greater_than") and numeric:
        step = 1 if key == "greater_than" and kind == "integer" else 0
        attributes["min"] = str(bound + step) if isinstance(bound, (int, float)) else str(bound)
    elif key in ("less_or_equal", "less_than") and numeric:
        step = 1 if key == "less_than" and kind == "integer" else 0
        attributes["max"] = str(bound - step) if isinstance(bound, (int, float)) else str(bound)
    elif key == "pattern":
        attributes["pattern"] = str(bound)
    elif key == "length":
        attributes["minlength"] = attributes["maxlength"] = str(bound)
    elif key == "min_length":
        attributes["minlength"] = str(bound)
    elif key == "max_length":
        attributes["maxlength"] = str(bound)


def values_of(made: list[Control], form: t.Mapping[str, str | None]) -> tuple[
        dict[str, t.Any], dict[str, str]]:
    """The inputs' values from the submitted form, and the fields this side
    cannot read (a list that is not YAML); an empty optional field is left out."""
    values: dict[str, t.Any] = {}
    problems: dict[str, str] = {}
    for control in made:
        text = form.get(control.name)
        if control.widget == "checkbox":
            values[control.name] = text == "true"
            continue
        if text is None or text.strip() == "":
            continue            # not given: the default, or the front end's "required"
        text = text.strip()
        pattern = _NUMBERS.get(control.type)
        if pattern is not None:
            # what does not read as a number goes as text: the front end refuses it
            values[control.name] = (int(text) if control.type == "integer" else float(text)) \
                if pattern.fullmatch(text) else text
        elif control.widget == "textarea":
            if len(text) > MAX_TEXT:
                problems[control.name] = f"at most {MAX_TEXT} characters"
                continue
            try:
                values[control.name] = yaml.safe_load(text)
            except yaml.YAMLError as error:
                problems[control.name] = f"not YAML: {str(error).splitlines()[0]}"
        else:
            values[control.name] = text
    return values, problems


def placed(message: str, made: list[Control]) -> list[str]:
    """The API's refusal put beside the fields it names; the lines naming none."""
    by_name = {control.name: control for control in made}
    general = []
    for line in message.splitlines()[1:] or [message]:
        found = _NAMED.match(line)
        name = (found.group("input") or found.group("property")) if found else None
        if name in by_name:
            control = by_name[name]
            control.error = line if control.error is None else f"{control.error}; {line}"
        else:
            general.append(line)
    return general


def routes(api: Asgi) -> list[BaseRoute]:
    async def listing(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        shown = await client.get(f"/v1/environments/{environment_id}")
        blueprints = []
        for kind in ("tosca", "assembly"):
            found = await client.get("/v1/catalog/packages", {"type": kind})
            blueprints += [{**p, "kind": kind} for p in found.get("packages", [])]
        return page("blueprints.html", key=signin.form_key(token), environment=shown,
                    blueprints=blueprints)

    async def blueprint_form(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        shown = await client.get(f"/v1/environments/{environment_id}")
        described = await client.get(
            f"/v1/catalog/packages/{request.path_params['package_id']}/inputs")
        made = controls(described["inputs"])
        if request.method == "GET":
            return _form(token, shown, described, made, [])
        form = await request.form()
        submitted = {c.name: form_field(form, c.name) for c in made}
        made = controls(described["inputs"], {k: v or "" for k, v in submitted.items()})
        values, problems = values_of(made, submitted)
        for control in made:
            control.error = problems.get(control.name)
        if problems:
            return _form(token, shown, described, made, ["Some fields cannot be read."], 400)
        # the caller's open session of the environment, as the package forms
        # use it (configuring.py): what is added waits there to be deployed
        session_id = await configuring.opened(request, client, environment_id)
        try:
            application = {"?": {"id": uuid.uuid4().hex, "type": described["type"]},
                           **values}
            await client.post(f"/v1/environments/{environment_id}/services", application,
                              session=session_id)
        except ApiFailure as failure:
            if failure.status != 400:
                raise
            general = placed(failure.message, made)
            refused = _form(token, shown, described, made,
                            [failure.message.splitlines()[0], *general], 400)
            configuring.remember(refused, request, environment_id, session_id)
            return refused
        added = page("blueprint_added.html", key=signin.form_key(token), environment=shown,
                     blueprint=described, session_id=session_id, values=values)
        configuring.remember(added, request, environment_id, session_id)
        return added

    return [
        Route("/environments/{environment_id}/blueprints", signed_in(api, listing)),
        Route("/environments/{environment_id}/blueprints/{package_id}",
              signed_in(api, blueprint_form), methods=["GET", "POST"]),
    ]


def _form(token: str, environment: t.Any, described: t.Any, made: list[Control],
          errors: list[str], status: int = 200) -> Response:
    return page("blueprint.html", status, key=signin.form_key(token), environment=environment,
                blueprint=described, controls=made, errors=errors)
