"""The `laguna` command is an entry point: it prepares the interpreter
(laguna.process) before any subcommand runs."""

import sys

from click.testing import CliRunner

from laguna import process
from laguna.cli.main import cli


def test_command_raises_the_recursion_limit_before_a_subcommand(monkeypatch):
    limit = [1000]
    monkeypatch.setattr(sys, "getrecursionlimit", lambda: limit[0])
    monkeypatch.setattr(sys, "setrecursionlimit", lambda value: limit.__setitem__(0, value))
    result = CliRunner().invoke(cli, ["package", "--help"])
    assert result.exit_code == 0
    assert limit == [process.RECURSION_LIMIT]
