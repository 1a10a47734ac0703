"""Every ui.yaml of the public murano-apps (a checkout outside the repo, named
by LAGUNA_MURANO_APPS; skipped without one) renders and, its fields filled
with values they accept, produces an object model (docs/FORMS.md)."""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

import pytest

from laguna.forms import AnswersRefused, fill, read
from laguna.forms.definition import FieldDef

APPS = Path(os.environ.get("LAGUNA_MURANO_APPS", "/nonexistent"))
pytestmark = pytest.mark.skipif(not APPS.is_dir(), reason="LAGUNA_MURANO_APPS names no checkout")

#: values tried in turn for a field until it accepts one
CANDIDATES: dict[str, list[t.Any]] = {
    "string": ["app1", "abc", "Admin1", "example.com", "10.0.0.1", "a", "user_1", "abcdefgh"],
    "text": ["some text"],
    "password": ["Secret1!"],
    "integer": [1, 2, 3, 5, 10, 80, 1024, 8080],
}


def _candidates(field: FieldDef) -> list[t.Any]:
    if isinstance(field.type, tuple) or "." in field.type:
        return ["0123456789abcdef0123456789abcdef"]   # an object in the environment
    return CANDIDATES.get(field.type, [None])


def _answers(choice: dict[str, t.Any], fields: dict[str, FieldDef]) -> dict[str, t.Any]:
    answers = {key: value for key, value in choice.items() if value is not None}
    for key, field in fields.items():
        if field.type == "password" and key in answers:
            answers[f"{key}-clone"] = answers[key]
    return answers


def _ui_files() -> list[Path]:
    return sorted(p for p in APPS.rglob("ui.yaml") if "UI" in p.parts) if APPS.is_dir() else []


@pytest.mark.parametrize("path", _ui_files(), ids=lambda p: str(p.relative_to(APPS)))
def test_a_murano_apps_form_renders_and_produces_a_model(path: Path) -> None:
    ui = read(path.read_text(), str(path.relative_to(APPS)))
    fields = {f"{form.name}.{field.name}": field for form in ui.forms for field in form.fields}
    left = {key: iter(_candidates(field)) for key, field in fields.items()}
    choice = {key: next(values) for key, values in left.items()}
    for _ in range(100):
        try:
            model = fill(ui, _answers(choice, fields), "App")
            break
        except AnswersRefused as refused:
            for problem in refused.problems:
                choice[problem.where] = next(left[problem.where])   # StopIteration: none fits
    assert isinstance(model["?"]["type"], str) and len(model["?"]["id"]) == 32
