"""Object models as files: recognising them, reading them, wrapping bare
applications into an environment, and ``--set`` values.

A MuranoPL blueprint is one of:

- a YAML or JSON file holding an object model: an ``io.murano.Environment``
  object, ``{"Objects": ...}`` as the API stored it, or application objects
  (one, or a list) that are wrapped into a default environment;
- a package folder or zip of type Application: one object of its
  application class (``FullName``), wrapped the same way.

Wrapped environments get a default network, as the original API gave every
new environment (``defaultNetworks.environment``: an
``io.murano.resources.NeutronNetwork`` named ``<environment>-network``).
"""

from __future__ import annotations

import copy
import json
import typing as t
import uuid
from pathlib import Path

import yaml

from laguna.deploy.errors import MODEL_INVALID, SETTING_UNKNOWN, Rejected
from laguna.source import Diagnostic, Span

ENVIRONMENT_CLASS = "io.murano.Environment"
NETWORK_CLASS = "io.murano.resources.NeutronNetwork"
MODEL_SUFFIXES = (".yaml", ".yml", ".json")
#: the id a wrapped environment gets until the run knows the environment's id
WRAPPED_ID = "laguna-wrapped-environment"


def is_package(path: Path) -> bool:
    return (path.is_dir() and (path / "manifest.yaml").is_file()) or (
        path.is_file() and path.suffix == ".zip")


def _is_object(value: t.Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("?"), dict) \
        and "type" in value["?"]


def looks_like_model(data: t.Any) -> bool:
    if isinstance(data, dict) and "Objects" in data:
        return True
    if isinstance(data, list):
        return bool(data) and all(_is_object(item) for item in data)
    return _is_object(data)


def recognises(path: Path) -> bool:
    """A package folder or zip, or a model file (cheap: reads the one file)."""
    if is_package(path):
        return True
    if not path.is_file() or path.suffix.lower() not in MODEL_SUFFIXES:
        return False
    try:
        return looks_like_model(_parse(path))
    except Rejected:
        # A model file that does not even parse is nobody's to recognise; taking
        # it lets prepare() report the parse error with its line, rather than the
        # registry saying that no language recognises the file.
        return True


def _parse(path: Path) -> t.Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Rejected(MODEL_INVALID, f"{path}: cannot be read: {error}") from None
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (
            getattr(error, "lineno", None), getattr(error, "colno", None))
        problems = [Diagnostic(Span(str(path), line, column), "LAG-E0101",
                               str(getattr(error, "problem", None) or getattr(error, "msg", error)))
                    ] if line is not None and column is not None else []
        raise Rejected(MODEL_INVALID, f"{path}: not valid "
                       f"{'JSON' if path.suffix.lower() == '.json' else 'YAML'}: "
                       f"{error}", {"problems": [p.to_json() for p in problems]}
                       if problems else None) from None


_KINDS = {int: "a number", float: "a number", bool: "a boolean", type(None): "empty",
          list: "a list", dict: "a mapping"}


