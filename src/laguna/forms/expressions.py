"""YAQL in a ui.yaml: which strings are expressions, and their evaluation.

murano-dashboard took every string that is not made only of letters, digits,
spaces, dots and colons and that yaql parses as an expression (so
``$.appConfiguration.name`` is one, ``Apache HTTP Server`` is not), and
evaluated it with yaql's legacy context. laguna does the same with its own
engine (laguna.yaql, legacy mode, the MuranoPL engine's limits), except in
the keys whose value is text for people (labels, descriptions, messages),
where a string stays a string.
"""

from __future__ import annotations

import re
import typing as t

from yaql.language import exceptions as yaql_exceptions

from laguna.source import Span
from laguna.yaql import engine as yaql_engine

_PLAIN = re.compile(r"^[\s\w.:]*$")

#: the keys whose strings are text, never expressions
TEXT_KEYS = frozenset({"label", "description", "helpText", "message", "errorMessages",
                       "name", "type", "emptyValueMessage", "descriptionTitle",
                       "regexpValidator", "Version", "widgetMedia"})


class Expr:
    """A YAQL expression of a ui.yaml, with its position."""

    def __init__(self, text: str, span: Span | None) -> None:
        self.text = text
        self.span = span
        self.parsed = yaql_engine.parse(text, True)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"

    def evaluate(self, data: t.Any, context: t.Any) -> t.Any:
        """The value of the expression with ``$`` bound to ``data``."""
        return self.parsed.evaluate(data=data, context=context)


def expression_of(text: str, span: Span | None) -> Expr | None:
    """``text`` as an expression when murano-dashboard took it for one."""
    if _PLAIN.match(text):
        return None
    try:
        return Expr(text, span)
    except (yaql_exceptions.YaqlGrammarException, yaql_exceptions.YaqlLexicalException,
            yaql_exceptions.YaqlParsingException):
        return None
