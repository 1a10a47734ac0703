"""Adding an application to an environment, as murano-dashboard did it: the
caller picks a package of the catalog, fills the package's ui.yaml drawn as
a multi-step form (one step per form of ``Forms``, then the application's
name from Version 2.2 on), and the object model laguna.forms makes of the
answers is added to the environment's open session (``POST .../configure``,
then ``POST .../services`` with ``X-Configuration-Session``).

A field whose type is a class chooses an application of that class already
in the environment, or adds a new one through its own package's form (the
"+" of murano-dashboard): that form is filled the same way, its application
added to the session, and the first form comes back with it chosen.
Between steps the answers travel in the page (:mod:`laguna.dashboard.wizard`).
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import configuring, signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, signed_in
from laguna.dashboard.wizard import (
    MANAGEMENT_FORM,
    MAX_DEPTH,
    NAME_FIELD,
    Answers,
    Draft,
    DraftRefused,
    move_of,
    posted_answers,
    step_after,
)
from laguna.forms import AnswersRefused, CloudChoices, Evaluation, FormError, \
    Problem, UiDefinition, parameters_source, read, with_parameters
from laguna.forms.fields import BOOLEAN_TYPES, CLOUD_TYPES, Field, Invalid, convert

#: the most packages the chooser lists
PACKAGES_PAGE = 100
#: the most characters of a ui.yaml the dashboard reads (the catalog bounds a
#: package's archive; this bounds what one page evaluates)
MAX_UI = 1024 * 1024
#: what a cloud field's empty or automatic choice reads as (murano-dashboard's words)
_CHOICE_TEXT = {("keypair", ""): "No keypair", ("network", "auto"): "Auto"}


async def cloud_choices(client: ApiClient, environment_id: str) -> CloudChoices:
    """What the environment's cloud offers its flavor, image, keypair, azone
    and network fields: the one place the dashboard asks (the API's
    ``GET .../choices``, the environment's cloud driver's offer, docs/CLOUD.md);
    an answer that is not an offer is the API's failure."""
    answer = await client.get(f"/v1/environments/{environment_id}/choices")
    try:
        return CloudChoices.of_mapping(answer)
    except (ValueError, AttributeError) as error:
        raise ApiFailure(502, f"the environment's cloud choices: {error}") from None


@dataclasses.dataclass(frozen=True)
class Wizard:
    """A package's forms as steps: its catalog entry and its ui.yaml read."""

    package: dict[str, t.Any]
    ui: UiDefinition
    choices: CloudChoices

    @property
    def steps(self) -> list[str]:
        names = [form.name for form in self.ui.forms]
        return names + [MANAGEMENT_FORM] if self.ui.names_application else names

    def evaluation(self) -> Evaluation:
        return Evaluation(self.ui, str(self.package["name"]), self.choices)

    def fields(self, answers: Answers, step: int) -> tuple[Field, ...]:
        """The fields of ``step``, evaluated over the answers before it (an
        AnswersRefused names the first step before it that refuses them)."""
        fields = self.evaluation().step(answers, step)
        if step == len(self.ui.forms):   # the last step: the application's name
            return (self.name_field(),)
        return fields

    def name_field(self) -> Field:
        return Field(NAME_FIELD, "string", {
            "label": "Application Name", "initial": str(self.package["name"]),
            "maxLength": 255,
            "helpText": "The name the application has in the environment."})

    def check(self, answers: Answers, step: int) -> None:
        """The answers of ``step`` and of every step before it, checked."""
        if step < len(self.ui.forms):
            self.evaluation().step(answers, step + 1)
            return
        self.evaluation().step(answers, len(self.ui.forms))
        name_field = self.name_field()
        try:
            convert(name_field, answers.get(MANAGEMENT_FORM, {}).get(NAME_FIELD),
                    self.choices)
        except Invalid as refused:
            raise AnswersRefused([Problem(f"{MANAGEMENT_FORM}.{NAME_FIELD}",
                                          refused.message)]) from None

    def step_of(self, problems: t.Sequence[Problem]) -> int:
        """The step whose form the first of ``problems`` is about."""
        form = problems[0].where.partition(".")[0] if problems else ""
        return self.steps.index(form) if form in self.steps else 0


def title_of(form: str) -> str:
    """A form's name as a step's title: ``appConfiguration`` is "App configuration"."""
    if form == MANAGEMENT_FORM:
        return "Application name"
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", form).replace("_", " ").split()
    text = " ".join(words).lower()
    return text[:1].upper() + text[1:]


