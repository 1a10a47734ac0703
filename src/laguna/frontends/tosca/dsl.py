"""AMP's ``$brooklyn:`` DSL, read into the TOSCA functions laguna already
evaluates (seed 003's table of TOSCA functions and their AMP forms).

A string that starts with ``$brooklyn:`` is an expression (``$brooklyn:config("port")``,
``$brooklyn:component("db").attributeWhenReady("host")``); a map of one key
``$brooklyn:NAME`` is a call of NAME with the value as its argument (a list: its
arguments), as AMP reads both. They become:

==========================================  =======================================
AMP                                         TOSCA
==========================================  =======================================
``config(k)``, ``self().config(k)``         ``{get_property: [SELF, k]}``
``entity(x).config(k)``,                    ``{get_property: [x, k]}``
``component(x).config(k)``
``attributeWhenReady(a)`` (on SELF or x)    ``{get_attribute: [SELF|x, a]}`` (waits, as
                                            get_attribute does)
``scopeRoot().config(k)``                   ``{get_input: k}``
``formatString(f, args...)``                ``{concat: [...]}`` (``%s``, ``%d``,
                                            ``%N$s``, ``%%``, ``%n``)
``literal(v)``                              ``v``, not read further
``entity(x)``, ``component(x)``, ``self()`` the node's name (``SELF``): how TOSCA
                                            names a node (targets, members)
``{$brooklyn:entitySpec: {...}}``           kept (its contents read): a
                                            DynamicCluster's member template
==========================================  =======================================

Everything else (``$brooklyn:object``, ``parent()``, ``sensor()``, ...) is a
``bad_function`` problem naming what is supported; so is an expression that
does not parse, with the character where it stops.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

from laguna.errors import LagunaError
from laguna.frontends.tosca.problems import BAD_FUNCTION
from laguna.source import Span
from laguna.yamlio import YMap, YSeq

PREFIX = "$brooklyn:"
#: the map form that stays a map: a DynamicCluster's ``dynamiccluster.memberspec``
ENTITY_SPEC = "$brooklyn:entitySpec"
LITERAL = "$brooklyn:literal"
#: what the DSL maps, for messages
SUPPORTED = ("attributeWhenReady", "component", "config", "entity", "entitySpec",
             "formatString", "literal", "scopeRoot", "self")
#: AMP functions laguna has no TOSCA function for, and why
UNSUPPORTED = {
    # the seed's table maps get_property/get_attribute on TARGET, SOURCE and HOST
    # to it: AMP's own translation, which TOSCA's functions say directly
    "object": ("it instantiates a Java class in the JVM of AMP, and laguna runs no Java; "
               "for a property or attribute of TARGET, SOURCE or HOST write get_property "
               "or get_attribute: [TARGET, name]"),
    "sensor": "it names a Java sensor; use attributeWhenReady",
    "parent": "TOSCA has no parent node; name the node with component(\"x\")",
    "child": "TOSCA has no child nodes; name the node with component(\"x\")",
    "sibling": "name the node with component(\"x\")",
    "descendant": "name the node with component(\"x\")",
    "ancestor": "name the node with component(\"x\")",
    "root": "use scopeRoot().config(\"input\") for an input",
    "urlEncode": "TOSCA has no such function",
    "regexReplace": "TOSCA has no such function",
    "external": "laguna has no external configuration suppliers",
}

Found = list[tuple[str, str, Span | None, str]]


class DslError(LagunaError):
    """An expression laguna cannot read: ``offset`` is where, in its text (the
    validator turns it into a ``bad_function`` problem at the expression)."""

    code = "LAG-E1548"

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclasses.dataclass
class Call:
    """``name(args)`` at ``offset`` of the expression."""

    name: str
    args: list[t.Any]
    offset: int


# -- parsing the string form ---------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class _Parser:
    """``[$brooklyn:]name(arg, ...)[.name(arg, ...)]...``; an argument is a quoted
    string, a number or another expression."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str, offset: int | None = None) -> t.NoReturn:
        raise DslError(message, self.pos if offset is None else offset)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def chain(self) -> list[Call]:
        self.skip()
        if self.text.startswith(PREFIX, self.pos):
            self.pos += len(PREFIX)
        calls = [self.call()]
        while True:
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ".":
                self.pos += 1
                calls.append(self.call())
            else:
                return calls

    def call(self) -> Call:
        self.skip()
        start = self.pos
        match = _IDENT.match(self.text, self.pos)
        if not match:
            self.fail("expected a function name"
                      + (f", found {self.text[self.pos]!r}" if self.pos < len(self.text)
                         else ", found the end"))
        self.pos = match.end()
        self.skip()
        if self.pos >= len(self.text) or self.text[self.pos] != "(":
            self.fail(f"expected '(' after {match.group()}")
        self.pos += 1
        args: list[t.Any] = []
        self.skip()
        if self.pos < len(self.text) and self.text[self.pos] == ")":
            self.pos += 1
            return Call(match.group(), args, start)
        while True:
            args.append(self.argument())
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            if self.pos < len(self.text) and self.text[self.pos] == ")":
                self.pos += 1
                return Call(match.group(), args, start)
            self.fail(f"expected ',' or ')' in the arguments of {match.group()}")

    def argument(self) -> t.Any:
        self.skip()
        if self.pos >= len(self.text):
            self.fail("expected an argument, found the end")
        char = self.text[self.pos]
        if char in "\"'":
            return self.quoted(char)
        number = _NUMBER.match(self.text, self.pos)
        if number:
            self.pos = number.end()
            found = number.group()
            return float(found) if "." in found else int(found)
        if self.text.startswith(PREFIX, self.pos):
            return self.chain()
        name = _IDENT.match(self.text, self.pos)
        if name:
            after = self.text[name.end():].lstrip()
            if not after.startswith("("):
                self.fail(f"expected a quoted string, a number or a function, found "
                          f"{name.group()!r} (a name is written in quotes: "
                          f"\"{name.group()}\")")
            return self.chain()
        self.fail(f"expected a quoted string, a number or a function, found {char!r}")

    def quoted(self, quote: str) -> str:
        start = self.pos
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            if char == quote:
                self.pos += 1
                return "".join(out)
            out.append(char)
            self.pos += 1
        self.fail(f"the string opened here is not closed (expected {quote})", start)


