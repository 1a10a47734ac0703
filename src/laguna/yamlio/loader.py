"""Turn YAML text into Python values that remember where they came from."""

from __future__ import annotations

import datetime
import json
import typing as t

import yaml
from yaml import nodes
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

try:
    from yaml._yaml import CParser as _CParser
    _HAVE_LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _HAVE_LIBYAML = False

from laguna.errors import SourceError
from laguna.source import Span

STR_TAG = "tag:yaml.org,2002:str"
YAQL_TAG = "!yaql"

# An expression hook gets (text, span, forced) for every plain string scalar
# (forced=False) and every `!yaql` scalar (forced=True). It returns the
# expression object, or None to keep the scalar a string (never None when
# forced).
ExpressionHook = t.Callable[[str, Span, bool], t.Any]


class YamlError(SourceError):
    """The text is not valid YAML, or breaks a rule the loader enforces."""

    code = "LAG-E0101"


class YMap(dict):  # type: ignore[type-arg]
    """A mapping with the span of the whole map and of each key; ``number_texts``
    keeps how each plain number (and timestamp) value was written (`1.10` loads as 1.1)."""

    span: Span
    key_spans: dict[t.Any, Span]
    number_texts: dict[t.Any, str]


class YSeq(list):  # type: ignore[type-arg]
    """A sequence with its span."""

    span: Span


class YStr(str):
    """A string scalar with its span."""

    span: Span


def span_of(value: object) -> Span | None:
    """The span a loaded value carries, if any."""
    return getattr(value, "span", None)


def plain(value: t.Any) -> t.Any:
    """A loaded value without its spans: plain dict, list and str all the way
    down, so values compare, hash and serialise like any Python data. Other
    values (numbers, the caller's expression objects) stay as they are."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _mark_span(source: str, mark: t.Any) -> Span:
    return Span(source, mark.line + 1, mark.column + 1) if mark else Span(source, 1, 1)


def _span(source: str, node: nodes.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(source, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


#: how deep collections may nest in one document; code that walks loaded
#: values (the builder here, the class loader, checks) recurses once per level
MAX_DEPTH = 100
#: how many nodes one document may hold, counting the nodes an alias repeats
#: each time it is used (an alias of an alias of ... multiplies: "billion laughs")
MAX_NODES = 250_000


class _Composer(Composer):
    """Builds nodes from parser events, recording whether a scalar's tag was
    written out: `!!str $x` and `$x` resolve to the same tag, and only the
    first is a string for MuranoPL. Refuses documents nested deeper than
    :data:`MAX_DEPTH` or larger than :data:`MAX_NODES` with aliases expanded,
    before building them."""

    peek_event: t.Callable[[], t.Any]   # the parser's, mixed in by each loader
    check_event: t.Callable[..., bool]
    source = "<yaml>"
    _depth = 0
    _nodes = 0
    _sizes: dict[int, int]

    def compose_document(self) -> t.Any:
        self._depth = 0
        self._nodes = 0
        self._sizes = {}
        return super().compose_document()

    def compose_node(self, parent: t.Any, index: t.Any) -> t.Any:
        event = self.peek_event()
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            self._count(self._sizes.get(id(node), 1), event)
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise YamlError(f"collections nest more than {MAX_DEPTH} levels deep",
                            _mark_span(self.source, event.start_mark), code="LAG-E0103")
        before = self._nodes
        self._count(1, event)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if getattr(event, "anchor", None) is not None:
            self._sizes[id(node)] = self._nodes - before
        return node

    def _count(self, nodes: int, event: t.Any) -> None:
        self._nodes += nodes
        if self._nodes > MAX_NODES:
            raise YamlError(f"the document holds more than {MAX_NODES} nodes once its "
                            "aliases are expanded", _mark_span(self.source, event.start_mark),
                            code="LAG-E0104")

    def compose_scalar_node(self, anchor: t.Any) -> nodes.ScalarNode:
        event = self.peek_event()
        node = super().compose_scalar_node(anchor)
        node.explicit_tag = event.tag not in (None, "!")  # type: ignore[attr-defined]
        if node.style == "":       # libyaml's name for the plain style
            node.style = None
        return node


class _PureLoader(_Composer, Reader, Scanner, Parser, SafeConstructor, Resolver):
    """PyYAML's own parser, the one the original engine used."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


if _HAVE_LIBYAML:
    class _FastLoader(_Composer, _CParser, SafeConstructor, Resolver):
        """libyaml scans and parses (most of the time of loading a class file);
        nodes are composed in Python so they keep the tag as written."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _LOADERS: tuple[type, ...] = (_FastLoader, _PureLoader)
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADERS = (_PureLoader,)


class _PureDataLoader(_PureLoader):
    """PyYAML's own parser and constructor, as `yaml.safe_load` builds data."""


if _HAVE_LIBYAML:
    class _FastDataLoader(_FastLoader):
        """libyaml's parser, as `yaml.CSafeLoader` builds data."""

    _DATA_LOADERS: tuple[type, ...] = (_FastDataLoader, _PureDataLoader)
else:  # pragma: no cover - PyYAML built without libyaml
    _DATA_LOADERS = (_PureDataLoader,)


def _as_text(loader: t.Any, node: t.Any) -> str:
    return str(loader.construct_scalar(node))


