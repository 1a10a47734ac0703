"""``laguna deploy PACKAGE --form answers.yaml``: a package's forms (its
ui.yaml, laguna.forms) filled with the answers, into a model file that the
deploy then reads like any other (docs/FORMS.md)."""

from __future__ import annotations

import typing as t
from pathlib import Path

import yaml

from laguna.deploy.errors import MODEL_INVALID, Rejected
from laguna.forms import AnswersRefused, FormError, LOCAL_CHOICES, fill, package_definition
from laguna.packages.errors import PackageLoadError
from laguna.packages.package import load_package
from laguna.yamlio import YamlError, load_data, plain


def model_from_forms(package_path: Path, answers_path: Path, folder: Path) -> Path:
    """The model file (written in ``folder``, named after the package's folder
    or archive) that the package's forms make of the answers in
    ``answers_path``; Rejected when the package, its ui.yaml or the answers
    are refused."""
    try:
        package = load_package(package_path)
        ui = package_definition(package, str(package_path))
    except PackageLoadError as error:
        raise Rejected(MODEL_INVALID, f"{package_path}: {error}") from None
    except FormError as error:
        raise Rejected(MODEL_INVALID, str(error)) from None
    answers = read_answers(answers_path)
    try:
        model = fill(ui, answers, package.manifest.name, LOCAL_CHOICES)
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
