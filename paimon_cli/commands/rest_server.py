"""``paimon rest-server``: serve the Paimon REST catalog API over this tool's catalog."""

from __future__ import annotations

from pathlib import Path
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
    warehouse_root: Annotated[
        str | None,
        typer.Option(
            "--warehouse-root",
            metavar="DIR",
            show_default=False,
            help="Serve every warehouse folder under DIR (filesystem catalogs): a client's "
            "'warehouse' option names one, relative to DIR or absolute inside it.",
        ),
    ] = None,
    token_lifetime: Annotated[
        int,
        typer.Option(
            "--data-token-lifetime",
            metavar="SECONDS",
            help="How long the table tokens (storage credentials, GET .../token) it vends stay valid.",
        ),
    ] = 3600,
    auth: Annotated[
        str,
        typer.Option(
            "--auth",
            metavar="KIND",
            help="bearer (--token; none without one) or dlf (DLF signatures, keys below).",
        ),
    ] = "bearer",
    dlf_key_id: Annotated[
        str | None,
        typer.Option(
            "--dlf-access-key-id",
            metavar="ID",
            envvar="PAIMON_REST_DLF_KEY_ID",
            show_envvar=False,
            show_default=False,
            help="With --auth dlf: the access key id clients sign with (env PAIMON_REST_DLF_KEY_ID).",
        ),
    ] = None,
    dlf_key_secret: Annotated[
        str | None,
        typer.Option(
            "--dlf-access-key-secret",
            metavar="SECRET",
            envvar="PAIMON_REST_DLF_SECRET",
            show_envvar=False,
            show_default=False,
            help="With --auth dlf: its secret (env PAIMON_REST_DLF_SECRET).",
        ),
    ] = None,
    access_log: Annotated[
        bool, typer.Option("--access-log", help="Log every request (method, path, status) to stderr.")
    ] = False,
) -> None:
    """Serve the Paimon REST catalog API (pypaimon, Java and other REST clients) over the
    warehouse's catalog (filesystem, JDBC or Hive): databases, tables, snapshots, commits, tags,
    branches, partitions and table tokens.

    Clients set uri=http://HOST:PORT, warehouse=<anything>, token.provider=bear and token=T
    (with --auth dlf: token.provider=dlf and the dlf.* keys).
    Stop it with Ctrl-C.

    Examples:

      paimon -w ./warehouse rest-server --port 8181
      PAIMON_REST_TOKEN=secret paimon rest-server --warehouse /data/wh
      paimon rest-server --warehouse-root /data/warehouses --auth dlf
    """
    import uvicorn

    from paimon_cli.rest.app import create_app
    from paimon_cli.rest.service import CatalogService
    from paimon_cli.rest.warehouses import WarehouseRoot
    from paimon_core.catalog_factory import create_catalog

    state = get_state(ctx)
    if not 0 < port < 65536:
        raise CliError(f"bad --port {port}: use 1-65535")
    if "/" in prefix or not prefix:
        raise CliError(f"bad --prefix {prefix!r}: one non-empty path segment")
    check, how = _auth(auth, token, dlf_key_id, dlf_key_secret)
    if token_lifetime < 1:
        raise CliError(f"bad --data-token-lifetime {token_lifetime}: at least 1 second")
    lifetime_ms = token_lifetime * 1000
    s = state.settings
    if warehouse_root:
        root = Path(warehouse_root)
        if not root.is_dir():
            raise CliError(f"--warehouse-root {warehouse_root}: no such folder")
        served, what = (
            WarehouseRoot(root, prefix, s.storage or None, lifetime_ms),
            f"the warehouses under {root}",
        )
    else:
        catalog = (
            create_catalog(s.catalog, warehouse, s.catalog_options, s.storage or None)
            if warehouse
            else state.catalog
        )
        catalog.list_databases()  # a mistyped warehouse is refused now, not at the first request
        served = CatalogService(catalog, prefix, lifetime_ms)
        what = f"{catalog.kind} catalog {warehouse or state.warehouse}"
    typer.echo(f"serving {what} at http://{host}:{port} (prefix {prefix}, {how})", err=True)
    uvicorn.run(
        create_app(served, check),
        host=host,
        port=port,
        log_level="info" if access_log else "warning",
        access_log=access_log,
    )


def _auth(kind: str, token: str | None, key_id: str | None, secret: str | None):
    """(the request check, how it is described) for ``--auth``."""
    from paimon_cli.rest.auth import bearer, dlf

    if kind == "bearer":
        return (bearer(token), "bearer token required") if token else (None, "no token")
    if kind == "dlf":
        if not key_id or not secret:
            raise CliError("--auth dlf needs --dlf-access-key-id and --dlf-access-key-secret")
        return dlf({key_id: secret}), "DLF signatures required"
    raise CliError(f"bad --auth {kind!r}: use bearer or dlf")
