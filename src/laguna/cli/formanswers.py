"""``laguna deploy PACKAGE --form answers.yaml``: a package's forms (its
ui.yaml, laguna.forms) filled with the answers, into a model file that the
deploy then reads like any other (docs/FORMS.md)."""

from __future__ import annotations

import typing as t
from pathlib import Path

import click
import yaml

from laguna.deploy.errors import MODEL_INVALID, Rejected
from laguna.forms import (
    LOCAL_CHOICES, AnswersRefused, CloudChoices, FormError, UiDefinition, fill,
    package_definition, parameters_source, with_parameters,
)
from laguna.forms.definition import FieldDef
from laguna.forms.expressions import Expr
from laguna.packages.errors import PackageLoadError
from laguna.packages.package import load_package
from laguna.yamlio import YamlError, load_data, plain


def model_from_forms(package_path: Path, answers_path: Path | None, folder: Path,
                     choices: CloudChoices = LOCAL_CHOICES,
                     libs: t.Sequence[Path] = ()) -> Path:
    """The model file (written in ``folder``, named after the package's folder
    or archive) that the package's forms make of the answers in
    ``answers_path`` (None: asked on the terminal), its cloud fields choosing
    among ``choices`` (the deploy's cloud's offer), its ParametersSource
    called with the package and ``libs``; Rejected when the package, its
    ui.yaml, its ParametersSource or the answers are refused."""
    try:
        package = load_package(package_path)
        ui = package_definition(package, str(package_path))
    except PackageLoadError as error:
        raise Rejected(MODEL_INVALID, f"{package_path}: {error}") from None
    except FormError as error:
        raise Rejected(MODEL_INVALID, str(error)) from None
    source = parameters_source(ui, package.manifest.full_name)
    if source is not None:
        ui = with_parameters(ui, _parameters_from(package_path, libs, package.manifest.full_name,
                                                  str(package.manifest.version), *source))
    if answers_path is None:
        answers = prompt_answers(ui, package.manifest.name, choices)
        answers_path = Path("(terminal)")
    else:
        answers = read_answers(answers_path)
    try:
        model = fill(ui, answers, package.manifest.name, choices)
    except FormError as error:
        raise Rejected(MODEL_INVALID, str(error)) from None
    except AnswersRefused as error:
        raise Rejected(MODEL_INVALID, f"{answers_path}: {error.message}",
                       {"refused": [{"field": p.where, "message": p.message}
                                    for p in error.problems]}) from None
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{package_path.name.removesuffix('.zip')}.yaml"
    target.write_text(yaml.safe_dump([model], sort_keys=False), encoding="utf-8")
    return target


def _parameters_from(package_path: Path, libs: t.Sequence[Path], fqn: str, version: str,
                     class_name: str, method: str) -> dict[str, t.Any]:
    """What the static method ``ParametersSource`` names answers, run by the
    engine here (no cloud, no agents, the sandbox's limits) as the API's
    static actions run it for the dashboard; a mapping, else nothing."""
    from laguna.frontends.muranopl.static_actions import StaticActionError, call_static_action
    from laguna.packages.source import DirectorySource
    try:
        answered = call_static_action([DirectorySource([package_path, *libs])], class_name,
                                      method, {}, package_name=fqn,
                                      class_version=f"={version}")
    except StaticActionError as error:
        raise Rejected(MODEL_INVALID, f"{package_path}: ParametersSource "
                                      f"{class_name}.{method}: {error.message}") from None
    return dict(answered) if isinstance(answered, dict) else {}


def prompt_answers(ui: UiDefinition, default_name: str,
                   choices: CloudChoices = LOCAL_CHOICES) -> dict[str, t.Any]:
    """Answers asked on the terminal, form by form, each field by its label
    (its initial value the default); refused ones asked again, with the
    package's message."""
    answers: dict[str, t.Any] = {}
    asked = {f"{form.name}.{field.name}": field for form in ui.forms
             for field in form.fields if field.get("hidden") is not True}
    pending = list(asked)
    while True:
        for key in pending:
            _ask(key, asked[key], answers, choices)
        try:
            fill(ui, answers, default_name, choices)
            return answers
        except AnswersRefused as error:
            for problem in error.problems:
                click.echo(f"{problem.where}: {problem.message}", err=True)
            pending = [p.where for p in error.problems if p.where in asked]
            if not pending:
                raise Rejected(MODEL_INVALID, error.message) from None


def _ask(key: str, field: FieldDef, answers: dict[str, t.Any],
         choices: CloudChoices) -> None:
    label = str(field.get("label") or key)
    initial = field.get("initial")
    default = None if isinstance(initial, Expr) or initial is None else initial
    kind = field.type
    if kind == "boolean":
        answers[key] = click.confirm(label, default=bool(default))
    elif kind == "password":
        answers[key] = click.prompt(label, hide_input=True)
        answers[f"{key}-clone"] = click.prompt("Confirm password", hide_input=True)
    elif isinstance(kind, str) and kind in ("flavor", "image", "keypair", "azone", "network"):
        options = choices.of(kind)
        answers[key] = click.prompt(label, type=click.Choice(list(options)),
                                    default=options[0], show_choices=True)
    else:
        given = click.prompt(label, default="" if default is None else str(default),
                             show_default=default is not None)
        if given != "":
            answers[key] = given


def read_answers(path: Path) -> dict[str, t.Any]:
    """The answers file: a map of ``form.field`` (or of forms to their fields)."""
    try:
        data = load_data(path.read_text(encoding="utf-8"), str(path), dates=False)
    except OSError as error:
        raise Rejected(MODEL_INVALID, f"{path}: cannot read the answers "
                                      f"({error.strerror})") from None
    except YamlError as error:
        raise Rejected(MODEL_INVALID, str(error)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise Rejected(MODEL_INVALID, f"{path}: the answers are a map of form.field to "
                                      "values")
    return t.cast(dict[str, t.Any], plain(data))
