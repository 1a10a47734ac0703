"""MuranoPL checks of a package, for ``laguna package check``.

:class:`MuranoPlChecker` is a :data:`laguna.packages.check.Checker`: given a
package it builds every class with the engine (so every key, contract and
method body is checked as it would be at run time, parents and imports
resolved through the package's requirements), then looks at what only runs
later: plain scalars that look like YAQL (they start with ``$``) but do not
parse, and class names written in expressions (``ns:Name``, ``:Name``, the
first argument of ``class()``, ``template()`` and ``new()``) that do not
resolve, and the meta attached to the class and its members (meta classes
that exist, are `Usage: Meta`, apply to the entity, and Cardinality One
classes attached once), as reading that meta would check it. It reports every
problem it finds instead of stopping at the first.

The registry it resolves against comes from a factory, so the caller decides
where required packages come from (``-l`` folders, the catalog store).
"""

from __future__ import annotations

import re
import typing as t

from yaql.language import exceptions as yaql_exceptions
from yaql.language import expressions as yaql_expressions

from laguna.errors import LagunaError, SourceError
from laguna.lang import errors, functions, meta
from laguna.lang.dispatch import CONTRACT_METHODS
from laguna.lang.classes import ClassRegistry, PackageClasses, SourcePackageClasses
from laguna.lang.loader import ClassBuilder
from laguna.lang.types import NamespaceResolver, RuntimePackage
from laguna.packages.errors import CLASS_FILE_INVALID
from laguna.packages.package import Package
from laguna.source import Diagnostic, Span
from laguna.yamlio import YamlError, plain, span_of
from laguna.yaql import engine
from laguna.yaql.expressions import YaqlExpression

INVALID_EXPRESSION = "LAG-E0223"
DEPRECATED_ACTION_USAGE = "LAG-W0235"
CATCH_NOT_A_NAME = "LAG-E0244"
UNKNOWN_CONTRACT_FUNCTION = "LAG-E0245"
UNKNOWN_CLASS = "LAG-E0705"
# What `Catch: With:` and `As:` hold: an exception name (`ns:Name`, a dotted
# Python name) and a variable name (`e` or `$e`).
_EXCEPTION_NAME = re.compile(r"(?:[A-Za-z_]\w*:)?[A-Za-z_][\w.]*")
_VARIABLE_NAME = re.compile(r"\$?[A-Za-z_]\w*")
# The keys of a class document that hold contracts, defaults and code.
_CODE_KEYS = ("Properties", "Methods", "Workflow", "Meta")
# Keys whose values name exceptions, not classes (`Catch: With: py:ValueError`).
_EXCEPTION_NAME_KEYS = frozenset({"With", "Throw"})
# Functions whose first argument, when written as a constant, names a class.
_CLASS_ARGUMENT_FUNCTIONS = frozenset({"class", "template", "new"})


