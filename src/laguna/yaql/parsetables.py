"""yaql's LALR parser tables, built once per machine and user, not per process.

yaql builds its parser with its vendored ply, which computes the LALR tables
of the grammar anew in every process (about half a second, a quarter of what
`laguna test` spent before its first test) and has no table cache. The
tables depend only on the grammar, so laguna keeps them as JSON in the
user's cache folder (:func:`cache_dir`) and builds the parser from them:
ply's own reflection and grammar (cheap) give the productions, the file
gives the action and goto tables.

A file is used only if its key is the key of the grammar at hand: yaql's
version and a digest of the grammar (ply's signature of the rules'
docstrings, precedence and tokens, and every production). Anything else (a
missing, unreadable, malformed or stale file) is ignored and the tables are
computed and written again. The file is JSON of integers and names, never
code or pickles: one tampered with (in the user's own folder) can make the
parser misread or reject expressions, never run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import typing as t
from importlib import metadata
from pathlib import Path

from yaql._ply import yacc

#: the environment variable naming the cache folder; empty: no cache
CACHE_DIR_VAR = "LAGUNA_CACHE_DIR"
# bump when the file's layout changes
_LAYOUT = 1


def cache_dir(environ: t.Mapping[str, str] = os.environ) -> Path | None:
    """``$LAGUNA_CACHE_DIR``, else ``$XDG_CACHE_HOME/laguna``, else
    ``~/.cache/laguna``; None when ``$LAGUNA_CACHE_DIR`` is set empty."""
    configured = environ.get(CACHE_DIR_VAR)
    if configured is not None:
        return Path(configured) if configured else None
    base = environ.get("XDG_CACHE_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "laguna"


class _Tables(t.NamedTuple):
    """What ply's LRParser reads of an LR table."""

    lr_productions: list[t.Any]
    lr_action: dict[int, dict[str, int]]
    lr_goto: dict[int, dict[str, int]]


def build_parser(module: t.Any, folder: Path | None) -> t.Any:
    """ply's LRParser for the grammar of ``module`` (yaql's Parser object),
    its tables read from ``folder`` if a file there fits the grammar, else
    computed by ply and written there (when ``folder`` is not None)."""
    pdict = {name: getattr(module, name) for name in dir(module)}
    reflected = yacc.ParserReflect(pdict, log=yacc.NullLogger())
    reflected.get_all()
    if reflected.error or reflected.validate_all():
        return yacc.yacc(module=module, debug=False)   # which says what is wrong
    grammar = _grammar(reflected)
    key = _key(reflected, grammar)
    path = None if folder is None else folder / f"yaql-tables-{key[:16]}.json"
    tables = None if path is None else _read(path, key)
    if tables is None:
        parser = yacc.yacc(module=module, debug=False)
        if path is not None:
            _write(path, key, parser.action, parser.goto)
        return parser
    for production in grammar.Productions:
        production.bind(reflected.pdict)
    return yacc.LRParser(_Tables(grammar.Productions, *tables), reflected.error_func)


def _grammar(reflected: t.Any) -> t.Any:
    """ply's Grammar of the reflected rules, as yacc() builds it."""
    grammar = yacc.Grammar(reflected.tokens)
    for term, assoc, level in reflected.preclist:
        grammar.set_precedence(term, assoc, level)
    for funcname, (file, line, name, symbols) in reflected.grammar:
        grammar.add_production(name, symbols, funcname, file, line)
    grammar.set_start(reflected.start)
    return grammar


def _key(reflected: t.Any, grammar: t.Any) -> str:
    digest = hashlib.sha256()
    for part in (f"layout {_LAYOUT}", f"yaql {metadata.version('yaql')}",
                 reflected.signature(), *(str(p) for p in grammar.Productions)):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()


def _read(path: Path, key: str) -> tuple[dict[int, dict[str, int]],
                                         dict[int, dict[str, int]]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        return _table(data["action"]), _table(data["goto"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _table(data: t.Any) -> dict[int, dict[str, int]]:
    """A table read back (JSON keys are strings), refusing any other shape."""
    table: dict[int, dict[str, int]] = {}
    for state, row in data.items():
        if not all(type(k) is str and type(v) is int for k, v in row.items()):
            raise TypeError("a table row holds something else than names and integers")
        table[int(state)] = dict(row)
    return table


def _write(path: Path, key: str, action: dict[int, dict[str, int]],
           goto: dict[int, dict[str, int]]) -> None:
    """Write the tables atomically (another process may read or write them at
    the same time); a folder that cannot be written only means no cache."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".yaql-tables-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"key": key, "action": action, "goto": goto}, out)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