def parse(text: str) -> list[Call]:
    """The chain of calls of a ``$brooklyn:`` expression."""
    parser = _Parser(text)
    calls = parser.chain()
    parser.skip()
    if parser.pos != len(text):
        parser.fail(f"unexpected {text[parser.pos:]!r} after the expression")
    return calls


# -- meaning --------------------------------------------------------------------------------

class _Translator:
    """Turns parsed calls (or a map form's call) into TOSCA values."""

    def __init__(self, nodes: t.Collection[str], span: Span | None, text: str) -> None:
        self.nodes = nodes
        self.span = span
        self.text = text

    def value(self, value: t.Any) -> t.Any:
        """An argument: calls parsed from a string, or a value of the map form."""
        if isinstance(value, list) and value and all(isinstance(c, Call) for c in value):
            return self.chain(value)
        return value

    def chain(self, calls: list[Call]) -> t.Any:
        first, rest = calls[0], calls[1:]
        target = self.start(first)
        if not isinstance(target, _Entity):
            if rest:
                raise DslError(f"{first.name}(...) gives a value, not an entity: "
                               f".{rest[0].name}(...) cannot follow it", rest[0].offset)
            return target
        if not rest:
            if target.ref == _ROOT:
                raise DslError("scopeRoot() alone is no value; use "
                               "scopeRoot().config(\"input\")", first.offset)
            return target.ref
        step = rest[0]
        if len(rest) > 1:
            raise DslError(f".{rest[1].name}(...) cannot follow .{step.name}(...): "
                           "it gives a value, not an entity", rest[1].offset)
        return self.on_entity(target.ref, step)

    def start(self, call: Call) -> t.Any:
        name, args = call.name, call.args
        if name in ("entity", "component"):
            if len(args) == 2 and args[0] == "global":
                args = args[1:]
            node = self.string(call, args, "a node template's name")
            if node not in self.nodes:
                known = ", ".join(sorted(self.nodes)) or "none"
                raise DslError(f"{name}({node!r}): no node template {node!r} "
                               f"(nodes: {known})", call.offset)
            return _Entity(node)
        if name == "self":
            self.arity(call, 0)
            return _Entity("SELF")
        if name == "scopeRoot":
            self.arity(call, 0)
            return _Entity(_ROOT)
        if name in ("config", "attributeWhenReady"):
            return self.on_entity("SELF", call)
        if name == "literal":
            self.arity(call, 1)
            value = call.args[0]
            if isinstance(value, list):
                raise DslError("literal(...) takes a string or a number, not a function",
                               call.offset)
            return value
        if name == "formatString":
            return self.format(call)
        if name in ("entitySpec",):
            raise DslError("entitySpec is written as a map: {$brooklyn:entitySpec: "
                           "{type: ..., brooklyn.config: {...}}}", call.offset)
        if name in UNSUPPORTED:
            raise DslError(f"{name}(...) is not supported: {UNSUPPORTED[name]}", call.offset)
        raise DslError(f"unknown function {name!r} (laguna reads "
                       f"{', '.join(SUPPORTED)})", call.offset)

    def on_entity(self, ref: str, call: Call) -> t.Any:
        if call.name == "config":
            key = self.string(call, call.args, "a configuration key")
            if ref == _ROOT:
                return self.function("get_input", key)
            return self.function("get_property", [ref, key])
        if call.name == "attributeWhenReady":
            key = self.string(call, call.args, "an attribute name")
            if ref == _ROOT:
                raise DslError("scopeRoot() has no attributes in TOSCA; use "
                               "scopeRoot().config(\"input\") for an input", call.offset)
            return self.function("get_attribute", [ref, key])
        raise DslError(f".{call.name}(...) is not supported on an entity (laguna reads "
                       ".config(...) and .attributeWhenReady(...))", call.offset)

    def format(self, call: Call) -> t.Any:
        if not call.args or not isinstance(call.args[0], str):
            raise DslError("formatString(...) needs a format string first", call.offset)
        pattern, args = call.args[0], [self.value(a) for a in call.args[1:]]
        parts: list[t.Any] = []
        used = 0
        position = 0
        for match in re.finditer(r"%(?:(\d+)\$)?([-#+ 0,(]*\d*(?:\.\d+)?)([a-zA-Z%])?",
                                 pattern):
            text_before = pattern[position:match.start()]
            position = match.end()
            index, flags, conversion = match.groups()
            if conversion == "%" and not index and not flags:
                text_before += "%"
            elif conversion == "n" and not index and not flags:
                text_before += "\n"
            elif conversion in ("s", "d") and not flags:
                if index is not None:
                    slot = int(index) - 1
                else:
                    slot, used = used, used + 1
                if not 0 <= slot < len(args):
                    given = f"{len(args)} {'is' if len(args) == 1 else 'are'}"
                    raise DslError(f"formatString: {match.group()} needs argument "
                                   f"{slot + 1} after the format, but {given} given",
                                   call.offset)
                if text_before:
                    parts.append(text_before)
                parts.append(args[slot])
                continue
            else:
                raise DslError(f"formatString: {match.group()!r} is not supported (laguna "
                               "reads %s, %d, %N$s, %% and %n)", call.offset)
            if text_before:
                parts.append(text_before)
        if position < len(pattern):
            parts.append(pattern[position:])
        merged: list[t.Any] = []
        for part in parts:
            if merged and isinstance(part, str) and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
        return self.function("concat", merged or [""])

    def string(self, call: Call, args: list[t.Any], what: str) -> str:
        if len(args) != 1 or not isinstance(args[0], str):
            raise DslError(f"{call.name}(...) takes one argument, {what} in quotes",
                           call.offset)
        return args[0]

    def arity(self, call: Call, count: int) -> None:
        if len(call.args) != count:
            raise DslError(f"{call.name}(...) takes {count} argument"
                           f"{'' if count == 1 else 's'}, not {len(call.args)}", call.offset)

    def function(self, name: str, args: t.Any) -> YMap:
        result = YMap({name: _seq(args, self.span) if isinstance(args, list) else args})
        result.span = self.span  # type: ignore[assignment]
        result.key_spans = {name: self.span} if self.span else {}
        result.number_texts = {}
        result.dsl = self.text  # type: ignore[attr-defined]
        return result


