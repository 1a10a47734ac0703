"""Murano's dynamic UI without the browser: a package's ui.yaml read
(:mod:`definition`), its answers checked (:mod:`fields`) and evaluated with
its YAQL (:mod:`expressions`, :mod:`functions`) into the application's
object model (:mod:`evaluation`). docs/FORMS.md."""

from laguna.forms.choices import LOCAL_CHOICES, ChoicesMapping, CloudChoices
from laguna.forms.definition import UiDefinition, parameters_source, read, with_parameters
from laguna.forms.errors import AnswersRefused, FormError, Problem
from laguna.forms.evaluation import Evaluation, fill
from laguna.forms.packages import package_definition

__all__ = ["LOCAL_CHOICES", "AnswersRefused", "ChoicesMapping", "CloudChoices", "Evaluation", "FormError",
           "Problem", "UiDefinition", "fill", "package_definition", "parameters_source", "read",
           "with_parameters"]
