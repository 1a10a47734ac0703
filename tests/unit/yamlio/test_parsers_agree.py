"""libyaml parses first and PyYAML's own parser second (see load_all): for
every YAML file of the repository both must give the same values, the same
kinds of scalars and the same positions."""

from __future__ import annotations

import pathlib
import typing as t

import pytest

from laguna.lang.loader import expression_hook
from laguna.yamlio import loader

ROOT = pathlib.Path(__file__).resolve().parents[3]
FILES = sorted(p for base in ("tests/conformance", "src/laguna/corelib", "examples", "benchmarks")
               for p in (ROOT / base).rglob("*.yaml"))

pytestmark = pytest.mark.skipif(len(loader._LOADERS) < 2, reason="PyYAML without libyaml")


def _shape(value: t.Any) -> t.Any:
    """Values with their Python types and spans, to compare two loads."""
    span = loader.span_of(value)
    where = (span.line, span.col, span.end_line, span.end_col) if span is not None else None
    if isinstance(value, dict):
        return ("map", where, [(_shape(k), _shape(v)) for k, v in value.items()],
                dict(getattr(value, "key_spans", {})))
    if isinstance(value, list):
        return ("seq", where, [_shape(v) for v in value])
    return (type(value).__name__, where, str(value))


def _load_with(loader_class: type, text: str, source: str) -> t.Any:
    saved = loader._LOADERS
    loader._LOADERS = (loader_class,)
    try:
        return loader.load_all(text, source, expression_hook(False))
    finally:
        loader._LOADERS = saved


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_libyaml_and_pyyaml_agree(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    pure = _load_with(loader._PureLoader, text, path.name)
    try:
        fast = _load_with(loader._LOADERS[0], text, path.name)
    except AssertionError:   # load_all ran out of parsers: libyaml refused the file,
        # so what callers get is PyYAML's load
        fast = loader.load_all(text, path.name, expression_hook(False))
    assert _shape(fast) == _shape(pure)


def test_text_libyaml_refuses_is_loaded_by_pyyaml() -> None:
    documents = loader.load_all("Then: [Break:]\n", "x.yaml")
    assert documents == [{"Then": [{"Break": None}]}]
