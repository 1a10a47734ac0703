"""Data functions the original engine added to YAQL for every package.

``base64encode``, ``base64decode``, ``bind``, ``patch``, ``pselect`` and
``randomName``. They are pure functions of their arguments (``randomName``
reads the clock and a random source, nothing else); ``pselect`` runs its
selector in a bounded number of threads.
"""

from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import contextvars
import itertools
import random
import re
import string
import threading
import time
import typing as t
from collections import abc

import jsonpatch
import jsonpointer
from yaql.language import specs, utils, yaqltypes

from laguna.errors import LagunaError
from laguna.lang.dispatch import freeze, thaw

#: at most this many threads evaluate one ``pselect`` (the original engine
#: allowed 1000 green threads; real threads cost more)
PSELECT_THREADS = 8

_PLACEHOLDER = re.compile(r"{(\w+?)}")
_BASE36 = string.digits + string.ascii_lowercase
_name_counter = itertools.count(1)
_name_lock = threading.Lock()


@specs.parameter("value", yaqltypes.String())
@specs.extension_method
def base64encode(value: str) -> str:
    """:yaql:base64encode

    The Base64 encoding of the UTF-8 bytes of a string.

    :signature: base64encode(value) or value.base64encode()

    .. code::

        yaql> base64encode('TEST')
        "VEVTVA=="
    """
    return base64.b64encode(value.encode("utf-8")).decode("ascii")


@specs.parameter("value", yaqltypes.String())
@specs.extension_method
def base64decode(value: str) -> str:
    """:yaql:base64decode

    The string whose UTF-8 bytes a Base64 text encodes.

    :signature: base64decode(value) or value.base64decode()
    """
    return base64.b64decode(value.encode("ascii")).decode("utf-8")


def _macro(text: str, mappings: abc.Mapping[t.Any, t.Any]) -> t.Any:
    """The value for a ``$...`` string: placeholders ``{name}`` filled in with
    the mapping's values as text, or else the value the whole name maps to."""
    replaced = False

    def fill(match: re.Match[str]) -> str:
        nonlocal replaced
        replaced = True
        return str(mappings.get(match.group(1)))

    result = _PLACEHOLDER.sub(fill, text)
    return result if replaced else mappings[text]


def _bind(obj: t.Any, mappings: abc.Mapping[t.Any, t.Any]) -> t.Any:
    if isinstance(obj, str):
        if obj.startswith("$"):
            value = _macro(obj[1:], mappings)
            if value is not None:
                return value
        return obj
    if utils.is_sequence(obj):
        return [_bind(item, mappings) for item in obj]
    if isinstance(obj, abc.Mapping):
        return {_bind(key, mappings): _bind(value, mappings) for key, value in obj.items()}
    return obj


@specs.parameter("mappings", abc.Mapping)
@specs.extension_method
def bind(obj: t.Any, mappings: abc.Mapping[t.Any, t.Any]) -> t.Any:
    """:yaql:bind

    Fills in a template: every string (value or key, at any depth) that starts
    with ``$`` is replaced. ``$name`` becomes the value ``name`` maps to (a
    missing name is a ``KeyError``; a null value keeps the string);
    ``$text {name} text`` becomes the text with each ``{name}`` replaced by the
    mapped value written as Python text (``None`` when missing).

    :signature: template.bind(mappings)

    .. code::

        yaql> {a => '$x', b => ['$host-{n}']}.bind({x => 5, n => 1})
        {"a": 5, "b": ["host-1"]}
    """
    return freeze(_bind(obj, mappings))


@specs.name("patch")
@specs.extension_method
def patch_(obj: t.Any, patch: t.Any) -> t.Any:
    """:yaql:patch

    ``obj`` with a JSON patch (RFC 6902) applied: one operation (a mapping) or
    a list of them. A path that does not exist leaves ``obj`` unchanged; a
    failed ``test`` operation raises ``jsonpatch.JsonPatchTestFailed``, an
    operation on a missing member ``jsonpatch.JsonPatchConflict``, a malformed
    operation ``jsonpatch.InvalidJsonPatch`` (the same names whatever version of
    the jsonpatch library runs).

    :signature: obj.patch(patch)

    .. code::

        yaql> {}.patch({op => add, path => '/a', value => 1})
        {"a": 1}
    """
    operations = thaw(patch) if isinstance(patch, (tuple, list)) else [thaw(patch)]
    document = thaw(obj)
    try:
        return freeze(jsonpatch.JsonPatch(operations).apply(document, in_place=True))
    except jsonpointer.JsonPointerException:
        return freeze(document)
    except jsonpatch.JsonPatchException as exc:
        raise PatchError.of(exc) from exc


