"""One name per idea across commands; earlier spellings still work, unshown."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli


def test_db_url_is_the_stores_option_and_db_its_hidden_alias(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    for command in (["token", "create"], ["package", "list"]):
        shown = CliRunner().invoke(cli, [*command, "--help"]).output
        assert "--db-url URL" in shown and "--db " not in shown and "--db," not in shown
    made = CliRunner().invoke(cli, ["token", "create", "--project", "p", "--user", "u",
                                    "--db", str(store), "--json"])
    assert made.exit_code == 0, made.output
    assert store.is_file()
    listed = CliRunner().invoke(cli, ["package", "list", "--db", str(store)])
    assert (listed.exit_code, listed.output) == (0, "no packages\n")


def test_token_create_json(tmp_path: Path) -> None:
    before = datetime.datetime.now(datetime.timezone.utc)
    made = CliRunner().invoke(cli, ["token", "create", "--project", "p", "--user", "u",
                                    "--hours", "2", "--json", "--workdir", str(tmp_path)])
    assert made.exit_code == 0, made.output
    data = json.loads(made.stdout)
    assert {k: v for k, v in data.items() if k not in ("token", "expires")} == {
        "project": "p", "user": "u", "admin": False}
    assert len(data["token"]) == 64
    expires = datetime.datetime.fromisoformat(data["expires"])
    assert datetime.timedelta(hours=2) <= expires - before < datetime.timedelta(hours=2,
                                                                                 seconds=30)
