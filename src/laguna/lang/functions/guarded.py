"""yaql's functions that could outgrow the sandbox, under its limits.

yaql's standard library checks the size of a function's result after it is
built, and its regular expressions (Python's ``re``) backtrack without end on
patterns such as ``^(a+)+$``. The functions here take the place of those in
the layer above yaql's root context (:func:`laguna.lang.functions.register`),
with the same names, parameters and results:

- regular expressions (``regex()``, ``matches``, ``=~``, ``!~``, ``search``,
  ``searchAll``, ``split``, ``replace``, ``replaceBy``, ``escapeRegex``,
  ``isRegex``) run on the ``regex`` library with a timeout: the time left
  before the call's deadline;
- ``pow``, ``shiftBitsLeft``, ``concat``, ``join``, ``replace`` (of strings),
  ``str`` (of collections) and ``*`` (a list repeated) refuse, before computing it, a result larger
  than the limits allow (:mod:`laguna.lang.limits`);
- yaql's query and collection functions (``len``, ``aggregate``, ``sum``,
  ``distinct``, ``orderBy``, ``dict``...) read a lazy argument within the
  iterators limit and look at the clock every few thousand of its items, and
  count a collection argument's items as steps (:func:`bound_loops`, applied
  to the root contexts in place).
"""

from __future__ import annotations

import functools
import inspect
import re
import typing as t

import regex as regex_lib  # type: ignore[import-untyped]
from yaql.language import specs, utils, yaqltypes
from yaql.standard_library import collections as yaql_collections
from yaql.standard_library import math as yaql_math
from yaql.standard_library import queries as yaql_queries
from yaql.standard_library import regex as yaql_regex
from yaql.standard_library import strings as yaql_strings

from laguna.lang import limits
from laguna.yaql.engine import CONVENTION

# -- regular expressions ---------------------------------------------------------------
Pattern = type(regex_lib.compile("."))

# a call without a deadline (host code outside Executor.run) still ends
_NO_DEADLINE_SECONDS = 10.0


def _timeout() -> float:
    remaining = limits.remaining_seconds()
    if remaining is None:
        return min(limits.active().execution_seconds, _NO_DEADLINE_SECONDS)
    return max(remaining, 0.001)


def _timed(what: str, fn: t.Callable[..., t.Any], *args: t.Any, **kwargs: t.Any) -> t.Any:
    try:
        return fn(*args, timeout=_timeout(), **kwargs)
    except TimeoutError:
        raise limits.exceeded(limits.active(), "execution_seconds",
                              f"a regular expression ({what})") from None


def _compile(pattern: str, flags: int = 0) -> t.Any:
    active = limits.active()
    if len(pattern) > active.regex_length:
        raise limits.exceeded(active, "regex_length", f"a pattern of {len(pattern)} characters")
    size = expanded_size(pattern)
    if size > active.regex_size:
        raise limits.exceeded(active, "regex_size",
                              f"a pattern of {size} characters once its repetitions are "
                              "written out")
    return regex_lib.compile(pattern, flags | regex_lib.UNICODE)


# a counted repetition: {m}, {m,}, {,n}, {m,n}
_COUNTED = re.compile(r"\{(\d*)(?:,(\d*))?\}")
# more digits than this are a count above any limit (and int() refuses
# very long digit strings)
_COUNT_DIGITS = 12


