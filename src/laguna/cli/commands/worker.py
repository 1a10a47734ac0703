"""``laguna worker``: run the engine's deployments, actions and static actions
from RabbitMQ (the distributed mode; docs/DEPLOY.md)."""

from __future__ import annotations

import click

from laguna.cli.errors import CommandError
from laguna.cli.sources import catalog_url
from laguna.cli.workdirs import current_workdir, workdir_option


def _postgresql(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    url = catalog_url(value, "--db")
    if not url.startswith("postgresql"):
        raise CommandError(f"--db {value!r}: laguna worker needs a PostgreSQL store "
                           "(postgresql://USER:PASSWORD@HOST/NAME): the API processes and "
                           "every worker share it, and it holds each environment's lock")
    return url


def _amqp(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    if not value.startswith(("amqp://", "amqps://")):
        raise CommandError(f"--broker {value!r}: expected RabbitMQ's "
                           "amqp://USER:PASSWORD@HOST:PORT/VHOST")
    return value


@click.command("worker")
@click.option("--db", "db_url", metavar="URL", required=True, envvar="LAGUNA_DATABASE_URL",
              callback=_postgresql,
              help="The shared store: postgresql://USER:PASSWORD@HOST/NAME "
                   "(also $LAGUNA_DATABASE_URL).")
@click.option("--broker", "broker_url", metavar="URL", required=True,
              envvar="LAGUNA_BROKER_URL", callback=_amqp,
              help="RabbitMQ: amqp://USER:PASSWORD@HOST:PORT/VHOST (also $LAGUNA_BROKER_URL).")
@click.option("--threads", default=4, show_default=True, type=click.IntRange(1, 64),
              help="Tasks this process runs at once.")
@click.option("--no-periodic", is_flag=True,
              help="Take no part in the periodic work (token and session expiry, resending "
                   "lost tasks, watch passes of environments whose checks are due).")
@workdir_option
def worker(db_url: str, broker_url: str, threads: int, no_periodic: bool) -> None:
    """Run deployments, actions and static actions that `laguna serve --broker`
    queues, until interrupted (SIGTERM or Ctrl-C: the running ones finish first).

    Start as many as you like, on any machines that reach the store and
    RabbitMQ: each message is acknowledged only when its task has ended, so a
    worker that dies mid-deploy has its work resumed by another; one worker at
    a time works an environment. Periodic work runs once per period across
    all workers.
    """
    import logging

    from laguna.engine.worker import WorkerSettings, serve_worker

    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(process)d %(name)s: %(message)s")
    click.echo(f"laguna worker: {threads} threads (store {_shown(db_url)}, "
               f"broker {_shown(broker_url)})", err=True)
    serve_worker(WorkerSettings(workdir=current_workdir().root, database_url=db_url,
                                broker_url=broker_url, threads=threads,
                                periodic=not no_periodic))


def _shown(url: str) -> str:
    """``url`` without its password."""
    scheme, separator, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not separator or not at:
        return url
    user = credentials.partition(":")[0]
    return f"{scheme}://{user}:***@{place}"
