"""`laguna worker` and `laguna serve --broker` refuse what the distributed mode
cannot use, before starting anything."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_a_worker_needs_a_postgresql_store(tmp_path: Path) -> None:
    code, output = run("worker", "--db", str(tmp_path / "store.sqlite"),
                       "--broker", "amqp://guest:guest@127.0.0.1:5672/%2F")
    assert code == 1
    assert f"error[LAG-E1300]: --db '{tmp_path / 'store.sqlite'}': laguna worker needs a " \
        "PostgreSQL store (postgresql://USER:PASSWORD@HOST/NAME)" in output


def test_a_worker_needs_an_amqp_broker() -> None:
    code, output = run("worker", "--db", "postgresql://u:p@127.0.0.1/db",
                       "--broker", "http://127.0.0.1:5672/")
    assert code == 1
    assert "error[LAG-E1300]: --broker 'http://127.0.0.1:5672/': expected RabbitMQ's " \
        "amqp://USER:PASSWORD@HOST:PORT/VHOST [invalid_value]" in output


def test_serve_with_a_broker_needs_a_postgresql_store(tmp_path: Path) -> None:
    code, output = run("serve", "--workdir", str(tmp_path),
                       "--broker", "amqp://guest:guest@127.0.0.1:5672/%2F")
    assert code == 2
    assert "--broker needs a PostgreSQL --db-url" in output