def classes_of(item: Field) -> tuple[str, ...]:
    """The classes a class-typed field accepts (none: another type)."""
    if isinstance(item.type, tuple):
        return item.type
    if "." in item.type:
        return (item.type,)
    return ()


def routes(api: Asgi) -> list[BaseRoute]:
    async def choose(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        environment = await client.get(f"/v1/environments/{environment_id}")
        listed = await client.get("/v1/catalog/packages",
                                  {"type": "Application", "limit": str(PACKAGES_PAGE)})
        return page("add_application.html", key=signin.form_key(token),
                    environment=environment, packages=listed["packages"], draft=None,
                    label=None)

    async def start(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        draft = Draft(request.path_params["package_id"])
        return await _show(request, client, token, environment_id, draft, [])

    async def post(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        form = await request.form()
        try:
            draft = Draft.load(field(form, "draft") or "")
            move = move_of(field(form, "action"))
        except DraftRefused as refused:
            return page("error.html", 400, title="Refused", message=str(refused),
                        key=signin.form_key(token))
        if move.kind == "start":
            # a package chosen for a new object: its first step, under its parent
            child = Draft(request.path_params["package_id"], 0, {}, draft.field, draft.parent)
            return await _show(request, client, token, environment_id, child, [])
        if move.kind == "cancel" and draft.parent is not None:
            return await _show(request, client, token, environment_id, draft.parent, [])
        if draft.package != request.path_params["package_id"]:
            return page("error.html", 400, title="Refused", key=signin.form_key(token),
                        message="The form's draft is of another package.")
        wizard = await _wizard(client, environment_id, draft.package)
        steps = wizard.steps
        draft.step = min(draft.step, len(steps) - 1)
        try:
            fields = wizard.fields(draft.answers, draft.step)
        except AnswersRefused as refused:   # a step before was changed: back to it
            draft.step = wizard.step_of(refused.problems)
            return await _show(request, client, token, environment_id, draft,
                               refused.problems, wizard)
        draft.answers[steps[draft.step]] = posted_answers(fields, form)
        if move.kind == "new" and move.field is not None:
            return await _new_object(request, client, token, environment_id, draft, fields,
                                     move.field)
        if move.kind == "next":
            try:
                wizard.check(draft.answers, draft.step)
            except AnswersRefused as refused:
                draft.step = wizard.step_of(refused.problems)
                return await _show(request, client, token, environment_id, draft,
                                   refused.problems, wizard)
            if draft.step + 1 == len(steps):
                return await _add(request, client, token, environment_id, draft, wizard)
        draft.step = step_after(move, draft.step, len(steps))
        return await _show(request, client, token, environment_id, draft, [], wizard)

    return [
        Route("/environments/{environment_id}/add", signed_in(api, choose)),
        Route("/environments/{environment_id}/add/{package_id}", signed_in(api, start),
              methods=["GET"]),
        Route("/environments/{environment_id}/add/{package_id}", signed_in(api, post),
              methods=["POST"]),
    ]


async def _wizard(client: ApiClient, environment_id: str, package_id: str) -> Wizard:
    package = await client.get(f"/v1/catalog/packages/{package_id}")
    answered = await client.raw(f"/v1/catalog/packages/{package_id}/ui")
    if answered.status_code >= 400:
        raise ApiFailure(answered.status_code, answered.text[:500])
    if len(answered.content) > MAX_UI:
        raise FormError(f"package {package['fully_qualified_name']}'s UI/ui.yaml has more "
                        f"than {MAX_UI} bytes")
    if not answered.text.strip():
        raise FormError(f"package {package['fully_qualified_name']} has no UI/ui.yaml: "
                        "no forms to fill")
    ui = read(answered.text, f"{package['fully_qualified_name']}/UI/ui.yaml")
    source = parameters_source(ui, package["fully_qualified_name"])
    if source is not None:
        ui = with_parameters(ui, await _parameters_from(client, package, *source))
    return Wizard(package, ui, await cloud_choices(client, environment_id))


async def _parameters_from(client: ApiClient, package: t.Mapping[str, t.Any], class_name: str,
                           method: str) -> dict[str, t.Any]:
    """What the package's static method ``ParametersSource`` names answers, called
    through the API's static actions as murano-dashboard called it (the
    package's highest version, ``classVersion`` ``*``, no arguments) each time
    the form is drawn; an answer that is not a mapping adds nothing."""
    answered = await client.post("/v1/actions", {
        "className": class_name, "methodName": method,
        "packageName": package["fully_qualified_name"], "classVersion": "*",
        "parameters": {}})
    return dict(answered) if isinstance(answered, dict) else {}


async def _show(request: Request, client: ApiClient, token: str, environment_id: str,
                draft: Draft, problems: t.Sequence[Problem],
                wizard: Wizard | None = None, session_id: str | None = None) -> Response:
    """The page of the draft's step, with ``problems`` beside their fields."""
    try:
        wizard = wizard or await _wizard(client, environment_id, draft.package)
        session_id = session_id or await configuring.current(request, client, environment_id)
        environment = await client.get(f"/v1/environments/{environment_id}",
                                       session=session_id)
        nested = None
        if draft.parent is not None:
            nested = await _asking(client, environment_id, draft.parent, draft.field)
        shown = step_page(wizard, draft, problems, environment, nested, signin.form_key(token))
    except FormError as error:
        return page("error.html", 422, title="This package's form cannot be drawn",
                    message=str(error), key=signin.form_key(token))
    # the draft may hold a password typed on a step before: kept by no cache
    shown.headers["Cache-Control"] = "no-store"
    return shown


def step_page(wizard: Wizard, draft: Draft, problems: t.Sequence[Problem],
              environment: dict[str, t.Any], nested: dict[str, str] | None,
              key: str) -> Response:
    """The page of the draft's step in ``environment`` (as the API shows it,
    with its session's applications), ``problems`` beside their fields; a
    step before that refuses its answers is shown instead, with its own."""
    steps = wizard.steps
    draft.step = min(draft.step, len(steps) - 1)
    try:
        fields = wizard.fields(draft.answers, draft.step)
    except AnswersRefused as refused:
        problems, draft.step = refused.problems, wizard.step_of(refused.problems)
        fields = wizard.fields(draft.answers, draft.step)
    form = steps[draft.step]
    given = draft.answers.get(form, {})
    views = [_view(item, given, problems, form, environment.get("services") or [],
                   wizard.choices) for item in fields if not item.props.get("hidden")]
    known = {f"{form}.{item.name}" for item in fields if not item.props.get("hidden")}
    general = [problem.message if problem.where in (form, "") else str(problem)
               for problem in problems if problem.where not in known]
    # murano-apps describe a step with a hidden field's description (and its
    # descriptionTitle): murano-dashboard drew those beside the form
    notes = [(_text(item.props.get("descriptionTitle")), _text(item.props.get("description")))
             for item in fields if item.props.get("hidden") and item.props.get("description")]
    return page("application_form.html", 422 if problems else 200, key=key,
                environment=environment, package=wizard.package,
                steps=[title_of(s) for s in steps], step=draft.step, fields=views,
                problems=general, draft=draft.dump(), nested=nested, notes=notes)


async def _asking(client: ApiClient, environment_id: str, asker: Draft,
                  name: str | None) -> dict[str, str]:
    """The package and the label of the field ``name`` of the form ``asker``
    that asked for a new object (the name when that form cannot be drawn)."""
    parent = await _wizard(client, environment_id, asker.package)
    label = str(name)
    try:
        for item in parent.fields(asker.answers, asker.step):
            if item.name == name:
                label = item.label
    except (AnswersRefused, FormError):
        pass
    return {"package": str(parent.package["name"]), "label": label}


def _view(item: Field, given: dict[str, str], problems: t.Sequence[Problem], form: str,
          services: list[dict[str, t.Any]], choices: CloudChoices) -> dict[str, t.Any]:
    """What the template draws for one field."""
    kind = item.type
    classes = classes_of(item)
    if item.name in given:
        value: t.Any = given[item.name]
    else:
        value = item.props.get("initial")
    value = "" if value is None else value
    view: dict[str, t.Any] = {
        "name": item.name, "id": f"field-{item.name}", "label": item.label,
        "description": _text(item.props.get("description")),
        "help": _text(item.props.get("helpText")),
        "errors": [p.message for p in problems if p.where == f"{form}.{item.name}"],
        "value": str(value), "min": item.props.get("minValue"),
        "max": item.props.get("maxValue"), "maxlength": item.props.get("maxLength"),
        "options": [], "clone": None, "classes": classes, "required": item.required,
    }
    if classes:
        view["widget"] = "class"
        view["options"] = [("", "Choose an application")] + [
            (str(s["?"]["id"]),
             f"{s['?'].get('name') or s.get('name') or s['?']['type']} ({s['?']['type']})")
            for s in services if isinstance(s.get("?"), dict)
            # a type may carry its version and package (`fqn/1.0@pkg`), as
            # murano-dashboard read it; the class is what comes before
            and str(s["?"].get("type", "")).split("/")[0] in classes]
    elif kind in BOOLEAN_TYPES:
        view["widget"] = "checkbox"
        view["value"] = str(value).lower() in ("true", "on", "yes", "1")
    elif kind in CLOUD_TYPES:
        view["widget"] = "select"
        view["options"] = [(c, _CHOICE_TEXT.get((str(kind), c), c))
                           for c in choices.of(str(kind))]
    elif kind == "choice":
        view["widget"] = "select"
        view["options"] = [(str(pair[0]), str(pair[1] if len(pair) > 1 else pair[0]))
                           for pair in item.props.get("choices") or []
                           if isinstance(pair, (list, tuple)) and pair]
    elif kind == "integer":
        view["widget"] = "number"
    elif kind == "text":
        view["widget"] = "textarea"
    elif kind == "password":
        view["widget"] = "password"
        if item.props.get("confirmInput", True) and item.required:
            # murano-dashboard drew a second box under every password
            view["clone"] = {"id": f"field-{item.name}-clone", "name": f"{item.name}-clone",
                             "label": f"Confirm {item.label[:1].lower()}{item.label[1:]}",
                             "value": given.get(f"{item.name}-clone", "")}
    else:
        view["widget"] = "text"
    return view


def _text(value: t.Any) -> str:
    return "" if value is None else str(value)


async def _new_object(request: Request, client: ApiClient, token: str, environment_id: str,
                      draft: Draft, fields: t.Sequence[Field], name: str) -> Response:
    """The chooser of packages that make a new object for the class-typed
    field ``name`` (or that package's first step, when only one does)."""
    target = next((item for item in fields if item.name == name and classes_of(item)), None)
    if target is None:
        return page("error.html", 400, title="Refused", key=signin.form_key(token),
                    message=f"This step has no field {name} that takes an application.")
    if draft.depth() >= MAX_DEPTH:
        return page("error.html", 400, title="Refused", key=signin.form_key(token),
                    message=f"Forms are opened at most {MAX_DEPTH} deep from another.")
    found: dict[str, dict[str, t.Any]] = {}
    for class_name in classes_of(target):
        listed = await client.get("/v1/catalog/packages",
                                  {"class_name": class_name, "limit": str(PACKAGES_PAGE)})
        for package in listed["packages"]:
            found.setdefault(package["id"], package)
    waiting = Draft("", 0, {}, name, draft)
    if len(found) == 1:
        waiting.package = next(iter(found))
        return await _show(request, client, token, environment_id, waiting, [])
    environment = await client.get(f"/v1/environments/{environment_id}")
    return page("add_application.html", key=signin.form_key(token), environment=environment,
                packages=list(found.values()), draft=waiting.dump(), label=target.label)


async def _add(request: Request, client: ApiClient, token: str, environment_id: str,
               draft: Draft, wizard: Wizard) -> Response:
    """The application made of the answers, added to the environment's session."""
    try:
        model = wizard.evaluation().fill(draft.answers)
    except AnswersRefused as refused:
        draft.step = wizard.step_of(refused.problems)
        return await _show(request, client, token, environment_id, draft, refused.problems,
                           wizard)
    except FormError as error:
        return page("error.html", 422, title="This package's form cannot be evaluated",
                    message=str(error), key=signin.form_key(token))
    session_id = await configuring.opened(request, client, environment_id)
    await client.post(f"/v1/environments/{environment_id}/services", model,
                      session=session_id)
    response: Response
    if draft.parent is not None and draft.field is not None:
        parent = draft.parent
        parent_wizard = await _wizard(client, environment_id, parent.package)
        form = parent_wizard.steps[min(parent.step, len(parent_wizard.steps) - 1)]
        parent.answers.setdefault(form, {})[draft.field] = str(model["?"]["id"])
        response = await _show(request, client, token, environment_id, parent, [],
                               parent_wizard, session_id)
    else:
        response = RedirectResponse(f"{PREFIX}/environments/{environment_id}", 303)
    configuring.remember(response, request, environment_id, session_id)
    return response
