"""The errors of the dynamic UI: a ui.yaml that cannot be read (FormError,
with its file and line) and answers the forms refuse (AnswersRefused, every
problem with the package's own message)."""

from __future__ import annotations

import dataclasses

from laguna.errors import LagunaError, SourceError


class FormError(SourceError):
    """A ui.yaml that is not a valid dynamic UI definition (or one of its
    expressions failed): names the file, line and what is wrong."""

    code = "LAG-E1800"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One refused answer: ``form.field`` (or the form alone, for a form's
    validators) and the message the user reads."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class AnswersRefused(LagunaError):
    """Answers that the forms' fields or validators refuse, all of them."""

    code = "LAG-E1801"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        self.message = "the form's answers are refused:\n" + "\n".join(
            f"  {problem}" for problem in problems)
        super().__init__(self.message)
