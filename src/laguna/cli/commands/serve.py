"""``laguna serve``: the v1 REST API of the original system, on this working directory."""

from __future__ import annotations

import errno
import socket

import click

from laguna.cli.errors import AddressInUse
from laguna.cli.sources import catalog_url
from laguna.cli.workdirs import current_workdir, workdir_option


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on.")
@click.option("--port", default=8082, show_default=True, type=click.IntRange(0, 65535),
              help="The port to listen on (the original's was 8082).")
@click.option("--db", "db_url", metavar="URL",
              help="The store's database URL (sqlite:///PATH or postgresql://...), or an "
                   "SQLite file's path; default: the working directory's store.")
@click.option("--keystone-url", metavar="URL",
              help="Validate tokens with this Keystone v3 service instead of the "
                   "tokens of `laguna token create`.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64),
              help="Engine workers running deployments and actions.")
@workdir_option
def serve(host: str, port: int, db_url: str | None, keystone_url: str | None,
          workers: int) -> None:
    """Serve the Murano v1 REST API (environments, sessions, services, deployments,
    actions, catalog, templates, statistics) until interrupted.

    The store is created and migrated on first start; the API and the other
    commands of the same working directory see the same environments. A port
    in use is an error (LAG-E1304) before anything starts.
    """
    import uvicorn

    from laguna.api.app import create_app
    from laguna.api.settings import ApiSettings

    settings = ApiSettings(workdir=current_workdir().root,
                           database_url=catalog_url(db_url, "--db") if db_url else None,
                           keystone_url=keystone_url, workers=workers)
    # bound here, before anything is announced: a port in use is said plainly,
    # not as uvicorn's OSError after a line claiming the API is up
    listening = listen(host, port)
    app = create_app(settings)
    click.echo(f"laguna API on http://{host}:{listening.getsockname()[1]}/ (store: "
               f"{settings.database_url or current_workdir().url})", err=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[listening])


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (as uvicorn binds: the address may be
    reused), or AddressInUse saying why not."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as error:
        raise AddressInUse(f"--host {host}: {error.strerror}") from None
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        if error.errno == errno.EADDRINUSE:
            raise AddressInUse(f"port {port} of {host} is in use (another `laguna serve`?); "
                               "choose another with --port") from None
        raise AddressInUse(f"cannot listen on {host}:{port}: {error.strerror}") from None
    listening.listen(2048)
    listening.set_inheritable(True)
    return listening
