"""``laguna serve``: the v1 REST API of the original system, on this working directory."""

from __future__ import annotations

import errno
import socket

import click

from laguna.api.settings import MAX_BODY_SIZE, MAX_JSON_DEPTH, MAX_PACKAGE_SIZE, ApiSettings
from laguna.cli.errors import AddressInUse
from laguna.cli.shared import HiddenAliases
from laguna.cli.sources import catalog_url
from laguna.cli.workdirs import current_workdir, workdir_option


def _anonymous_value(_ctx: click.Context, _param: click.Parameter,
                     value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    project, separator, user = value.partition(":")
    if not separator or not project or not user:
        raise click.BadParameter(f"{value!r} is not PROJECT:USER")
    return project, user


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on.")
@click.option("--port", default=8082, show_default=True, type=click.IntRange(0, 65535),
              help="The port to listen on (the original's was 8082).")
@click.option("--db-url", "--db", "db_url", metavar="URL", cls=HiddenAliases,
              hidden_aliases=("--db",),
              help="The store's database URL (sqlite:///PATH or postgresql://...), or an "
                   "SQLite file's path; default: the working directory's store.")
@click.option("--keystone-url", metavar="URL",
              help="Validate tokens with this Keystone v3 service instead of the "
                   "tokens of `laguna token create`.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64),
              help="Engine threads of this process running deployments and actions "
                   "(without --broker).")
@click.option("--broker", "broker_url", metavar="URL", envvar="LAGUNA_BROKER_URL",
              help="RabbitMQ (amqp://USER:PASSWORD@HOST:PORT/VHOST; also "
                   "$LAGUNA_BROKER_URL): send deployments, actions and static actions to "
                   "`laguna worker` processes instead of running them here; needs a "
                   "PostgreSQL --db-url that the workers share.")
@click.option("--max-body-size", default=MAX_BODY_SIZE, show_default=True, metavar="BYTES",
              type=click.IntRange(min=1),
              help="The largest request body (all but package uploads): 413 above.")
@click.option("--max-package-size", default=MAX_PACKAGE_SIZE, show_default=True,
              metavar="BYTES", type=click.IntRange(min=1),
              help="The largest package archive an upload may carry: 413 above.")
@click.option("--max-json-depth", default=MAX_JSON_DEPTH, show_default=True, metavar="LEVELS",
              type=click.IntRange(min=1),
              help="The deepest nesting of arrays and objects in a JSON body: 400 deeper.")
@click.option("--anonymous", metavar="PROJECT:USER", callback=_anonymous_value,
              help="Requests without a token act as USER of PROJECT (for clients that "
                   "send none, e.g. `openstack --os-auth-type none`); only with a "
                   "loopback --host.")
@click.option("--processes", default=1, show_default=True, type=click.IntRange(1, 64),
              help="API processes serving the one port (uvicorn's supervisor starts a "
                   "new one in place of one that dies); each runs its own --workers "
                   "engine workers on the shared store.")
@workdir_option
def serve(host: str, port: int, db_url: str | None, keystone_url: str | None,
          workers: int, broker_url: str | None, max_body_size: int, max_package_size: int,
          max_json_depth: int, anonymous: tuple[str, str] | None, processes: int) -> None:
    """Serve the Murano v1 REST API (environments, sessions, services, deployments,
    actions, catalog, templates, statistics) and the web dashboard (/dashboard/)
    until interrupted.

    The store is created and migrated on first start; the API and the other
    commands of the same working directory see the same environments. A port
    in use is an error (LAG-E1304) before anything starts. With --processes N,
    N processes answer on the one port; a process that dies is replaced.

    Without --broker the deployments run in these processes (the embedded
    default). With --broker they go to `laguna worker` processes over
    RabbitMQ, and several `laguna serve` on one PostgreSQL store answer alike
    (docs/DEPLOY.md).
    """
    import uvicorn

    from laguna.api.app import create_app
    from laguna.api.serving import HTTP, LOOP

    if anonymous is not None and not _is_loopback(host):
        raise click.BadParameter(f"--anonymous needs a loopback --host, not {host!r}: "
                                 "anyone who reaches the server would act as "
                                 f"{anonymous[1]} of {anonymous[0]}",
                                 param_hint="'--anonymous'")
    database_url = catalog_url(db_url, "--db-url") if db_url else None
    if broker_url is not None:
        if not broker_url.startswith(("amqp://", "amqps://")):
            raise click.BadParameter(f"{broker_url!r} is not amqp://USER:PASSWORD@HOST:PORT/"
                                     "VHOST", param_hint="'--broker'")
        if database_url is None or not database_url.startswith("postgresql"):
            raise click.BadParameter("--broker needs a PostgreSQL --db-url "
                                     "(postgresql://USER:PASSWORD@HOST/NAME): the workers "
                                     "share the store, and it holds each environment's lock",
                                     param_hint="'--broker'")
    settings = ApiSettings(workdir=current_workdir().root,
                           database_url=database_url, broker_url=broker_url,
                           keystone_url=keystone_url, workers=workers,
                           max_body_size=max_body_size, max_package_size=max_package_size,
                           max_json_depth=max_json_depth, anonymous=anonymous)
    # bound here, before anything is announced: a port in use is said plainly,
    # not as uvicorn's OSError after a line claiming the API is up
    listening = listen(host, port)
    if processes > 1:
        from laguna.api.app import open_api_store
        from laguna.api.serving import serve_processes

        # created and migrated once, here, before the children open it
        open_api_store(settings).dispose()
        _announce(host, listening, settings, processes)
        serve_processes(settings, listening, processes)
        return
    app = create_app(settings)
    _announce(host, listening, settings, processes)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", loop=LOOP, http=HTTP))
    server.run(sockets=[listening])


def _announce(host: str, listening: socket.socket, settings: ApiSettings,
              processes: int) -> None:
    many = f", {processes} processes" if processes > 1 else ""
    click.echo(f"laguna API on http://{host}:{listening.getsockname()[1]}/ (store: "
               f"{settings.database_url or current_workdir().url}{many})", err=True)


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