class MuranoPlChecker:
    """Checks every class of a package with the engine (see the module docstring)."""

    def __init__(self, registry_factory: t.Callable[[], ClassRegistry]) -> None:
        self.registry_factory = registry_factory
        self._function_layers: dict[bool, t.Any] = {}

    def __call__(self, package: Package) -> t.Iterator[Diagnostic]:
        registry = self.registry_factory()
        holder = registry.add(PackageClasses.from_package(package))
        files = set(package.files())
        seen: set[tuple[str, int, int, str, str]] = set()
        for name in package.class_names():
            for diagnostic in self._check_class(registry, holder, name, files):
                key = (*diagnostic.sort_key(), diagnostic.message)
                if key not in seen:
                    seen.add(key)
                    yield diagnostic

    def _check_class(self, registry: ClassRegistry, holder: PackageClasses, name: str,
                     files: set[str]) -> t.Iterator[Diagnostic]:
        start = Span(t.cast(SourcePackageClasses, holder).source.class_path(name), 1, 1)
        if start.source not in files:
            return  # the built-in class file check reports the missing file
        try:
            doc = holder.document(name)
        except YamlError:
            return  # the built-in class file check reports broken YAML
        except SourceError as exc:
            if exc.code != CLASS_FILE_INVALID:   # else reported by the built-in check
                yield _located(exc.span, exc.code, exc.message, start, files)
            return
        try:
            cls = registry.class_of(holder, name)
        except meta.InvalidClassMeta as exc:
            # every meta problem of the class, not only the one that stopped it
            for found in exc.every():
                yield _located(found.span, found.code, found.message, start, files)
        except SourceError as exc:
            yield _located(exc.span, exc.code, exc.message, start, files)
            if isinstance(doc, dict):   # the others, where building stopped at the first
                builder = ClassBuilder(holder.package,
                                       lambda n: registry.find(n, holder.package),
                                       registry.functions)
                for found in builder.problems(doc, name):
                    yield _located(found.span, found.code, found.message, start, files)
        except LagunaError as exc:
            yield Diagnostic(start, exc.code, f"class {name}: {exc}")
        else:
            for span, problem in meta.class_problems(cls, registry):
                text = getattr(problem, "message", None) or str(problem)
                yield _located(span, problem.code, text, start, files)
        # expressions are checked even when the class does not load; Extends and
        # Import name classes, which building the class has checked
        code = [doc.get(key) for key in _CODE_KEYS if isinstance(doc, dict)]
        yield from _scalars(code, holder.package.legacy)
        if holder.package.format_version > (1, 3) and isinstance(doc, dict):
            yield from _deprecated_actions(doc)
        resolver = NamespaceResolver(_namespaces(doc))
        yield from _class_references(code, resolver, holder.package, registry, start)
        if isinstance(doc, dict):
            yield from self._contract_functions(doc, registry, holder.package.legacy)
            yield from _catches(doc)

    def _known_function(self, name: str, registry: ClassRegistry, legacy: bool) -> bool:
        """Whether code may call ``name`` as a method: a contract method, a
        built-in, or a yaql function of the engine's contexts."""
        table = registry.functions
        if name in CONTRACT_METHODS or name in table.methods or name in table.functions:
            return True
        layer = self._function_layers.get(legacy)
        if layer is None:
            layer = functions.register(table.root_context(legacy), legacy)
            self._function_layers[legacy] = layer
        context = layer
        while context is not None:
            if context.get_functions(name)[0]:
                return True
            context = context.parent
        return False

    def _contract_functions(self, doc: dict[str, t.Any], registry: ClassRegistry,
                            legacy: bool) -> t.Iterator[Diagnostic]:
        """Contract methods (``$.name()`` applied to the value) that do not exist;
        only calling the contract would find them otherwise."""
        for contract in _contracts(doc):
            for value in _walk(contract):
                if not isinstance(value, YaqlExpression) or value.span is None:
                    continue
                for name in _applied_methods(value.parsed):
                    if not self._known_function(name, registry, legacy):
                        yield Diagnostic(value.span, UNKNOWN_CONTRACT_FUNCTION,
                                         f"unknown contract function {name}() in "
                                         f"{value.text!r}; contracts use "
                                         f"{', '.join(sorted(CONTRACT_METHODS))}")


def _contracts(doc: dict[str, t.Any]) -> t.Iterator[t.Any]:
    """The `Contract` values of a class's properties and of its methods' arguments."""
    properties = doc.get("Properties")
    if isinstance(properties, dict):
        for decl in properties.values():
            if isinstance(decl, dict) and "Contract" in decl:
                yield decl["Contract"]
    methods = doc.get("Methods") or doc.get("Workflow")
    if not isinstance(methods, dict):
        return
    for decl in methods.values():
        arguments = decl.get("Arguments") if isinstance(decl, dict) else None
        records = ([{k: v} for k, v in arguments.items()] if isinstance(arguments, dict)
                   else arguments if isinstance(arguments, list) else [])
        for record in records:
            for argument in record.values() if isinstance(record, dict) else ():
                if isinstance(argument, dict) and "Contract" in argument:
                    yield argument["Contract"]


