"""Answers through a UiDefinition's forms to the object model, as
murano-dashboard's wizard did: each form's fields in order (their properties
may be expressions over the answers so far), the form's validators, then
Application evaluated with the Templates as variables, and an id for each
object that has none."""

from __future__ import annotations

import time
import typing as t
import uuid

from yaql.language import exceptions as yaql_exceptions

from laguna.forms import functions
from laguna.forms.choices import LOCAL_CHOICES, ChoicesMapping, CloudChoices
from laguna.forms.definition import FieldDef, FormDef, UiDefinition
from laguna.forms.errors import AnswersRefused, FormError, Problem
from laguna.forms.expressions import Expr
from laguna.forms.fields import Field, Invalid, convert, matches
from laguna.lang import limits
from laguna.lang.errors import LimitExceededError
from laguna.lang.functions import guarded
from laguna.yaql import engine as yaql_engine
from laguna.yaql.engine import Limits

#: the sandbox of a form's expressions: MuranoPL's limits, but seconds, not
#: minutes, for a whole filling (a person waits for it)
FORM_LIMITS = Limits(execution_seconds=10.0)

#: murano-dashboard's last form, where a 2.2+ package's application is named
MANAGEMENT_FORM = "workflowManagement"


def answers_by_form(answers: t.Mapping[str, t.Any]) -> dict[str, dict[str, t.Any]]:
    """``form.field: value`` answers (or ``form: {field: value}``) by form."""
    grouped: dict[str, dict[str, t.Any]] = {}
    for key, value in answers.items():
        if isinstance(value, dict) and "." not in key and "?" not in value:
            grouped.setdefault(key, {}).update(value)
        else:
            form, _, field = str(key).partition(".")
            grouped.setdefault(form, {})[field] = value
    return grouped


