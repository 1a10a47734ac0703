"""Murano's dynamic forms over another project's packages: every ui.yaml of a
murano-apps checkout (outside the repo) is read and, its fields filled with
the first of a few values each accepts, must produce an object model
(docs/FORMS.md); then each is drawn by the dashboard, step by step with
those answers typed as text, every control having a label, and the
answers as a browser posts them must make a model too (docs/DASHBOARD.md).
One command, printing each file's result and the count::

    python3 benchmarks/forms_murano_apps.py /path/to/murano-apps
"""

from __future__ import annotations

import html.parser
import sys
import typing as t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
from laguna.forms import AnswersRefused, fill, read  # noqa: E402
from laguna.forms.definition import FieldDef  # noqa: E402
from laguna.errors import LagunaError  # noqa: E402
from laguna.dashboard.applications import Wizard, step_page  # noqa: E402
from laguna.dashboard.wizard import MANAGEMENT_FORM, NAME_FIELD, Draft  # noqa: E402
from laguna.forms import LOCAL_CHOICES  # noqa: E402
from laguna.forms.definition import UiDefinition  # noqa: E402

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



def model_of(path: Path, root: Path) -> dict[str, t.Any]:
    """The model the file's forms make of the first values they accept."""
    ui, answers = answers_of(path, root)
    return fill(ui, answers, "App")


def answers_of(path: Path, root: Path) -> tuple[UiDefinition, dict[str, t.Any]]:
    """The file's forms and the first values they accept."""
    ui = read(path.read_text(), str(path.relative_to(root)))
    fields = {f"{form.name}.{field.name}": field for form in ui.forms for field in form.fields}
    left = {key: iter(_candidates(field)) for key, field in fields.items()}
    choice = {key: next(values) for key, values in left.items()}
    for _ in range(100):
        try:
            fill(ui, _answers(choice, fields), "App")
            return ui, _answers(choice, fields)
        except AnswersRefused as refused:
            for problem in refused.problems:
                try:
                    choice[problem.where] = next(left[problem.where])
                except StopIteration:
                    raise RuntimeError(f"no candidate value fits {problem.where}: "
                                       f"{problem.message}") from None
    raise RuntimeError("no answers were accepted in 100 rounds")


class _Controls(html.parser.HTMLParser):
    """The ids of a page's controls and of the controls its labels name."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[str] = []
        self.labelled: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("input", "select", "textarea") and values.get("type") != "hidden" \
                and values.get("id"):
            self.controls.append(str(values["id"]))
        if tag == "label" and values.get("for"):
            self.labelled.add(str(values["for"]))


def drawn(ui: UiDefinition, answers: dict[str, t.Any]) -> dict[str, t.Any]:
    """Every step drawn by the dashboard with ``answers`` typed as text (each
    control labelled), then the model those texts make."""
    wizard = Wizard({"id": "0" * 32, "name": "App", "fully_qualified_name": "App"}, ui,
                    LOCAL_CHOICES)
    typed: dict[str, dict[str, str]] = {}
    for key, value in answers.items():
        form, _, name = key.partition(".")
        typed.setdefault(form, {})[name] = str(value).lower() if isinstance(value, bool) \
            else str(value)
    typed[MANAGEMENT_FORM] = {NAME_FIELD: "App"}
    environment = {"id": "1" * 32, "name": "env", "services": []}
    for step, form in enumerate(wizard.steps):
        shown = step_page(wizard, Draft("0" * 32, step, typed), [], environment, None, "key")
        if shown.status_code != 200:
            raise RuntimeError(f"step {form} is drawn with problems")
        controls = _Controls()
        controls.feed(bytes(shown.body).decode())
        unlabelled = [c for c in controls.controls if c not in controls.labelled]
        if unlabelled:
            raise RuntimeError(f"step {form}: controls without a label: {unlabelled}")
    return wizard.evaluation().fill(typed)


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print("usage: python3 benchmarks/forms_murano_apps.py MURANO_APPS_CHECKOUT",
              file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    files = sorted(p for p in root.rglob("ui.yaml") if "UI" in p.parts)
    made = 0
    for path in files:
        try:
            model = drawn(*answers_of(path, root))
        except (LagunaError, RuntimeError) as error:
            print(f"FAIL {path.relative_to(root)}: {error}")
            continue
        made += 1
        print(f"ok   {path.relative_to(root)}: {model['?']['type']}")
    print(f"{made} of {len(files)} ui.yaml files render, are drawn by the dashboard and "
          "produce a model")
    return 0 if made == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
