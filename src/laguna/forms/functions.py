"""The functions a ui.yaml's YAQL may call beyond yaql's legacy library, as
murano-dashboard defined them: ``repeat``, ``generateHostname``, ``name``,
``ref``; and ``randomName`` (MuranoPL's, which ui.yaml files call too).
``encryptData`` needs a key manager and is not offered."""

from __future__ import annotations

import secrets
import string
import typing as t
import uuid

from yaql.language import specs, yaqltypes

#: how many objects repeat() may make: the forms' own bound, beside yaql's
MAX_REPEAT = 1000


class Evaluation(t.Protocol):
    """What the functions need of the evaluation that calls them."""

    application_name: str
    templates: dict[str, t.Any]
    referenced: dict[str, t.Any]
    ref_ids: set[str]

    def evaluate(self, value: t.Any, context: t.Any) -> t.Any: ...


def register(context: t.Any, evaluation: Evaluation) -> None:
    """Register the functions on ``context`` (a child of yaql's legacy root)."""

    @specs.parameter("times", int)
    def repeat(context: t.Any, template: t.Any, times: int) -> list[t.Any]:
        # the template's expressions see `$index`, 1 to times
        if times > MAX_REPEAT:
            raise ValueError(f"repeat() makes at most {MAX_REPEAT} copies, not {times}")
        copies = []
        for index in range(times):
            child = context.create_child_context()
            child["index"] = index + 1
            copies.append(evaluation.evaluate(template, child))
        return copies

    @specs.parameter("pattern", yaqltypes.String(nullable=True))
    @specs.parameter("number", int)
    def generate_hostname(pattern: str | None, number: int) -> str:
        if pattern:
            return pattern.replace("#", str(number))
        return random_name()

    def name() -> str:
        return evaluation.application_name

    @specs.parameter("template_name", yaqltypes.String())
    @specs.parameter("parameter_name", yaqltypes.String(nullable=True))
    @specs.parameter("id_only", yaqltypes.PythonType(bool, nullable=True))
    def ref(context: t.Any, template_name: str, parameter_name: str | None = None,
            id_only: bool | None = None) -> t.Any:
        # one object per name, however many times it is referred to: the first
        # ref() gives the object, the later ones its id (murano-dashboard's rule)
        key = parameter_name or template_name
        data = evaluation.referenced.get(key)
        if data is None and template_name in evaluation.templates:
            data = evaluation.evaluate(evaluation.templates[template_name], context)
            evaluation.referenced[key] = data
        if not isinstance(data, dict):
            return None
        header = data.setdefault("?", {})
        if header.get("id") not in evaluation.ref_ids:
            header["id"] = uuid.uuid4().hex
            evaluation.ref_ids.add(header["id"])
            id_only = False if id_only is None else id_only
        elif id_only is None:
            id_only = True
        return header["id"] if id_only else data

    context.register_function(repeat, "repeat")
    context.register_function(generate_hostname, "generateHostname")
    context.register_function(name, "name")
    context.register_function(ref, "ref")
    context.register_function(random_name, "randomName")


def random_name() -> str:
    """A short unique host name: five letters and a random suffix."""
    letters = "".join(secrets.choice(string.ascii_lowercase) for _ in range(5))
    return letters + secrets.token_hex(4)
