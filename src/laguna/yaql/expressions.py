"""YAQL expressions found in MuranoPL sources.

A plain YAML scalar is a YAQL expression when it is not made only of word
characters, dots and spaces and it parses as YAQL (the original engine's
rule); `!yaql` forces an expression, quotes or `!!str` force a string.
"""

from __future__ import annotations

import re
import typing as t

from yaql.language import exceptions as yaql_exceptions

from laguna.source import Span
from laguna.yaql import engine

_PLAIN_WORDS = re.compile(r"^[\s\w\d.]*$")


def is_expression(text: str, legacy_mode: bool) -> bool:
    if _PLAIN_WORDS.match(text):
        return False
    try:
        engine.parse(text, legacy_mode)
    except yaql_exceptions.YaqlException:
        return False
    return True


class YaqlExpression:
    """A parsed YAQL expression with the place it was written."""

    __slots__ = ("text", "span", "legacy", "parsed", "_compiled")

    def __init__(self, text: str, span: Span | None, legacy_mode: bool = False) -> None:
        self.text = text
        self.span = span
        self.legacy = legacy_mode
        self.parsed = engine.parse(text, legacy_mode)
        self._compiled: t.Any = None

    def __repr__(self) -> str:
        return f"YAQL({self.text})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, YaqlExpression) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("yaql", self.text))
