"""Murano's dynamic forms over another project's packages: every ui.yaml of a
murano-apps checkout (outside the repo) is read and, its fields filled with
the first of a few values each accepts, must produce an object model
(docs/FORMS.md). One command, printing each file's result and the count::

    python3 benchmarks/forms_murano_apps.py /path/to/murano-apps
"""

from __future__ import annotations

import sys
import typing as t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
from laguna.forms import AnswersRefused, fill, read  # noqa: E402
from laguna.forms.definition import FieldDef  # noqa: E402
from laguna.errors import LagunaError  # noqa: E402

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
    ui = read(path.read_text(), str(path.relative_to(root)))
    fields = {f"{form.name}.{field.name}": field for form in ui.forms for field in form.fields}
    left = {key: iter(_candidates(field)) for key, field in fields.items()}
    choice = {key: next(values) for key, values in left.items()}
    for _ in range(100):
        try:
            return fill(ui, _answers(choice, fields), "App")
        except AnswersRefused as refused:
            for problem in refused.problems:
                try:
                    choice[problem.where] = next(left[problem.where])
                except StopIteration:
                    raise RuntimeError(f"no candidate value fits {problem.where}: "
                                       f"{problem.message}") from None
    raise RuntimeError("no answers were accepted in 100 rounds")


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
            model = model_of(path, root)
        except (LagunaError, RuntimeError) as error:
            print(f"FAIL {path.relative_to(root)}: {error}")
            continue
        made += 1
        print(f"ok   {path.relative_to(root)}: {model['?']['type']}")
    print(f"{made} of {len(files)} ui.yaml files render and produce a model")
    return 0 if made == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
