"""The test process is an entry point like the `laguna` command: it prepares
the interpreter once (see laguna.process)."""

import os
import typing as t

import pytest

from laguna import process

process.prepare()


@pytest.fixture(autouse=True)
def _umask_as_it_was() -> t.Iterator[None]:
    """The `laguna` command sets the process's umask (laguna.privacy); a CLI test
    run in this process through CliRunner must not leave it to the next test."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)