def _applied_methods(parsed: t.Any) -> t.Iterator[str]:
    """The methods a contract applies to its value: ``$.a().b()`` gives b, a
    (the chain down to ``$``; calls inside arguments, e.g. a check()'s
    predicate, are ordinary code)."""
    node = parsed.args[0] if isinstance(parsed, yaql_expressions.Statement) else parsed
    while (isinstance(node, yaql_expressions.BinaryOperator) and node.name == "#operator_."
           and isinstance(node.args[1], yaql_expressions.Function)):
        call = node.args[1]
        if not isinstance(call, (yaql_expressions.BinaryOperator,
                                 yaql_expressions.UnaryOperator)):
            yield call.name
        node = node.args[0]


def _catches(doc: dict[str, t.Any]) -> t.Iterator[Diagnostic]:
    """`Catch` entries whose `With` is not exception names or whose `As` is not
    a variable name (they would fail only when an exception is caught)."""
    methods = doc.get("Methods") or doc.get("Workflow")
    if not isinstance(methods, dict):
        return
    for value in _walk([d.get("Body") for d in methods.values() if isinstance(d, dict)]):
        if not isinstance(value, dict) or "Try" not in value:
            continue
        catches = value.get("Catch")
        for entry in catches if isinstance(catches, list) else [catches]:
            if not isinstance(entry, dict):
                continue
            where = getattr(entry, "key_spans", {})
            names = entry.get("With")
            for name in names if isinstance(names, list) else [] if names is None else [names]:
                text = _text_of(name)
                if text is None or not _EXCEPTION_NAME.fullmatch(text):
                    span = span_of(name) or where.get("With") or span_of(entry)
                    if span is not None:
                        yield Diagnostic(span, CATCH_NOT_A_NAME,
                                         f"Catch With: {_shown(name)} is not an exception "
                                         "name; expected a name such as ns:Name or "
                                         "a list of names")
            variable = entry.get("As")
            text = _text_of(variable)
            if variable is not None and (text is None or not _VARIABLE_NAME.fullmatch(text)):
                span = span_of(variable) or where.get("As") or span_of(entry)
                if span is not None:
                    yield Diagnostic(span, CATCH_NOT_A_NAME,
                                     f"Catch As: {_shown(variable)} is not a variable name; "
                                     "expected a name such as e")


def _text_of(value: t.Any) -> str | None:
    """What a scalar says, written plain or read as YAQL (`py:Name`, `$e`)."""
    if isinstance(value, YaqlExpression):
        return value.text
    return str(value) if isinstance(value, str) else None


def _shown(value: t.Any) -> str:
    text = _text_of(value)
    return repr(text) if text is not None else repr(plain(value))


def _deprecated_actions(doc: dict[str, t.Any]) -> t.Iterator[Diagnostic]:
    """`Usage: Action` still works in Format 1.4, but `Scope: Public` replaces it."""
    methods = doc.get("Methods") or doc.get("Workflow")
    if not isinstance(methods, dict):
        return
    for name, decl in methods.items():
        if isinstance(decl, dict) and str(decl.get("Usage")) == "Action":
            span = getattr(decl, "key_spans", {}).get("Usage") or span_of(decl)
            if span is not None:
                yield Diagnostic(span, DEPRECATED_ACTION_USAGE,
                                 f"method {name}: Usage: Action is deprecated since "
                                 "Format 1.4; use Scope: Public", "warning")


def _located(span: Span | None, code: str, message: str, fallback: Span,
             files: set[str]) -> Diagnostic:
    """A diagnostic at ``span``, or at ``fallback`` when the span lies in another
    package (an error in a required package's class)."""
    if span is not None and span.source in files:
        return Diagnostic(span, code, message)
    where = f" (at {span})" if span is not None else ""
    return Diagnostic(fallback, code, f"{message}{where}")


def _walk(value: t.Any, skip: frozenset[str] = frozenset()) -> t.Iterator[t.Any]:
    """Every key and value under ``value``; values of keys in ``skip`` left out."""
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(key, skip)
            if str(key) not in skip:
                yield from _walk(item, skip)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, skip)