def expanded_size(pattern: str) -> int:
    """How many items ``pattern`` holds with its counted repetitions written
    out: `a{3}` 3, `(ab){3}` 6, `((a{1000}){1000}){1000}` 10**9. The regex
    library compiles a counted repetition into that many copies, so this is
    what its compiling costs (time and memory); it is computed from the
    text, before the library sees it. Unbounded repetitions (`*`, `+`,
    `{m,}` beyond m) cost nothing more to compile and count once."""
    totals = [0]      # the size of each group open at this point, outermost first
    last = 0          # the size of the item a quantifier would repeat
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        if char == "\\":
            index += 2
            last = 1
        elif char == "[":
            index = _class_end(pattern, index)
            last = 1
        elif char == "(":
            totals.append(0)
            index += 1
            last = 0
            continue
        elif char == ")" and len(totals) > 1:
            last = totals.pop()
            totals[-1] += last
            index += 1
            continue
        elif char == "{":
            counted = _COUNTED.match(pattern, index)
            if counted is not None and (counted.group(1) or counted.group(2)):
                digits = [d for d in counted.groups() if d]
                count = max(10 ** _COUNT_DIGITS if len(d) > _COUNT_DIGITS else int(d)
                            for d in digits)
                totals[-1] += last * (count - 1) if count else -last
                last *= count
                index = counted.end()
                continue
            index += 1
            last = 1
        else:
            index += 1
            last = 1
        totals[-1] += 1
    return sum(totals)


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class opening at ``start`` (`[...]`,
    a `]` first in it taken literally, escapes skipped)."""
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):
        index += 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
        elif pattern[index] == "]":
            return index + 1
        else:
            index += 1
    return index


@specs.parameter("pattern", yaqltypes.String())
def regex(pattern: str, ignore_case: bool = False, multi_line: bool = False,
          dot_all: bool = False) -> t.Any:
    """:yaql:regex

    A regular expression object with the given flags (yaql's ``regex()``).

    :signature: regex(pattern, ignoreCase => false, multiLine => false, dotAll => false)
    """
    flags = 0
    if ignore_case:
        flags |= regex_lib.IGNORECASE
    if multi_line:
        flags |= regex_lib.MULTILINE
    if dot_all:
        flags |= regex_lib.DOTALL
    return _compile(pattern, flags)


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.method
def matches(regexp: t.Any, string: str) -> bool:
    """:yaql:matches

    Whether the regular expression matches a part of the string.

    :signature: regexp.matches(string)
    """
    return _timed("matches", regexp.search, string) is not None


@specs.parameter("string", yaqltypes.String())
@specs.parameter("regexp", yaqltypes.String())
@specs.method
@specs.name("matches")
def matches_string(string: str, regexp: str) -> bool:
    """:yaql:matches

    Whether the pattern matches a part of the string.

    :signature: string.matches(regexp)
    """
    return _timed("matches", _compile(regexp).search, string) is not None


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.name("#operator_=~")
def matches_operator_regex(string: str, regexp: t.Any) -> bool:
    """:yaql:operator =~

    Whether the regular expression matches a part of the string.

    :signature: string =~ regexp
    """
    return _timed("=~", regexp.search, string) is not None


@specs.parameter("pattern", yaqltypes.String())
@specs.parameter("string", yaqltypes.String())
@specs.name("#operator_=~")
def matches_operator_string(string: str, pattern: str) -> bool:
    """:yaql:operator =~

    Whether the pattern matches a part of the string.

    :signature: string =~ pattern
    """
    return _timed("=~", _compile(pattern).search, string) is not None


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.name("#operator_!~")
def not_matches_operator_regex(string: str, regexp: t.Any) -> bool:
    """:yaql:operator !~

    Whether the regular expression matches no part of the string.

    :signature: string !~ regexp
    """
    return _timed("!~", regexp.search, string) is None


@specs.parameter("pattern", yaqltypes.String())
@specs.parameter("string", yaqltypes.String())
@specs.name("#operator_!~")
def not_matches_operator_string(string: str, pattern: str) -> bool:
    """:yaql:operator !~

    Whether the pattern matches no part of the string.

    :signature: string !~ pattern
    """
    return _timed("!~", _compile(pattern).search, string) is None


def _publish_match(context: t.Any, match: t.Any) -> None:
    # as yaql does: $1 the whole match, $2... the groups
    context["$1"] = {"value": match.group(), "start": match.start(0), "end": match.end(0)}
    for i, group in enumerate(match.groups(), 1):
        context["$" + str(i + 1)] = {"value": group, "start": match.start(i),
                                     "end": match.end(i)}


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("selector", yaqltypes.Lambda(with_context=True))
@specs.method
def search(context: t.Any, regexp: t.Any, string: str, selector: t.Any = None) -> t.Any:
    """:yaql:search

    The first part of the string the regular expression matches, or the
    selector applied to {start, end, value} of it; null when none.

    :signature: regexp.search(string, selector => null)
    """
    res = _timed("search", regexp.search, string)
    if res is None:
        return None
    if selector is None:
        return res.group()
    new_context = context.create_child_context()
    _publish_match(new_context, res)
    return selector(new_context)


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("selector", yaqltypes.Lambda(with_context=True))
@specs.method
def search_all(context: t.Any, regexp: t.Any, string: str, selector: t.Any = None) -> t.Any:
    """:yaql:searchAll

    Every part of the string the regular expression matches, or the selector
    applied to {start, end, value} of each.

    :signature: regexp.searchAll(string, selector => null)
    """
    found = _timed("searchAll", regexp.finditer, string)
    results = []
    active = limits.active()
    try:
        for index, match in enumerate(found):
            if index >= active.iterators:
                raise limits.exceeded(active, "iterators",
                                      "the matches of a regular expression")
            if selector is None:
                results.append(match.group())
            else:
                new_context = context.create_child_context()
                _publish_match(new_context, match)
                results.append(selector(new_context))
    except TimeoutError:
        raise limits.exceeded(active, "execution_seconds",
                              "a regular expression (searchAll)") from None
    return results


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("max_split", int)
@specs.method
def split(regexp: t.Any, string: str, max_split: int = 0) -> t.Any:
    """:yaql:split

    The string split at the matches of the regular expression.

    :signature: regexp.split(string, maxSplit => 0)
    """
    return _timed("split", regexp.split, string, max_split)


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("max_split", int)
@specs.method
@specs.name("split")
def split_string(string: str, regexp: t.Any, max_split: int = 0) -> t.Any:
    """:yaql:split

    The string split at the matches of the regular expression.

    :signature: string.split(regexp, maxSplit => 0)
    """
    return split(regexp, string, max_split)


def _bounded_sub(what: str, regexp: t.Any, replacement: t.Callable[[t.Any], str],
                 string: str, count: int) -> str:
    """``regexp.sub`` with a replacement function, refusing to grow the
    string past the memory quota while it is built."""
    active = limits.active()
    size = [len(string)]

    def replace(match: t.Any) -> str:
        text = replacement(match)
        size[0] += len(text) - (match.end() - match.start())
        limits.check_string(active, size[0])
        return text
    return t.cast(str, _timed(what, regexp.sub, replace, string, count))


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("repl", yaqltypes.String())
@specs.parameter("count", int)
@specs.method
def replace(regexp: t.Any, string: str, repl: str, count: int = 0) -> str:
    """:yaql:replace

    The string with the (first count) matches of the regular expression
    replaced by repl (which may refer to groups: `\\1`).

    :signature: regexp.replace(string, repl, count => 0)
    """
    return _bounded_sub("replace", regexp, lambda match: t.cast(str, match.expand(repl)),
                        string, count)


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("repl", yaqltypes.String())
@specs.parameter("count", int)
@specs.method
@specs.name("replace")
def replace_string(string: str, regexp: t.Any, repl: str, count: int = 0) -> str:
    """:yaql:replace

    The string with the (first count) matches of the regular expression
    replaced by repl.

    :signature: string.replace(regexp, repl, count => 0)
    """
    return t.cast(str, replace(regexp, string, repl, count))


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("repl", yaqltypes.Lambda(with_context=True))
@specs.parameter("count", int)
@specs.method
def replace_by(context: t.Any, regexp: t.Any, string: str, repl: t.Any,
               count: int = 0) -> str:
    """:yaql:replaceBy

    The string with the (first count) matches of the regular expression
    replaced by what repl gives for {start, end, value} of each.

    :signature: regexp.replaceBy(string, repl, count => 0)
    """
    def replacement(match: t.Any) -> str:
        new_context = context.create_child_context()
        # yaql publishes the match in the outer context (its own quirk)
        _publish_match(context, match)
        return t.cast(str, repl(new_context))
    return _bounded_sub("replaceBy", regexp, replacement, string, count)


@specs.parameter("regexp", Pattern)
@specs.parameter("string", yaqltypes.String())
@specs.parameter("repl", yaqltypes.Lambda(with_context=True))
@specs.parameter("count", int)
@specs.method
@specs.name("replaceBy")
def replace_by_string(context: t.Any, string: str, regexp: t.Any, repl: t.Any,
                      count: int = 0) -> str:
    """:yaql:replaceBy

    The string with the (first count) matches of the regular expression
    replaced by what repl gives for each.

    :signature: string.replaceBy(regexp, repl, count => 0)
    """
    return t.cast(str, replace_by(context, regexp, string, repl, count))


@specs.parameter("string", yaqltypes.String())
def escape_regex(string: str) -> str:
    """:yaql:escapeRegex

    The string with every character that is special in a pattern escaped.

    :signature: escapeRegex(string)
    """
    return re.escape(string)


def is_regex(value: t.Any) -> bool:
    """:yaql:isRegex

    Whether the value is a regular expression object.

    :signature: isRegex(value)
    """
    return isinstance(value, Pattern)


REGEX_FUNCTIONS = (regex, matches, matches_string, matches_operator_regex,
                   matches_operator_string, not_matches_operator_regex,
                   not_matches_operator_string, search, search_all, split, split_string,
                   replace, replace_string, replace_by, replace_by_string, escape_regex,
                   is_regex)


# -- yaql's own functions, checked first ---------------------------------------------------
def _pow(args: dict[str, t.Any]) -> None:
    a, b, c = args["a"], args["b"], args.get("c")
    if type(a) is int and type(b) is int and c is None and b > 0 and a not in (0, 1, -1):
        limits.check_bits(limits.active(), (a.bit_length() - 1) * b + 1)


def _shift_left(args: dict[str, t.Any]) -> None:
    value, bits = args["value"], args["bits_number"]
    if value and bits > 0:
        limits.check_bits(limits.active(), value.bit_length() + bits)


def _concat(args: dict[str, t.Any]) -> None:
    limits.check_string(limits.active(), sum(len(a) for a in args["args"]))


def _join(args: dict[str, t.Any]) -> None:
    # the items are counted as they will be written, one at a time: a lazy
    # sequence of large strings stops at the quota, before the join
    active = limits.active()
    separator = args["separator"]
    items: list[t.Any] = []
    size = 0
    for item in limits.ticking(active, args["sequence"]):
        if items:
            size += len(separator)
        if type(item) is str:
            size += len(item)
        else:
            limits.check_text(active, item)
            size += 8
        limits.check_string(active, size)
        items.append(item)
    args["sequence"] = items


def _replace(args: dict[str, t.Any]) -> None:
    string, old, new, count = args["string"], args["old"], args["new"], args.get("count", -1)
    if len(new) <= len(old):
        return
    found = string.count(old) if old else len(string) + 1
    if count is not None and count >= 0:
        found = min(found, count)
    limits.check_string(limits.active(), len(string) + found * (len(new) - len(old)))


def _repeat(args: dict[str, t.Any]) -> None:
    # `[1] * n` and `n * [1]`: yaql's own check counts the repeated sequence
    # as a list's header less than it holds, so a large n passed it
    left, right = args["left"], args["right"]
    sequence, times = (left, right) if isinstance(right, int) else (right, left)
    limits.check_items(limits.active(), len(sequence) * max(times, 0))


def _str(args: dict[str, t.Any]) -> None:
    limits.check_text(limits.active(), args["value"])


def _guarded(original: t.Callable[..., t.Any],
             check: t.Callable[[dict[str, t.Any]], None]) -> t.Any:
    """yaql's definition of ``original`` whose body first calls ``check``
    with the arguments by name (``check`` may replace an argument)."""
    definition = specs.get_function_definition(original, convention=CONVENTION)
    signature = inspect.signature(original)
    payload = definition.payload

    def guarded(*args: t.Any, **kwargs: t.Any) -> t.Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        check(arguments)
        bound.arguments.update(arguments)
        return payload(*bound.args, **bound.kwargs)
    definition.payload = guarded
    return definition


GUARDED = ((yaql_math.pow_, _pow), (yaql_math.shift_bits_left, _shift_left),
           (yaql_strings.concat, _concat), (yaql_strings.join, _join),
           (yaql_strings.join_, _join), (yaql_strings.replace, _replace),
           (yaql_strings.str_, _str), (yaql_collections.list_by_int, _repeat),
           (yaql_collections.int_by_list, _repeat))


#: yaql's own functions that those here take the place of
REPLACED = frozenset({*(original for original, _ in GUARDED),
                      *(fn for name, fn in vars(yaql_regex).items()
                        if callable(fn) and hasattr(fn, "__yaql_function__"))})


# -- yaql's loops, under the iterators limit and the deadline -------------------------------
# what a function may be given that it reads whole at C speed: counted as steps
_COLLECTIONS = (tuple, list, dict, utils.FrozenDict, frozenset, set)


def _bounded_loop(payload: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    """``payload`` (a yaql function's body) given each lazy argument as a
    :func:`limits.ticking` iterator (the iterators limit, the clock every few
    thousand items: yaql's own `len` of an iterator counts without end), and
    spending a step per item of each collection argument (a dict copied by
    `set` at every step of an `aggregate`)."""
    @functools.wraps(payload)
    def bounded(*args: t.Any, **kwargs: t.Any) -> t.Any:
        active = limits.active()
        steps = 1
        values = list(args)
        for index, value in enumerate(args):
            kind = type(value)
            if kind in _COLLECTIONS:
                steps += len(value)
            elif hasattr(kind, "__next__") and not limits.is_ticking(value):
                values[index] = limits.ticking(active, value)
        for name, value in kwargs.items():
            kind = type(value)
            if kind in _COLLECTIONS:
                steps += len(value)
            elif hasattr(kind, "__next__") and not limits.is_ticking(value):
                kwargs[name] = limits.ticking(active, value)
        limits.spend(steps)
        return payload(*values, **kwargs)
    bounded.__laguna_bounded__ = True  # type: ignore[attr-defined]
    return bounded


#: the names of yaql's functions that loop over their arguments
LOOPING_NAMES = frozenset(
    specs.get_function_definition(fn, convention=CONVENTION).name
    for module in (yaql_queries, yaql_collections) for fn in vars(module).values()
    if callable(fn) and hasattr(fn, "__yaql_function__"))


def bound_loops(context: t.Any) -> None:
    """Make every definition of :data:`LOOPING_NAMES` that ``context`` (a
    root context of its own: definitions are copies per context) reaches
    read its arguments under the limits (:func:`_bounded_loop`), in place,
    so that overload resolution is what yaql's would be."""
    for name in sorted(LOOPING_NAMES):
        for level in context.collect_functions(name):
            for definition in level:
                if not getattr(definition.payload, "__laguna_bounded__", False):
                    definition.payload = _bounded_loop(definition.payload)


def definitions() -> list[t.Any]:
    """The yaql function definitions of this module, named as MuranoPL calls them."""
    return ([specs.get_function_definition(fn, convention=CONVENTION)
             for fn in REGEX_FUNCTIONS]
            + [_guarded(original, check) for original, check in GUARDED])


def register(context: t.Any, skip: t.Collection[str] = ()) -> None:
    """Register into ``context``, but for the names in ``skip`` (for legacy
    packages, whose extension methods of these names are made from
    :func:`definitions` by :mod:`.legacy`)."""
    for definition in definitions():
        if definition.name not in skip:
            context.register_function(definition)


__all__ = ["LOOPING_NAMES", "REPLACED", "bound_loops", "definitions", "expanded_size",
           "register"]
