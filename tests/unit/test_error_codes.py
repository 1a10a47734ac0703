"""Errors in one vocabulary: every error class is a LagunaError with a code,
every code and every kind is in docs/ERRORS.md (with the kind the code has),
and a code has one kind and a kind one code."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import laguna
from laguna.errors import CODE_KINDS, KIND_CODES, RANGE_KINDS, LagunaError, kind_of

ROOT = Path(__file__).parents[2]
SOURCE = ROOT / "src" / "laguna"
DOC = ROOT / "docs" / "ERRORS.md"

#: exceptions that are no errors: control flow no error handler may catch
SIGNALS = {"laguna.lang.errors.FlowSignal", "laguna.lang.errors.ReturnSignal",
           "laguna.lang.errors.BreakSignal", "laguna.lang.errors.ContinueSignal",
           "laguna.agent.body._Return", "laguna.lang.codegen._Unsupported",
           # the fast read path hands over to the service: never reaches a user
           "laguna.deploy.readonly._Unreadable",
           # the API's refusal carried to a dashboard page, which shows it
           "laguna.dashboard.client.ApiFailure"}

_CODE = re.compile(r"LAG-[EW]\d{4}")


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(laguna.__path__, "laguna."):
        # a __main__ parses the command line when imported; alembic's env runs a migration
        if info.name.endswith("__main__") or info.name.startswith("laguna.store.migrations"):
            continue
        importlib.import_module(info.name)
        names.append(info.name)
    return names


def _exception_classes() -> list[type[BaseException]]:
    _modules()
    found: dict[str, type[BaseException]] = {}
    pending: list[type[BaseException]] = [BaseException]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("laguna."):
                found[f"{sub.__module__}.{sub.__qualname__}"] = sub
    return list(found.values())


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _expand(cell: str) -> list[tuple[str, str]]:
    """The (first, last) codes of a table cell: ``LAG-E0303/E0304``,
    ``LAG-E0200–E0241``, ``LAG-E0101``."""
    out = []
    for part in cell.replace(", ", "/").split("/"):
        part = part.strip()
        full = part if part.startswith("LAG-") else f"LAG-{part}"
        first, _, last = full.partition("–")
        last = last if not last or last.startswith("LAG-") else f"LAG-{last}"
        out.append((first, last or first))
    return out


def _documented() -> tuple[dict[str, list[str]], set[str], set[tuple[str, str, str]]]:
    """The codes of rows of their own (code: the kinds the rows give it), every
    code a row covers (ranges expanded) and the range table's rows."""
    own: dict[str, list[str]] = {}
    covered: set[str] = set()
    ranges: set[tuple[str, str, str]] = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| LAG-") or len(cells) < 2:
            continue
        if len(cells) == 2:               # the table of ranges
            first, last = _expand(cells[0])[0]
            ranges.add((first, last, cells[1]))
            continue
        pieces = _expand(cells[0])
        kinds = [k.strip() for k in cells[1].split(" / ")]
        kinds = kinds if len(kinds) == len(pieces) else kinds * len(pieces)
        for (first, last), kind in zip(pieces, kinds):
            if first == last:
                own.setdefault(first, []).append(kind)
            for number in range(int(first[5:]), int(last[5:]) + 1):
                covered.add(f"{first[:5]}{number:04d}")
    return own, covered, ranges


def test_every_error_class_is_a_laguna_error_with_a_code() -> None:
    classes = _exception_classes()
    others = {_name(c) for c in classes if not issubclass(c, LagunaError)}
    assert others == SIGNALS
    for cls in classes:
        if issubclass(cls, LagunaError):
            assert _CODE.fullmatch(cls.code), _name(cls)


def test_a_code_is_given_by_one_class() -> None:
    owners: dict[str, list[str]] = {}
    for cls in _exception_classes():
        if issubclass(cls, LagunaError) and "code" in vars(cls):
            owners.setdefault(vars(cls)["code"], []).append(_name(cls))
    assert {code: names for code, names in owners.items() if len(names) > 1} == {}


def test_a_kind_has_one_code_and_a_code_one_kind() -> None:
    _modules()
    assert len(set(KIND_CODES.values())) == len(KIND_CODES)
    assert {code: kind for kind, code in KIND_CODES.items()} == CODE_KINDS
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", kind) for kind in KIND_CODES)
    # a family of codes has a kind no single code has
    assert {kind for _, _, kind in RANGE_KINDS} & set(KIND_CODES) == set()


def _every_code() -> set[str]:
    """The code of every error class, every kind's code, and every code the
    source writes (but the bounds of the ranges of laguna.errors)."""
    codes = {c.code for c in _exception_classes() if issubclass(c, LagunaError)}
    codes |= set(KIND_CODES.values())
    bounds = {code for first, last, _ in RANGE_KINDS for code in (first, last)}
    for path in SOURCE.rglob("*.py"):
        codes |= set(_CODE.findall(path.read_text(encoding="utf-8"))) - bounds
    return codes


def test_every_code_is_in_docs_errors_md() -> None:
    _, covered, _ = _documented()
    assert sorted(_every_code() - covered) == []


def test_every_kind_is_in_docs_errors_md_in_its_codes_row() -> None:
    _modules()
    own, _, _ = _documented()
    missing = {code: kind for kind, code in KIND_CODES.items() if code not in own}
    assert missing == {}
    wrong = {code: (kinds, CODE_KINDS[code]) for code, kinds in own.items()
             if code in CODE_KINDS and kinds != [CODE_KINDS[code]]}
    assert wrong == {}


def test_docs_errors_md_lists_each_code_once_with_the_kind_it_has() -> None:
    _modules()
    own, _, ranges = _documented()
    assert {code: kinds for code, kinds in own.items() if len(kinds) > 1} == {}
    assert {code: kinds[0] for code, kinds in own.items()
            if kinds[0] != kind_of(code)} == {}
    assert ranges == set(RANGE_KINDS)


def test_the_check_fails_for_a_code_the_docs_lack(monkeypatch: pytest.MonkeyPatch) -> None:
    # a code no row covers is found
    _modules()
    monkeypatch.setitem(KIND_CODES, "a_new_kind", "LAG-E1999")
    _, covered, _ = _documented()
    assert "LAG-E1999" in _every_code() - covered


def test_an_error_is_a_problem_of_its_kinds_code() -> None:
    from laguna.deploy.errors import Rejected
    from laguna.frontends.muranopl.static_actions import StaticActionError
    from laguna.frontends.tosca.actions import ActionRefused

    # a kind of the vocabulary brings its code; another leaves the error's own
    assert [(p.code, p.kind) for p in Rejected("model_invalid", "x").as_problems()] == [
        ("LAG-E1010", "model_invalid")]
    assert [(p.code, p.kind) for p in ActionRefused("unknown_node", "x").as_problems()] == [
        ("LAG-E1520", "unknown_node")]
    assert [(p.code, p.kind) for p in StaticActionError("not_found", "x").as_problems()] == [
        ("LAG-E1020", kind_of("LAG-E1020"))]
