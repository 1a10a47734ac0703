"""One field's answer checked and converted, with Django's messages where
murano-dashboard used Django's fields and the package's own (its
``errorMessages``, its validators' ``message``) where it gives them."""

from __future__ import annotations

import dataclasses
import re
import typing as t

from laguna.errors import LagunaError
from laguna.forms.choices import CloudChoices
from laguna.lang.functions import guarded

#: Django's messages, which a field's errorMessages replace key by key
DEFAULT_MESSAGES = {
    "required": "This field is required.",
    "invalid": "Enter a valid value.",
    "invalid_integer": "Enter a whole number.",
    "min_value": "Ensure this value is greater than or equal to {limit}.",
    "max_value": "Ensure this value is less than or equal to {limit}.",
    "min_length": "Ensure this value has at least {limit} characters (it has {count}).",
    "max_length": "Ensure this value has at most {limit} characters (it has {count}).",
    "invalid_choice": "Select a valid choice. {value} is not one of the available choices.",
}
PASSWORD_MESSAGE = ("The password must contain at least one letter, one number and one "
                    "special character")
_PASSWORD = re.compile(r"^.*(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?=.*[!@#$%^&*()_+|\\/.,~?><:{}-]).*$")
TEXT_TYPES = frozenset({"string", "text", "password", "clusterip", "databaselist",
                        "securitygroup", "volume", "zone", "domain"})
CLOUD_TYPES = frozenset({"flavor", "image", "keypair", "azone", "network"})
BOOLEAN_TYPES = frozenset({"boolean", "floatingip"})


class Invalid(LagunaError):
    """One field's refused answer: the message the user reads (the evaluation
    gathers them into an AnswersRefused)."""

    code = "LAG-E1802"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclasses.dataclass(frozen=True)
class Field:
    """A field with its properties evaluated (``initial``, ``required``...)."""

    name: str
    type: str | tuple[str, ...]
    props: dict[str, t.Any]

    @property
    def required(self) -> bool:
        if self.type in BOOLEAN_TYPES:
            return False   # a checkbox left empty is false, never missing
        return bool(self.props.get("required", True))

    @property
    def label(self) -> str:
        return str(self.props.get("label") or self.name)

    def message(self, key: str, **values: t.Any) -> str:
        """The package's message for ``key``, else Django's."""
        given = (self.props.get("errorMessages") or {}).get(key)
        if given is None and key == "invalid_integer":
            given = (self.props.get("errorMessages") or {}).get("invalid")
        text = str(given) if given is not None else DEFAULT_MESSAGES[key]
        return text.format(**values) if given is None else text

    def is_password_checked(self) -> bool:
        """Whether murano-dashboard's default password rule applies (no
        validators of the package's own)."""
        return (self.type == "password" and not self.props.get("validators")
                and not self.props.get("regexpValidator"))


def convert(field: Field, value: t.Any, choices: CloudChoices) -> t.Any:
    """The answer ``value`` (None: not given) as the value the model gets."""
    kind = field.type
    if kind in BOOLEAN_TYPES:
        return _boolean(field, value)
    if value is None or (value == "" and kind != "keypair"):
        if kind in CLOUD_TYPES:
            value = choices.of(str(kind))[0]
        elif field.required:
            raise Invalid(field.message("required"))
        else:
            return "" if kind in TEXT_TYPES or kind == "choice" else None
    if kind == "integer":
        return _integer(field, value)
    if kind in TEXT_TYPES:
        return _text(field, value)
    if kind in CLOUD_TYPES:
        if str(value) not in choices.of(str(kind)):
            raise Invalid(field.message("invalid_choice", value=value))
        if kind == "network":
            return [None, None]   # "Auto": the environment's own network
        return str(value)
    if kind == "choice":
        allowed = [str(pair[0]) for pair in field.props.get("choices") or []]
        if str(value) not in allowed:
            raise Invalid(field.message("invalid_choice", value=value))
        return str(value)
    return _object(field, value)


def _boolean(field: Field, value: t.Any) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    if str(value).lower() in ("true", "yes", "on", "1"):
        return True
    if str(value).lower() in ("false", "no", "off", "0", ""):
        return False
    raise Invalid(field.message("invalid"))


def _integer(field: Field, value: t.Any) -> int:
    if isinstance(value, bool):
        raise Invalid(field.message("invalid_integer"))
    try:
        number = int(str(value).strip())
    except ValueError:
        raise Invalid(field.message("invalid_integer")) from None
    low, high = field.props.get("minValue"), field.props.get("maxValue")
    if low is not None and number < int(low):
        raise Invalid(field.message("min_value", limit=low))
    if high is not None and number > int(high):
        raise Invalid(field.message("max_value", limit=high))
    return number


def _text(field: Field, value: t.Any) -> str:
    if isinstance(value, (dict, list)):
        raise Invalid(field.message("invalid"))
    text = str(value).strip()   # Django's CharField strips
    if not text and field.required:
        raise Invalid(field.message("required"))
    low = field.props.get("minLength", 7 if field.is_password_checked() else None)
    high = field.props.get("maxLength", 255 if field.is_password_checked() else None)
    if high is not None and len(text) > int(high):
        raise Invalid(field.message("max_length", limit=high, count=len(text)))
    if low is not None and len(text) < int(low):
        raise Invalid(field.message("min_length", limit=low, count=len(text)))
    pattern = field.props.get("regexpValidator")
    if pattern is not None and not matches(str(pattern), text):
        raise Invalid(field.message("invalid"))
    if field.is_password_checked() and not _PASSWORD.search(text):
        raise Invalid(str((field.props.get("errorMessages") or {}).get(
            "invalid", PASSWORD_MESSAGE)))
    return text


def regexp(pattern: str) -> t.Any:
    """A regexpValidator (a pattern, or ``/pattern/flags`` as murano-dashboard
    read it), compiled under the sandbox's limits on patterns."""
    written = re.match(r"^/(.*)/([A-Za-z]*)$", pattern)
    if written is None:
        return guarded.regex(pattern)
    flags = set(written.group(2).upper())
    return guarded.regex(written.group(1), ignore_case="I" in flags,
                         multi_line="M" in flags, dot_all="S" in flags)


def matches(pattern: str, text: str) -> bool:
    """Whether the regexpValidator ``pattern`` finds a match in ``text`` (as
    Django's RegexValidator: a search), bounded by the filling's deadline."""
    return bool(guarded.matches(regexp(pattern), text))


def _object(field: Field, value: t.Any) -> t.Any:
    """A class field: the id of an object in the environment, or a new one
    (a mapping whose `?` names one of the field's classes)."""
    classes = (field.type,) if isinstance(field.type, str) else field.type
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        header = value.get("?")
        if not isinstance(header, dict) or header.get("type") not in classes:
            raise Invalid(f"a new object of {field.label} needs `?: {{type: ...}}` "
                          f"naming {' or '.join(classes)}")
        return value
    raise Invalid(f"{field.label}: the id of an object of {' or '.join(classes)} "
                  "or a new one (a mapping)")