class PatchError(LagunaError):
    """A JSON patch that cannot apply, under the name MuranoPL code catches.

    Packages catch ``py:jsonpatch.JsonPatchConflict`` and its siblings by the
    names jsonpatch 1.33 raised, which the original engine ran with; later
    jsonpatch releases raise subclasses (``JsonPatchPathNotFound``) whose names
    no ``Catch`` matches. The names MuranoPL sees are laguna's, fixed here.
    """

    code = "LAG-E0326"
    murano_name = "jsonpatch.JsonPatchException"

    @staticmethod
    def of(exc: jsonpatch.JsonPatchException) -> PatchError:
        for library_class, name in _PATCH_ERROR_NAMES:
            if isinstance(exc, library_class):
                error = PatchError(str(exc))
                error.murano_name = name
                return error
        return PatchError(str(exc))


#: most specific first: JsonPatchPathNotFound (jsonpatch >= 1.34) is a conflict
_PATCH_ERROR_NAMES: tuple[tuple[type[Exception], str], ...] = (
    (jsonpatch.JsonPatchTestFailed, "jsonpatch.JsonPatchTestFailed"),
    (jsonpatch.JsonPatchConflict, "jsonpatch.JsonPatchConflict"),
    (jsonpatch.InvalidJsonPatch, "jsonpatch.InvalidJsonPatch"),
)


def _base36(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
        if not number:
            return "".join(reversed(digits))


def random_name() -> str:
    """:yaql:randomName

    A short name, unique in this process, usable as a host name: five random
    lowercase letters, the time in milliseconds in base 36 (8 characters) and
    a counter in base 36 (one or two characters, wrapping at 1296).

    :signature: randomName()
    """
    with _name_lock:
        counter = next(_name_counter) % 1296
    prefix = "".join(random.choice(string.ascii_lowercase) for _ in range(5))
    stamp = _base36(int(time.time() * 1000))[:8]
    return prefix + stamp + _base36(counter)


@specs.parameter("collection", yaqltypes.Iterable())
@specs.parameter("selector", yaqltypes.Lambda())
@specs.inject("scope", yaqltypes.Context())
@specs.extension_method
def pselect(scope: t.Any, collection: t.Iterable[t.Any],
            selector: t.Callable[[t.Any], t.Any]) -> tuple[t.Any, ...]:
    """:yaql:pselect

    Like ``select``, evaluating the selector for the items in parallel (in at
    most 8 threads); the results keep the order of the input. When the selector
    fails for some items, the error of the first of them (in input order) is
    raised once every item has finished.

    :signature: collection.pselect(selector)

    .. code::

        yaql> [1, 2, 3].pselect($ * $)
        [1, 4, 9]
    """
    items = list(collection)
    if not items:
        return ()
    executor = scope.frame.executor if getattr(scope, "frame", None) is not None else None

    def run(item: t.Any) -> t.Any:
        if executor is not None:
            executor.tick()   # the deadline of the top-level call holds in every thread
        return selector(item)

    workers = min(PSELECT_THREADS, len(items))
    threads = (executor.method_locks.threads() if executor is not None
               else contextlib.nullcontext())
    with threads, concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        # each thread runs under the call's limits (a copy of this context each)
        futures = [pool.submit(contextvars.copy_context().run, run, item) for item in items]
        concurrent.futures.wait(futures)
    for future in futures:
        error = future.exception()
        if error is not None:
            raise error
    return tuple(freeze(future.result()) for future in futures)


def register(context: t.Any) -> None:
    context.register_function(base64encode)
    context.register_function(base64decode)
    context.register_function(bind)
    context.register_function(patch_)
    context.register_function(random_name)
    context.register_function(pselect)
