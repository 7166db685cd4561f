"""``paimon rest-server``: serve the Paimon REST catalog API over this tool's catalog."""

from __future__ import annotations

import os
import signal
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
    dlf_token_file: Annotated[
        str | None,
        typer.Option(
            "--dlf-token-file",
            metavar="FILE",
            envvar="PAIMON_REST_DLF_TOKEN_FILE",
            show_envvar=False,
            show_default=False,
            help="With --auth dlf: a JSON token file (AccessKeyId, AccessKeySecret, SecurityToken, "
            "Expiration) whose key is accepted too; read again when it changes "
            "(env PAIMON_REST_DLF_TOKEN_FILE).",
        ),
    ] = None,
    access_log: Annotated[
        bool,
        typer.Option("--access-log", help="Log every request to stderr, a Common Log Format line each."),
    ] = False,
    tls_cert: Annotated[
        str | None,
        typer.Option(
            "--tls-cert",
            metavar="FILE",
            show_default=False,
            help="Serve HTTPS with this PEM certificate (chain).",
        ),
    ] = None,
    tls_key: Annotated[
        str | None,
        typer.Option(
            "--tls-key", metavar="FILE", show_default=False, help="The private key of --tls-cert (PEM)."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            metavar="N",
            help="Serve from N processes (commits stay atomic across them: the catalog's commit is).",
        ),
    ] = 1,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            help="Serve an address other machines reach without auth (refused unless asked for).",
        ),
    ] = False,
) -> None:
    """Serve the Paimon REST catalog API (pypaimon, Java and other REST clients) over the
    warehouse's catalog (filesystem, JDBC or Hive): databases, tables, snapshots, commits, tags,
    branches, partitions and table tokens.

    Clients set uri=http://HOST:PORT, warehouse=<anything>, token.provider=bear and token=T
    (with --auth dlf: token.provider=dlf and the dlf.* keys; either DLF signing method, default
    or openapi, is accepted). GET /healthz answers 200 without auth.
    An address other machines reach needs --token or --auth dlf (or --insecure). Stop it with
    Ctrl-C or SIGTERM (exit 0): requests in flight (commits too) finish first.

    Examples:

      paimon -w ./warehouse rest-server --port 8181
      PAIMON_REST_TOKEN=secret paimon rest-server --warehouse /data/wh
      paimon rest-server --warehouse-root /data/warehouses --auth dlf
      paimon rest-server --host 0.0.0.0 --token T --tls-cert cert.pem --tls-key key.pem --workers 4
    """
    import uvicorn

    from paimon_cli.rest.server_config import CONFIG_ENV, ServerConfig, build_app, served
    from paimon_cli.rest.service import CatalogService

    state = get_state(ctx)
    if not 0 < port < 65536:
        raise CliError(f"bad --port {port}: use 1-65535")
    if "/" in prefix or not prefix:
        raise CliError(f"bad --prefix {prefix!r}: one non-empty path segment")
    if token_lifetime < 1:
        raise CliError(f"bad --data-token-lifetime {token_lifetime}: at least 1 second")
    if workers < 1:
        raise CliError(f"bad --workers {workers}: at least 1")
    how = _auth(auth, token, dlf_key_id, dlf_key_secret, dlf_token_file)
    if how == "no token" and not insecure and not _loopback(host):
        raise CliError(
            f"--host {host} serves other machines, and no --token is set: anyone who reaches it could read "
            "and change every table. Set --token (or --auth dlf), or pass --insecure to serve it anyway"
        )
    scheme = "https" if tls_cert or tls_key else "http"
    if scheme == "https":
        _check_tls(tls_cert, tls_key)
    s = state.settings
    if warehouse_root and not Path(warehouse_root).is_dir():
        raise CliError(f"--warehouse-root {warehouse_root}: no such folder")
    config = ServerConfig(
        prefix=prefix,
        token_lifetime_ms=token_lifetime * 1000,
        auth=auth,
        token=token,
        dlf_keys={dlf_key_id: dlf_key_secret} if dlf_key_id and dlf_key_secret else {},
        dlf_token_file=str(Path(dlf_token_file).resolve()) if dlf_token_file else None,
        catalog=s.catalog,
        warehouse=None if warehouse_root else (warehouse or state.warehouse),
        catalog_options=dict(s.catalog_options),
        storage=dict(s.storage or {}),
        warehouse_root=warehouse_root,
        access_log=access_log,
    )
    if config.dlf_token_file:
        _check_token_file(config.dlf_token_file)
    registry = served(config)
    if isinstance(registry, CatalogService):
        registry.catalog.list_databases()  # a mistyped warehouse is refused now, not at the first request
        what = f"{registry.catalog.kind} catalog {config.warehouse}"
    else:
        what = f"the warehouses under {Path(registry.root)}"
    many = f", {workers} workers" if workers > 1 else ""
    typer.echo(f"serving {what} at {scheme}://{host}:{port} (prefix {prefix}, {how}{many})", err=True)
    tls = {"ssl_certfile": tls_cert, "ssl_keyfile": tls_key} if scheme == "https" else {}
    common = {"host": host, "port": port, "log_level": "warning", "access_log": False, **tls}
    if workers == 1:
        # uvicorn raises a SIGTERM again once it has finished the requests in flight: end with 0
        # then, as its multi-worker supervisor does
        signal.signal(signal.SIGTERM, _stopped)
        uvicorn.run(build_app(config, registry), **common)
    else:  # each worker builds the same application from the config in its environment
        os.environ[CONFIG_ENV] = config.to_env()
        uvicorn.run("paimon_cli.rest.server_config:worker_app", factory=True, workers=workers, **common)


def _stopped(signum, frame) -> None:
    raise SystemExit(0)


def _loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: whatever it resolves to


def _check_tls(cert: str | None, key: str | None) -> None:
    """Both files given, readable, and a certificate with its key (one line otherwise)."""
    import ssl

    if not cert or not key:
        raise CliError("--tls-cert and --tls-key go together: give both")
    for flag, path in (("--tls-cert", cert), ("--tls-key", key)):
        if not Path(path).is_file():
            raise CliError(f"{flag} {path}: no such file")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as e:
        raise CliError(
            f"--tls-cert {cert} / --tls-key {key}: not a PEM certificate and its key ({e})"
        ) from None


def _check_token_file(path: str) -> None:
    """The token file holds a key now (one line otherwise, never the file's text)."""
    from paimon_core.catalog.metastore.rest import dlf_token
    from paimon_core.errors import CatalogUnavailable

    try:
        dlf_token.TokenFile(path, tries=1).load()
    except CatalogUnavailable as e:
        raise CliError(f"--dlf-token-file: {e}") from None


def _auth(
    kind: str, token: str | None, key_id: str | None, secret: str | None, token_file: str | None = None
) -> str:
    """How ``--auth`` checks requests, in words (a bad combination is an error)."""
    if kind == "bearer":
        if token_file:
            raise CliError("--dlf-token-file goes with --auth dlf")
        return "bearer token required" if token else "no token"
    if kind == "dlf":
        if bool(key_id) != bool(secret) or not (key_id or token_file):
            raise CliError(
                "--auth dlf needs --dlf-access-key-id and --dlf-access-key-secret, or --dlf-token-file"
            )
        return "DLF signatures required (default and openapi)"
    raise CliError(f"bad --auth {kind!r}: use bearer or dlf")