def _scalars(doc: t.Any, legacy: bool) -> t.Iterator[Diagnostic]:
    """Plain strings meant as YAQL (they start with ``$``) that do not parse."""
    for value in _walk(doc):
        if not isinstance(value, str) or isinstance(value, YaqlExpression):
            continue
        span = span_of(value)
        text = str(value)
        if span is None or not text.lstrip().startswith("$"):
            continue
        try:
            engine.parse(text, legacy)
        except yaql_exceptions.YaqlException as exc:
            position = getattr(exc, "position", None)
            where = span.shifted(position) if isinstance(position, int) else span
            problem = getattr(exc, "message", None) or str(exc)
            yield Diagnostic(where, INVALID_EXPRESSION,
                             f"invalid YAQL expression {text!r}: {problem}")


def _nodes(node: t.Any) -> t.Iterator[t.Any]:
    yield node
    if isinstance(node, yaql_expressions.MappingRuleExpression):
        yield from _nodes(node.source)
        yield from _nodes(node.destination)
    for child in getattr(node, "args", None) or ():
        yield from _nodes(child)


def _written_names(parsed: t.Any) -> t.Iterator[str]:
    """Class names an expression writes literally."""
    for node in _nodes(parsed):
        if not isinstance(node, yaql_expressions.Function):
            continue
        args = node.args
        if node.name == "#operator_:" and len(args) == 2 and all(
                isinstance(a, yaql_expressions.KeywordConstant) for a in args):
            yield f"{args[0].value}:{args[1].value}"
        elif node.name == "#unary_operator_:" and len(args) == 1 and isinstance(
                args[0], yaql_expressions.KeywordConstant):
            yield f":{args[0].value}"
        elif node.name in _CLASS_ARGUMENT_FUNCTIONS and args and isinstance(
                args[0], (yaql_expressions.Constant, yaql_expressions.KeywordConstant)
        ) and isinstance(args[0].value, str):
            yield args[0].value


def _dotted(node: t.Any) -> str | None:
    """``a.b.C`` written without quotes: the name it looks like, else None."""
    if isinstance(node, yaql_expressions.KeywordConstant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, yaql_expressions.Function) and node.name == "#operator_." \
            and len(node.args) == 2:
        left, right = _dotted(node.args[0]), _dotted(node.args[1])
        if left is not None and right is not None:
            return f"{left}.{right}"
    return None


def _unquoted_dotted_names(parsed: t.Any) -> t.Iterator[str]:
    """Class arguments written ``t.Missing``: yaql reads that as the property
    Missing of the string 't', which fails when the code runs."""
    for node in _nodes(parsed):
        if isinstance(node, yaql_expressions.Function) and \
                node.name in _CLASS_ARGUMENT_FUNCTIONS and node.args:
            first = node.args[0]
            if isinstance(first, yaql_expressions.Function) and first.name == "#operator_.":
                name = _dotted(first)
                if name is not None:
                    yield name


def _namespaces(doc: t.Any) -> dict[str, str]:
    raw = doc.get("Namespaces") if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def _class_references(doc: t.Any, resolver: NamespaceResolver, package: RuntimePackage,
                      registry: ClassRegistry, fallback: Span) -> t.Iterator[Diagnostic]:
    for value in _walk(doc, _EXCEPTION_NAME_KEYS):
        if not isinstance(value, YaqlExpression):
            continue
        for dotted in _unquoted_dotted_names(value.parsed):
            yield Diagnostic(value.span or fallback, UNKNOWN_CLASS,
                             f"{dotted} in {value.text!r} is not a class name: yaql reads it "
                             f"as the property {dotted.rsplit('.', 1)[1]} of "
                             f"{dotted.rsplit('.', 1)[0]!r}; write '{dotted}' in quotes "
                             "or ns:Name")
        for written in _written_names(value.parsed):
            try:
                full = resolver.resolve(written)
                registry.find(full, package)
            except errors.NoClassFound as exc:
                yield Diagnostic(value.span or fallback, UNKNOWN_CLASS,
                                 f"class {written} in {value.text!r} does not resolve: {exc}")
            except errors.InvalidTypeName as exc:
                yield Diagnostic(value.span or fallback, exc.code, f"{exc} in {value.text!r}")
            except SourceError as exc:
                # the name resolves; the class (often of another package) fails to
                # build, which only matters when this code runs
                yield Diagnostic(value.span or fallback, exc.code,
                                 f"class {written} in {value.text!r} does not load: "
                                 f"{exc.message}", "warning")