_ROOT = "<scopeRoot>"


@dataclasses.dataclass(frozen=True)
class _Entity:
    """An entity reference: a node's name, SELF, or the scope root."""

    ref: str


def _seq(items: list[t.Any], span: Span | None) -> YSeq:
    seq = YSeq(items)
    seq.span = span  # type: ignore[assignment]
    return seq


def expression(text: str, nodes: t.Collection[str], span: Span | None) -> t.Any:
    """The TOSCA value of the string form ``text`` (raises :class:`DslError`)."""
    return _Translator(nodes, span, text).chain(parse(text))


def map_form(key: str, value: t.Any, nodes: t.Collection[str], span: Span | None) -> t.Any:
    """The TOSCA value of ``{key: value}`` (``key`` is ``$brooklyn:NAME``); ``value``
    already translated."""
    name = key[len(PREFIX):]
    args = list(value) if isinstance(value, list) else [value]
    text = f"{{{key}: ...}}"
    translator = _Translator(nodes, span, text)
    chained = translator.start(Call(name, args, 0))
    if isinstance(chained, _Entity):
        if chained.ref == _ROOT:
            raise DslError("scopeRoot alone is no value; use scopeRoot().config(\"input\")", 0)
        return chained.ref
    return chained


# -- walking a document ---------------------------------------------------------------------

