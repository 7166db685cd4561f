"""``paimon rest-server``: serve the Paimon REST catalog API over this tool's catalog."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.errors import CliError
from paimon_cli.state import get_state

app = typer.Typer()

LOOPBACK = "127.0.0.1"


@app.command("rest-server")
def rest_server(
    ctx: typer.Context,
    port: Annotated[int, typer.Option("--port", metavar="PORT", help="TCP port to listen on.")] = 8181,
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="ADDRESS", help="Address to bind; the default serves this machine only."
        ),
    ] = LOOPBACK,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            metavar="TOKEN",
            envvar="PAIMON_REST_TOKEN",
            show_default=False,
            help="Bearer token every request must carry (env PAIMON_REST_TOKEN). Default: none.",
        ),
    ] = None,
    prefix: Annotated[
        str, typer.Option("--prefix", metavar="PREFIX", help="The URL prefix clients get from /v1/config.")
    ] = "paimon",
    warehouse: Annotated[
        str | None,
        typer.Option(
            "--warehouse",
            metavar="URI",
            show_default=False,
            help="Warehouse to serve (default: the global one).",
        ),
    ] = None,
    access_log: Annotated[
        bool, typer.Option("--access-log", help="Log every request (method, path, status) to stderr.")
    ] = False,
) -> None:
    """Serve the Paimon REST catalog API (pypaimon, Java and other REST clients) over the
    warehouse's catalog (filesystem, JDBC or Hive): databases, tables, snapshots, commits, tags,
    branches and partitions.

    Clients set uri=http://HOST:PORT, warehouse=<anything>, token.provider=bear and token=T.
    Stop it with Ctrl-C.

    Examples:

      paimon -w ./warehouse rest-server --port 8181
      PAIMON_REST_TOKEN=secret paimon rest-server --warehouse /data/wh
    """
    import uvicorn
    from paimon_core.catalog_factory import create_catalog

    from paimon_cli.rest.app import create_app
    from paimon_cli.rest.service import CatalogService

    state = get_state(ctx)
    if not 0 < port < 65536:
        raise CliError(f"bad --port {port}: use 1-65535")
    if "/" in prefix or not prefix:
        raise CliError(f"bad --prefix {prefix!r}: one non-empty path segment")
    s = state.settings
    catalog = (
        create_catalog(s.catalog, warehouse, s.catalog_options, s.storage or None)
        if warehouse
        else state.catalog
    )
    catalog.list_databases()  # a mistyped warehouse is refused now, not at the first request
    where = warehouse or state.warehouse
    typer.echo(
        f"serving {catalog.kind} catalog {where} at http://{host}:{port} (prefix {prefix}, "
        f"{'bearer token required' if token else 'no token'})",
        err=True,
    )
    uvicorn.run(
        create_app(CatalogService(catalog, prefix), token),
        host=host,
        port=port,
        log_level="info" if access_log else "warning",
        access_log=access_log,
    )
