"""`laguna --help` and `--version` start without the commands' modules: no
SQLAlchemy, no rich, no engine (benchmarks/bench_cli_start.py times them), and
the listing is the one click would print from the commands themselves."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from laguna.cli.main import COMMANDS, LazyGroup, cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_its_commands_own(name: str) -> None:
    command = LazyGroup.get_command(cli, click.Context(cli), name)
    assert command is not None
    for limit in (40, 57, 80, 300):
        assert click.Command(name, help=COMMANDS[name]).get_short_help_str(limit) == \
            command.get_short_help_str(limit), (name, limit)


def test_help_lists_what_the_commands_say() -> None:
    shown = CliRunner().invoke(cli, ["--help"], prog_name="laguna").output
    # the same group, listed by click from the imported commands
    eager = click.Group("laguna", params=cli.params, help=cli.help,
                        context_settings=cli.context_settings,
                        commands={name: LazyGroup.get_command(cli, click.Context(cli), name)
                                  for name in COMMANDS})
    assert shown == CliRunner().invoke(eager, ["--help"], prog_name="laguna").output
    assert "  status        Show ENVIRONMENT's state, components, outputs, the actions...\n" in shown


@pytest.mark.parametrize("option", ["--help", "--version"])
def test_help_and_version_import_no_command(option: str) -> None:
    probe = (
        "import sys\n"
        "from laguna.cli.main import cli\n"
        f"try:\n    cli([{option!r}])\nexcept SystemExit:\n    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('laguna.cli.commands.')"
        " or m.split('.')[0] in ('sqlalchemy', 'rich', 'yaql', 'httpx'))\n"
        "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "LOADED []"
