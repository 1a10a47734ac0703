"""A real ``laguna serve`` on a loopback port, for the original client to talk to."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from tests.servers import Server, serve

__all__ = ["Server", "server"]


@pytest.fixture()
def server(tmp_path: Path) -> t.Iterator[Server]:
    with serve(tmp_path) as served:
        yield served