def translate(data: t.Any, nodes: t.Collection[str], found: Found,
              path: tuple[t.Any, ...] = ()) -> t.Any:
    """``data`` with every ``$brooklyn:`` expression replaced by its TOSCA value (maps
    and lists changed in place); each expression laguna cannot read is added to
    ``found`` as (kind, message, span, entity) and left as written."""
    if isinstance(data, str) and data.startswith(PREFIX):
        span = getattr(data, "span", None)
        try:
            return expression(str(data), nodes, span)
        except DslError as error:
            found.append(_problem(str(data), error, span, path))
            return data
    if isinstance(data, dict):
        if len(data) == 1 and next(iter(data)) == LITERAL:
            # what a literal holds is not read further, even text that looks like DSL
            return data[LITERAL]
        values_map = bool(path) and path[-1] in _VALUE_MAPS
        for key in list(data):
            if key == "description" and not values_map:
                continue    # a description is text for people, as in AMP
            data[key] = translate(data[key], nodes, found, (*path, key))
        if len(data) == 1:
            ((key, value),) = data.items()
            if isinstance(key, str) and key.startswith(PREFIX) and key != ENTITY_SPEC:
                span = getattr(data, "key_spans", {}).get(key) or getattr(data, "span", None)
                try:
                    return map_form(key, value, nodes, span)
                except DslError as error:
                    found.append(_problem(f"{{{key}: ...}}", error, span, path))
        return data
    if isinstance(data, list):
        for index, item in enumerate(data):
            data[index] = translate(item, nodes, found, (*path, index))
        return data
    return data


def _problem(text: str, error: DslError, span: Span | None, path: tuple[t.Any, ...]
             ) -> tuple[str, str, Span | None, str]:
    where = f" (at character {error.offset + 1})" if error.offset and \
        not text.startswith("{") else ""
    return (BAD_FUNCTION, f"{text}: {error.message}{where}", span, entity_of(path))


#: maps whose keys are names of values (a key ``description`` there is a value)
_VALUE_MAPS = ("properties", "attributes", "inputs", "brooklyn.config")

_SECTIONS = {"node_templates": "node", "relationship_templates": "relationship",
             "groups": "group", "policies": "policy", "outputs": "output",
             "inputs": "input", "workflows": "workflow"}


def entity_of(path: tuple[t.Any, ...]) -> str:
    """The entity a place in a document concerns (``node web``, ``group g``)."""
    if len(path) >= 2 and path[0] == "topology_template" and path[1] in _SECTIONS:
        rest = path[2:]
        if rest and isinstance(rest[0], int) and len(rest) > 1:
            rest = rest[1:]   # the list form of groups and policies
        if rest:
            return f"{_SECTIONS[path[1]]} {rest[0]}"
        return str(path[1])
    if len(path) >= 2 and isinstance(path[0], str) and path[0].endswith("_types"):
        return f"{path[0][:-6].replace('_', ' ')} type {path[1]}"
    return str(path[0]) if path else "service template"
