"""The multi-step form of a package's ui.yaml as the dashboard keeps it
between requests: the answers so far and the way back to the form that
asked for a new object (a :class:`Draft`, carried in the page as one hidden
input), what a browser posts turned into laguna.forms answers, and where
Next, Back and the other buttons lead.

The draft travels in the page, not in a store: the dashboard keeps nothing
of its own (docs/DASHBOARD.md), so any server may answer the next step. It
is not trusted: it is bounded in size and depth before it is read, and every
answer in it goes through laguna.forms again at every step, as if typed.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing as t

from starlette.datastructures import FormData

from laguna.errors import LagunaError
from laguna.forms.fields import BOOLEAN_TYPES, Field

#: the most characters a draft may have (every answer of every form of a
#: package and of the forms it was opened from): a ui.yaml's fields are a
#: few dozen short values
MAX_DRAFT = 256 * 1024
#: how many forms deep a new object's form may be opened from another's
MAX_DEPTH = 4
#: murano-dashboard's last step of a 2.2+ package: the application's name
MANAGEMENT_FORM = "workflowManagement"
NAME_FIELD = "application_name"

#: a package's id (empty while a package is being chosen for a new object)
_PACKAGE_ID = re.compile(r"^[0-9A-Za-z-]{0,64}$")
#: answers by form, then by field (``password-clone`` beside ``password``)
Answers = dict[str, dict[str, str]]


class DraftRefused(LagunaError):
    """A posted draft the dashboard cannot read (too large, too deep, or not
    the shape its pages write)."""

    code = "LAG-E1803"


@dataclasses.dataclass
class Draft:
    """One filling of a package's forms: the package, the step shown, the
    answers so far; ``parent`` is the filling that asked for this one as a
    new object of its class-typed ``field`` (murano-dashboard's "+")."""

    package: str
    step: int = 0
    answers: Answers = dataclasses.field(default_factory=dict)
    field: str | None = None
    parent: Draft | None = None

    def depth(self) -> int:
        return 0 if self.parent is None else 1 + self.parent.depth()

    def dump(self) -> str:
        return json.dumps(self._plain(), separators=(",", ":"), sort_keys=True)

    def _plain(self) -> dict[str, t.Any]:
        return {"package": self.package, "step": self.step, "answers": self.answers,
                "field": self.field,
                "parent": None if self.parent is None else self.parent._plain()}

    @classmethod
    def load(cls, text: str) -> Draft:
        """The draft a page posted; DraftRefused when it is not one."""
        if len(text) > MAX_DRAFT:
            raise DraftRefused(f"the form's draft has more than {MAX_DRAFT} characters")
        try:
            plain = json.loads(text)
        except ValueError:
            raise DraftRefused("the form's draft is not JSON") from None
        return cls._read(plain, 0)

    @classmethod
    def _read(cls, plain: t.Any, depth: int) -> Draft:
        if depth > MAX_DEPTH:
            raise DraftRefused(f"forms are opened at most {MAX_DEPTH} deep from another")
        if not isinstance(plain, dict):
            raise DraftRefused("the form's draft is not a mapping")
        package, step, answers = plain.get("package"), plain.get("step"), plain.get("answers")
        field, parent = plain.get("field"), plain.get("parent")
        if not isinstance(package, str) or not isinstance(step, int) or step < 0 \
                or not isinstance(answers, dict) or not (field is None or isinstance(field, str)):
            raise DraftRefused("the form's draft lacks its package, step or answers")
        if not _PACKAGE_ID.match(package):
            # it becomes part of an API path: an id, never a path of its own
            raise DraftRefused(f"the form's draft names no package id: {package[:40]!r}")
        checked: Answers = {}
        for form, values in answers.items():
            if not isinstance(values, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
                raise DraftRefused(f"the draft's answers of {form} are not texts")
            checked[str(form)] = dict(values)
        return cls(package, step, checked, field,
                   None if parent is None else cls._read(parent, depth + 1))


def posted_answers(fields: t.Sequence[Field], posted: FormData) -> dict[str, str]:
    """The answers of one step's ``fields`` in what the browser ``posted``:
    text as typed, a ticked box ``true`` and an unticked one (which browsers
    do not send) ``false``, a password with its confirmation (``-clone``).
    Hidden fields take their initial value in laguna.forms, so none is read."""
    answers: dict[str, str] = {}
    for field in fields:
        if field.props.get("hidden"):
            continue
        value = posted.get(field.name)
        if field.type in BOOLEAN_TYPES:
            answers[field.name] = "true" if isinstance(value, str) and value else "false"
            continue
        if isinstance(value, str):
            answers[field.name] = value
        clone = posted.get(f"{field.name}-clone")
        if field.type == "password" and isinstance(clone, str):
            answers[f"{field.name}-clone"] = clone
    return answers


@dataclasses.dataclass(frozen=True)
class Move:
    """Where a button of a step leads: ``next``, ``back``, ``new`` (a new
    object for the class-typed field ``field``), ``cancel`` (back to the
    form that asked for the new object) or ``start`` (the first step)."""

    kind: t.Literal["next", "back", "new", "cancel", "start"]
    field: str | None = None


def move_of(action: str | None) -> Move:
    """The button a step's form was sent with (its ``action``); Enter in a
    text box sends none, which is Next, as in murano-dashboard's wizard."""
    if action is None or action == "next":
        return Move("next")
    if action in ("back", "cancel", "start"):
        return Move(t.cast(t.Literal["back", "cancel", "start"], action))
    if action.startswith("new:") and len(action) > 4:
        return Move("new", action[4:])
    raise DraftRefused(f"no such button: {action[:40]!r}")


def step_after(move: Move, step: int, steps: int) -> int:
    """The step shown after ``move`` from ``step`` of ``steps``: Next goes on
    (``steps`` is the end, where the application is added), Back goes back
    (never before the first), the others stay."""
    if move.kind == "next":
        return min(step + 1, steps)
    if move.kind == "back":
        return max(step - 1, 0)
    if move.kind == "start":
        return 0
    return step
