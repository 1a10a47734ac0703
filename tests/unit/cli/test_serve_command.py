"""``laguna serve`` where it cannot listen."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli


def test_a_port_in_use_is_said_before_anything_claims_the_api_is_up(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        result = CliRunner().invoke(cli, ["--workdir", str(tmp_path), "serve", "--port",
                                          str(port)])
    finally:
        taken.close()
    assert (result.exit_code, result.stdout, result.stderr) == (
        1, "", f"error[LAG-E1304]: port {port} of 127.0.0.1 is in use (another `laguna "
               "serve`?); choose another with --port [address_in_use]\n")
    assert not (tmp_path / ".laguna").exists()