def load_data(text: str, source: str, dates: bool = True) -> t.Any:
    """The first document of ``text`` as plain data (what `yaml.safe_load`
    gives: no spans, duplicate keys keep the last value), under the bounds of
    class files: :data:`MAX_DEPTH` levels, :data:`MAX_NODES` nodes with
    aliases expanded. For files a package or an operator gives as data
    (Resources, class configurations); ``dates`` false keeps timestamps as
    the strings they are written as. A YamlError names ``source``, the line
    and what is wrong."""
    def read(loader: t.Any) -> t.Any:
        if not dates:
            loader.yaml_constructors = {**loader.yaml_constructors,
                                        "tag:yaml.org,2002:timestamp": _as_text}
        return loader.get_single_data()
    return _parsed(text, source, _DATA_LOADERS, _PureDataLoader, read)


def load_json(text: str, source: str) -> t.Any:
    """``text`` parsed as JSON, refused (a YamlError naming ``source`` and the
    line) when its arrays and objects nest deeper than :data:`MAX_DEPTH`:
    Python's json module recurses once per level and ends in a
    RecursionError past a few thousand."""
    depth = 0
    in_string = escaped = False
    line, line_start = 1, 0
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlError(f"collections nest more than {MAX_DEPTH} levels deep",
                                Span(source, line, index - line_start + 1), code="LAG-E0103")
        elif char in "]}":
            depth -= 1
        elif char == "\n":
            line, line_start = line + 1, index + 1
    return json.loads(text)


def load_all(text: str, source: str, expression: ExpressionHook | None = None) -> list[t.Any]:
    """Load every non-empty document of ``text``; ``source`` names it in spans.

    libyaml parses first. A few constructs PyYAML's own parser accepts, and
    packages written for the original engine use (`[Break:]`), libyaml
    refuses; such text, and broken text, is parsed again by PyYAML's parser,
    whose verdict and messages count.
    """
    def read(loader: t.Any) -> list[t.Any]:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                value = _Builder(source, loader, expression).build(node)
                if value is not None:
                    documents.append(value)
        return documents
    return t.cast(list[t.Any], _parsed(text, source, _LOADERS, _PureLoader, read))


def _parsed(text: str, source: str, loaders: tuple[type, ...], pure: type,
            read: t.Callable[[t.Any], t.Any]) -> t.Any:
    """``read(loader)`` of each loader in turn until one parses ``text``;
    ``pure`` (PyYAML's own parser) decides, and its messages count."""
    for loader_class in loaders:
        loader = loader_class(text)
        loader.source = source
        try:
            return read(loader)
        except yaml.MarkedYAMLError as exc:
            if loader_class is not pure:
                continue
            mark = exc.problem_mark or exc.context_mark
            span = Span(source, mark.line + 1, mark.column + 1) if mark else Span(source, 1, 1)
            problem = exc.problem or exc.context or "invalid YAML"
            raise YamlError(f"invalid YAML: {problem}", span) from exc
        finally:
            loader.dispose()
    raise AssertionError("the pure-Python loader always decides")


class _Builder:
    def __init__(self, source: str, loader: _PureLoader | _FastLoader,
                 expression: ExpressionHook | None) -> None:
        self.source = source
        self.loader = loader
        self.expression = expression
        self.memo: dict[int, t.Any] = {}

    def build(self, node: nodes.Node) -> t.Any:
        known = self.memo.get(id(node))
        if known is not None:
            return known
        if isinstance(node, nodes.MappingNode):
            return self._mapping(node)
        if isinstance(node, nodes.SequenceNode):
            seq = YSeq()
            seq.span = _span(self.source, node)
            self.memo[id(node)] = seq
            seq.extend(self.build(item) for item in node.value)
            return seq
        return self._scalar(t.cast(nodes.ScalarNode, node))

    def _mapping(self, node: nodes.MappingNode) -> YMap:
        self.loader.flatten_mapping(node)
        result = YMap()
        result.span = _span(self.source, node)
        result.key_spans = {}
        result.number_texts = {}
        self.memo[id(node)] = result
        for key_node, value_node in node.value:
            key = self.build(key_node)
            key_span = _span(self.source, key_node)
            try:
                hash(key)
            except TypeError:
                raise YamlError("a mapping key must be a scalar", key_span) from None
            if key in result:
                raise YamlError(f"duplicate key {str(key)!r}", key_span)
            result[key] = self.build(value_node)
            result.key_spans[key] = key_span
            if isinstance(result[key], (int, float, datetime.date)) \
                    and not isinstance(result[key], bool):
                result.number_texts[key] = value_node.value
        return result

    def _scalar(self, node: nodes.ScalarNode) -> t.Any:
        span = _span(self.source, node)
        if node.tag == YAQL_TAG:
            if self.expression is None:
                raise YamlError("!yaql is not allowed here", span)
            return self.expression(node.value, span, True)
        if node.tag == STR_TAG:
            if node.style is None and not getattr(node, "explicit_tag", False) and self.expression:
                expr = self.expression(node.value, span, False)
                if expr is not None:
                    return expr
            text = YStr(node.value)
            text.span = span
            return text
        if node.tag.startswith("!") and node.tag != "!":
            raise YamlError(f"unknown tag {node.tag}", span)
        return self.loader.construct_object(node, deep=True)