def _check_ids(path: Path, value: t.Any, where: str) -> None:
    """Every object header's id is a string: YAML reads an unquoted id of digits
    (``1111...``) as a number, which no store or agent can take."""
    if isinstance(value, dict):
        header = value.get("?")
        if isinstance(header, dict) and "id" in header and not isinstance(header["id"], str):
            raise Rejected(MODEL_INVALID, f"{path}: {where or 'the root object'}: the id "
                           f"{header['id']!r} is {_KINDS.get(type(header['id']), 'not text')}, "
                           "not a string (quote it)")
        for key, item in value.items():
            if key != "?":
                _check_ids(path, item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _check_ids(path, item, f"{where}[{number}]")


def read_model(path: Path) -> tuple[dict[str, t.Any], bool]:
    """The model in ``path`` as ``{"Objects": root}``, and whether laguna wrapped
    it into an environment. Raises Rejected(model_invalid) naming the file."""
    data = _parse(path)
    if not looks_like_model(data):
        raise Rejected(MODEL_INVALID, f"{path}: not an object model (expected an "
                       "io.murano.Environment object, {Objects: ...} or application "
                       "objects, each with a '?' header naming its type)")
    _check_ids(path, data, "")
    if isinstance(data, dict) and "Objects" in data:
        model = {k: v for k, v in data.items() if k in ("Objects", "Attributes")}
        root: t.Any = model.get("Objects")
        if not _is_object(root):
            raise Rejected(MODEL_INVALID, f"{path}: Objects must be an object with a "
                           "'?' header")
        if root["?"]["type"] == ENVIRONMENT_CLASS:
            return model, False
        return {**model, "Objects": wrap([root])}, True
    if isinstance(data, dict) and data["?"]["type"] == ENVIRONMENT_CLASS:
        return {"Objects": data}, False
    return {"Objects": wrap(data if isinstance(data, list) else [data])}, True


def wrap(applications: list[dict[str, t.Any]], name: str = "environment") -> dict[str, t.Any]:
    """An io.murano.Environment holding ``applications``, with a default network."""
    return {
        "?": {"id": WRAPPED_ID, "type": ENVIRONMENT_CLASS},
        "name": name,
        "applications": list(applications),
        "defaultNetworks": {
            "environment": {
                "?": {"id": uuid.uuid5(uuid.NAMESPACE_URL, "laguna:default-network").hex,
                      "type": NETWORK_CLASS},
                "name": f"{name}-network",
            },
            "flat": None,
        },
    }


def application_object(class_name: str, settings: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The one application object of a package deployed as MODEL."""
    return {"?": {"id": uuid.uuid5(uuid.NAMESPACE_URL, f"laguna:app:{class_name}").hex,
                  "type": class_name}, **settings}


def settle_wrapped(model: dict[str, t.Any], environment_id: str,
                   environment_name: str) -> dict[str, t.Any]:
    """A wrapped environment gets the laguna environment's id and name, so that
    its servers' host keys and its stack stay the same across redeploys."""
    root = model.get("Objects")
    if not (isinstance(root, dict) and root.get("?", {}).get("id") == WRAPPED_ID):
        return model
    model = copy.deepcopy(model)
    root = model["Objects"]
    root["?"]["id"] = environment_id
    root["name"] = environment_name
    network = (root.get("defaultNetworks") or {}).get("environment")
    if isinstance(network, dict):
        network["?"]["id"] = uuid.uuid5(uuid.NAMESPACE_URL,
                                        f"laguna:{environment_id}:network").hex
        network["name"] = f"{environment_name}-network"
    return model


def parse_value(text: str) -> t.Any:
    """A ``--set`` value: YAML scalars (numbers, booleans, null), lists and maps;
    a quoted string is that string (``'"8080"'`` is text, not a number); else
    the text as given."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str) and text.strip()[:1] in ("'", '"'):
        return value
    return value if isinstance(value, (int, float, bool, type(None), list, dict)) else text


def apply_settings(model: dict[str, t.Any], settings: t.Mapping[str, str], source: str,
                   settable: t.Callable[[dict[str, t.Any]], t.Collection[str] | None]
                   = lambda app: None) -> dict[str, t.Any]:
    """``--set KEY=VALUE``: KEY is ``property`` (every application that has it,
    or the only application) or ``APP.property`` (APP: the application's
    ``name`` or object id); dots go deeper into nested values. ``settable``
    gives the properties a model may set on an application (None: unknown,
    its class is not found yet); a property it does not list is refused
    (``setting_unknown``), naming those it does."""
    if not settings:
        return model
    model = copy.deepcopy(model)
    root = model["Objects"]
    applications = root.get("applications") or [] if \
        root["?"]["type"] == ENVIRONMENT_CLASS else [root]
    for key, text in settings.items():
        value = parse_value(text)
        path = key.split(".")
        targets = [app for app in applications
                   if len(path) > 1 and path[0] in (app.get("name"), app["?"].get("id"))]
        if targets:
            path = path[1:]
        elif len(applications) == 1:
            targets = applications
        else:
            targets = [app for app in applications
                       if path[0] in app or path[0] in (settable(app) or ())]
        if not targets:
            properties = "; ".join(f"{app.get('name') or app['?'].get('id')}: "
                                   f"{', '.join(sorted(settable(app) or ())) or '?'}"
                                   for app in applications)
            raise Rejected(SETTING_UNKNOWN, f"{source}: --set {key}: no application "
                           f"of the model has a property {path[0]!r} (set APP.PROPERTY; "
                           f"the applications' properties: {properties})")
        for app in targets:
            known = settable(app)
            if known is not None and path[0] not in known:
                raise Rejected(SETTING_UNKNOWN, f"{source}: --set {key}: {app['?']['type']} "
                               f"has no property {path[0]!r}; its properties: "
                               f"{', '.join(sorted(known)) or 'none'}")
            holder = app
            for part in path[:-1]:
                holder = holder.setdefault(part, {})
                if not isinstance(holder, dict):
                    raise Rejected(MODEL_INVALID, f"{source}: --set {key}: "
                                   f"{part} is not a mapping")
            holder[path[-1]] = value
    return model