class Evaluation:
    """One filling of a ui.yaml's forms."""

    def __init__(self, ui: UiDefinition, default_name: str,
                 choices: CloudChoices | ChoicesMapping = LOCAL_CHOICES,
                 bounds: Limits = FORM_LIMITS) -> None:
        self.ui = ui
        self.bounds = bounds
        # a cloud's offer as the caller got it (the API's JSON, a driver's)
        self.choices = choices if isinstance(choices, CloudChoices) \
            else CloudChoices.of_mapping(choices)
        self.application_name = default_name
        self.templates = ui.templates
        self.referenced: dict[str, t.Any] = {}
        self.ref_ids: set[str] = set()
        self.data: dict[str, dict[str, t.Any]] = {}
        self.context = self._root_context()

    def _root_context(self) -> t.Any:
        # yaql's legacy library under the MuranoPL engine's sandbox: loops
        # bounded in items and time, regular expressions and string building
        # guarded (laguna.lang.functions.guarded)
        root = yaql_engine.create_root_context(True)
        guarded.bound_loops(root)
        guarded.register(root)
        context = root.create_child_context()
        functions.register(context, self)
        return context

    def _parameters(self) -> None:
        for key, value in self.ui.parameters.items():
            # murano-dashboard skips the names that do not start with a letter
            if key and key[0].isalpha():
                self.context[key] = self.evaluate(value, self.context)

    def evaluate(self, value: t.Any, context: t.Any) -> t.Any:
        """``value`` with its expressions evaluated (again, when one gives
        another template), ``$`` being the answers by form."""
        if isinstance(value, Expr):
            try:
                result = value.evaluate(self.data, context)
            except (yaql_exceptions.YaqlException, LimitExceededError, ValueError, TypeError,
                    KeyError) as error:
                raise FormError(f"expression {value.text!r} failed: {error}",
                                value.span) from None
            return self.evaluate(result, context)
        if isinstance(value, dict):
            return {k: self.evaluate(v, context) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.evaluate(v, context) for v in value]
        return value

    def fill(self, answers: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        """The application's object (the model) from ``answers``; refused
        answers raise AnswersRefused with every problem of the first form that
        has any (the wizard stops at that step). The whole filling runs under
        the evaluation's bounds (a FormError names the expression that crossed one)."""
        deadline = time.monotonic() + self.bounds.execution_seconds
        with limits.activated(self.bounds, deadline, limits.resident_bytes()):
            return self._fill(answers)

    def step(self, answers: t.Mapping[str, t.Any], index: int) -> tuple[Field, ...]:
        """The fields of the wizard's step ``index`` (a form of ``Forms``) with
        their properties evaluated over the answers of the steps before it,
        which are checked first: AnswersRefused with the problems of the
        first step before ``index`` that has any. ``index`` equal to the
        number of forms checks every form and gives no fields (the end)."""
        deadline = time.monotonic() + self.bounds.execution_seconds
        with limits.activated(self.bounds, deadline, limits.resident_bytes()):
            self._parameters()
            grouped = answers_by_form(answers)
            for form in self.ui.forms[:index]:
                self._fill_form(form, grouped.get(form.name, {}))
            if index >= len(self.ui.forms):
                return ()
            return tuple(self._field(spec) for spec in self.ui.forms[index].fields)

    def _fill(self, answers: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        self._parameters()
        grouped = answers_by_form(answers)
        for form in self.ui.forms:
            self._fill_form(form, grouped.get(form.name, {}))
        known = {form.name for form in self.ui.forms} | {MANAGEMENT_FORM}
        unknown = sorted(f"{form}.{field}" for form, fields in grouped.items()
                         if form not in known for field in fields)
        if unknown:
            raise AnswersRefused([Problem(key, "no such form") for key in unknown])
        named = grouped.get(MANAGEMENT_FORM, {}).get("application_name")
        if named:
            self.application_name = str(named)
        context = self.context.create_child_context()
        for name, template in self.templates.items():
            context[name] = template
        application = dict(self.ui.application)
        if self.ui.names_application:
            application["?"] = {**(application.get("?") or {}), "name": self.application_name}
        model = self.evaluate(application, context)
        return t.cast(dict[str, t.Any], _with_ids(model))

    def _fill_form(self, form: FormDef, given: dict[str, t.Any]) -> None:
        problems: list[Problem] = []
        values: dict[str, t.Any] = {}
        self.data[form.name] = values
        names = {field.name for field in form.fields}
        for key in given:
            if key not in names and not (key.endswith("-clone") and key[:-6] in names):
                problems.append(Problem(f"{form.name}.{key}", "no such field"))
        for spec in form.fields:
            field = self._field(spec)
            where = f"{form.name}.{spec.name}"
            value = given.get(spec.name)
            if value is None and "initial" in field.props:
                value = field.props["initial"]
            try:
                values[spec.name] = converted = convert(field, value, self.choices)
                self._validators(field, converted)
                self._confirmation(field, converted, given)
            except Invalid as refused:
                problems.append(Problem(where, refused.message))
        if not problems:
            for validator in form.validators:
                if not self._true(validator.get("expr"), self.data, form.name):
                    problems.append(Problem(form.name, str(
                        validator.get("message", "Validation Error occurred"))))
        if problems:
            raise AnswersRefused(problems)

    def _field(self, spec: FieldDef) -> Field:
        props = {key: value if key == "validators" else self.evaluate(value, self.context)
                 for key, value in spec.attrs.items()}
        return Field(spec.name, spec.type, props)

    def _validators(self, field: Field, value: t.Any) -> None:
        for validator in field.props.get("validators") or []:
            expr = validator.get("expr") if isinstance(validator, dict) else None
            message = str(validator.get("message", "")) if isinstance(validator, dict) else ""
            if isinstance(expr, dict) and "regexpValidator" in expr:
                if not matches(str(expr["regexpValidator"]), str(value)):
                    raise Invalid(message or field.message("invalid"))
            elif not self._true(expr, value, field.name):
                raise Invalid(message)

    def _true(self, expr: t.Any, data: t.Any, where: str) -> bool:
        if not isinstance(expr, Expr):
            return bool(expr)
        try:
            return bool(expr.evaluate(data, self._root_context()))
        except (yaql_exceptions.YaqlException, LimitExceededError, ValueError, TypeError,
                KeyError) as error:
            raise FormError(f"validator {expr.text!r} of {where} failed: {error}",
                            expr.span) from None

    @staticmethod
    def _confirmation(field: Field, value: t.Any, given: dict[str, t.Any]) -> None:
        if field.type != "password" or not field.props.get("confirmInput", True) \
                or not field.required:
            return
        clone = given.get(f"{field.name}-clone")
        if clone is None:
            raise Invalid("Please confirm your password")
        if str(clone).strip() != value:
            raise Invalid(f"{field.label}s don't match")


def _with_ids(value: t.Any) -> t.Any:
    """Every object header (`?`) without an id given a new one."""
    if isinstance(value, dict):
        result = {k: _with_ids(v) for k, v in value.items()}
        header = result.get("?")
        if isinstance(header, dict) and not header.get("id"):
            header["id"] = uuid.uuid4().hex
        return result
    if isinstance(value, list):
        return [_with_ids(v) for v in value]
    return value


def fill(ui: UiDefinition, answers: t.Mapping[str, t.Any], default_name: str,
         choices: CloudChoices | ChoicesMapping = LOCAL_CHOICES,
         bounds: Limits = FORM_LIMITS) -> dict[str, t.Any]:
    """The object model a ui.yaml's forms make of ``answers``; the cloud
    fields choose among ``choices``, the environment's cloud's offer."""
    return Evaluation(ui, default_name, choices, bounds).fill(answers)
