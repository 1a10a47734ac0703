"""The `laguna` command is an entry point: it prepares the interpreter
(laguna.process) before any subcommand runs."""

import contextlib
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from laguna import process
from laguna.cli.main import cli
from laguna.deploy.workdir import Workdir

SRC = Path(__file__).parents[3] / "src"


def test_command_raises_the_recursion_limit_before_a_subcommand(monkeypatch):
    limit = [1000]
    monkeypatch.setattr(sys, "getrecursionlimit", lambda: limit[0])
    monkeypatch.setattr(sys, "setrecursionlimit", lambda value: limit.__setitem__(0, value))
    result = CliRunner().invoke(cli, ["package", "--help"])
    assert result.exit_code == 0
    assert limit == [process.RECURSION_LIMIT]


def run_laguna(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, started with a loose umask (022)."""
    return subprocess.run([sys.executable, "-c", "from laguna.cli.main import main; main()",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          umask=0o022, env={**os.environ, "PYTHONPATH": str(SRC)})


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_command_makes_what_it_creates_private(tmp_path: Path) -> None:
    probe = ("import os; from laguna.cli.main import cli; "
             "cli(['package', '--help'], standalone_mode=False); print(oct(os.umask(0)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, umask=0o022,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.stdout.splitlines()[-1] == "0o77"


def test_command_tightens_a_working_directory_left_open(tmp_path: Path) -> None:
    workdir = Workdir(tmp_path)
    workdir.open_store().dispose()
    # as an older laguna left them, under umask 022; a reader holds the store
    # open, so SQLite's log and index (made with the store's mode) stay
    os.chmod(workdir.state_dir, 0o755)
    os.chmod(workdir.store_path, 0o644)
    with contextlib.closing(sqlite3.connect(workdir.store_path)) as reader:
        reader.execute("PRAGMA journal_mode=WAL").fetchall()     # as the store runs
        reader.execute("SELECT count(*) FROM sqlite_master").fetchall()
        assert {path.name: mode(path) for path in workdir.state_dir.iterdir()} == {
            "laguna.sqlite": 0o644, "laguna.sqlite-wal": 0o644, "laguna.sqlite-shm": 0o644}
        done = run_laguna("environments", "--json", "--workdir", str(tmp_path), cwd=tmp_path)
        assert (done.returncode, done.stdout) == (0, '{\n  "environments": []\n}\n'), done.stderr
        assert {path.name: mode(path) for path in [workdir.state_dir,
                                                   *workdir.state_dir.iterdir()]} == {
            ".laguna": 0o700, "laguna.sqlite": 0o600,
            "laguna.sqlite-wal": 0o600, "laguna.sqlite-shm": 0o600,
        }
