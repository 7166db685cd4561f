"""The HTTP layer: a Starlette application serving the Paimon REST catalog API
(apache/paimon ``docs/static/rest-catalog-open-api.yaml``) over a ``CatalogService``.

Routing is done on the raw path, one percent-decoded segment at a time, so an encoded ``/`` in a
name stays inside its segment (and is refused there) instead of making a different route. Every
request is checked first when the server has an auth check (``rest.auth``: bearer token or DLF
signature): a refused one is a 401 with the spec's error body and nothing runs. The prefix (the
first segment after ``v1``) picks the catalog (``rest.warehouses``). Catalog work runs in Starlette's
thread pool; every answer is JSON (the spec's response or ``ErrorResponse``) or empty (200).
``GET /healthz`` answers 200 without auth, for load balancers and service managers.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from paimon_cli.rest import (
    consumers,
    databases,
    functions,
    listings,
    partitions,
    query_auth,
    registration,
    replace,
    schemas,
    versions,
    views,
)
from paimon_cli.rest.auth import Checker, bearer
from paimon_cli.rest.errors import RestError
from paimon_cli.rest.names import checked, segments
from paimon_cli.rest.service import CatalogService
from paimon_cli.rest.warehouses import OneWarehouse, WarehouseRoot

log = logging.getLogger("paimon.rest")
_NO_BODY = object()


def _route(
    service: CatalogService, method: str, parts: list[str], body: Any, query: dict[str, str]
) -> Callable[[], Any]:
    """The operation for ``method`` on the path ``parts`` (after ``v1/<prefix>``)."""
    s = service
    n = len(parts)
    if n == 1 and parts[0] == "databases":
        if method == "GET":
            return lambda: s.list_databases(query)
        if method == "POST":
            return lambda: s.create_database(body)
    if n == 1 and parts[0] == "tables" and method == "GET":
        return lambda: listings.list_tables_globally(s, query)
    if n == 2 and parts == ["tables", "rename"] and method == "POST":
        return lambda: s.rename_table(body)
    if n == 3 and parts[:2] == ["tables", "id"] and method == "GET":
        table_id = parts[2]
        return lambda: listings.get_table_by_id(s, table_id)
    if n == 2 and parts == ["views", "rename"] and method == "POST":
        return lambda: views.rename_view(s, body)
    if n == 1 and parts[0] == "views" and method == "GET":
        return lambda: views.list_views_globally(s, query)
    if n == 1 and parts[0] == "functions" and method == "GET":
        return lambda: functions.list_functions_globally(s, query)
    if n >= 2 and parts[0] == "databases":
        db = checked(parts[1], "database")
        if n == 2:
            if method == "GET":
                return lambda: s.get_database(db)
            if method == "DELETE":
                return lambda: s.drop_database(db)
            if method == "POST":
                return lambda: databases.alter_database(s, db, body)
        if n == 3 and parts[2] == "register" and method == "POST":
            return lambda: registration.register_table(s, db, body)
        if n == 3 and parts[2] == "table-details" and method == "GET":
            return lambda: listings.list_table_details(s, db, query)
        if n == 3 and parts[2] == "tables":
            if method == "GET":
                return lambda: listings.list_tables(s, db, query)
            if method == "POST":
                return lambda: s.create_table(db, body)
        if n == 3 and parts[2] == "view-details" and method == "GET":
            return lambda: views.list_view_details(s, db, query)
        if n == 3 and parts[2] == "function-details" and method == "GET":
            return lambda: functions.list_function_details(s, db, query)
        if n >= 3 and parts[2] == "views":
            return _view_route(s, method, db, parts[3:], body, query)
        if n >= 3 and parts[2] == "functions":
            return _function_route(s, method, db, parts[3:], body, query)
        if n >= 4 and parts[2] == "tables":
            return _table_route(s, method, db, checked(parts[3], "table"), parts[4:], body, query)
    raise RestError(404, f"no such endpoint: {method} /{'/'.join(parts)}", "UNKNOWN", None)


def _table_route(
    s: CatalogService, method: str, db: str, table: str, rest: list[str], body: Any, query: dict[str, str]
) -> Callable[[], Any]:
    """The operations on table ``table`` (``rest``: the path after it)."""
    n = len(rest)
    if n == 0:
        if method == "GET":
            return lambda: s.get_table(db, table)
        if method == "POST":
            return lambda: s.alter_table(db, table, body)
        if method == "DELETE":
            return lambda: s.drop_table(db, table)
    op = (method, *rest)
    if n == 1:
        one: dict[tuple[str, ...], Callable[[], Any]] = {
            ("GET", "token"): lambda: s.table_token(db, table),
            ("GET", "snapshot"): lambda: s.table_snapshot(db, table),
            ("POST", "commit"): lambda: s.commit(db, table, body),
            ("POST", "rollback"): lambda: versions.rollback(s, db, table, body),
            ("GET", "snapshots"): lambda: versions.list_snapshots(s, db, table, query),
            ("GET", "tags"): lambda: versions.list_tags(s, db, table, query),
            ("POST", "tags"): lambda: versions.create_tag(s, db, table, body),
            ("GET", "branches"): lambda: versions.list_branches(s, db, table),
            ("POST", "branches"): lambda: versions.create_branch(s, db, table, body),
            ("GET", "partitions"): lambda: partitions.list_partitions(s, db, table, query),
            ("POST", "partitions"): lambda: partitions.create_partitions(s, db, table, body),
            ("GET", "consumers"): lambda: consumers.list_consumers(s, db, table, query),
            ("POST", "rollback-schema"): lambda: schemas.rollback_schema(s, db, table, body),
            ("POST", "replace"): lambda: replace.replace_table(s, db, table, body),
            ("POST", "auth"): lambda: query_auth.auth_table_query(s, db, table, body),
        }
        if op in one:
            return one[op]
    if n == 2:
        name = checked(rest[1], rest[0].rstrip("s"))
        if op == ("GET", "snapshots", name):
            return lambda: versions.version_snapshot(s, db, table, name)
        if op == ("GET", "tags", name):
            return lambda: versions.get_tag(s, db, table, name)
        if op == ("DELETE", "tags", name):
            return lambda: versions.delete_tag(s, db, table, name)
        if op == ("DELETE", "branches", name):
            return lambda: versions.drop_branch(s, db, table, name)
        if op == ("POST", "partitions", "drop"):
            return lambda: partitions.drop_partitions(s, db, table, body)
        if op == ("POST", "partitions", "mark"):
            return lambda: partitions.mark_done(s, db, table, body)
        if op == ("POST", "partitions", "list-by-names"):
            return lambda: partitions.list_by_names(s, db, table, body, query)
        if op == ("POST", "partitions", "list-by-filter"):
            return lambda: partitions.list_by_filter(s, db, table, body)
        if op == ("POST", "consumers", "reset"):
            return lambda: consumers.reset_consumer(s, db, table, body)
    if n == 3 and rest[0] == "branches" and method == "POST":
        branch = checked(rest[1], "branch")
        if rest[2] == "rename":
            return lambda: versions.rename_branch(s, db, table, branch, body)
        if rest[2] == "forward":
            return lambda: versions.forward_branch(s, db, table, branch)
    path = "/".join([db, "tables", table, *rest])
    raise RestError(404, f"no such endpoint: {method} /databases/{path}", "UNKNOWN", None)


def _view_route(
    s: CatalogService, method: str, db: str, rest: list[str], body: Any, query: dict[str, str]
) -> Callable[[], Any]:
    if not rest and method == "GET":
        return lambda: views.list_views(s, db, query)
    if not rest and method == "POST":
        return lambda: views.create_view(s, db, body)
    if len(rest) == 1:
        view = checked(rest[0], "view")
        if method == "GET":
            return lambda: views.get_view(s, db, view)
        if method == "DELETE":
            return lambda: views.drop_view(s, db, view)
        if method == "POST":
            return lambda: views.alter_view(s, db, view, body)
    raise RestError(
        404, f"no such endpoint: {method} /databases/{db}/views/{'/'.join(rest)}", "UNKNOWN", None
    )


def _function_route(
    s: CatalogService, method: str, db: str, rest: list[str], body: Any, query: dict[str, str]
) -> Callable[[], Any]:
    if not rest and method == "GET":
        return lambda: functions.list_functions(s, db, query)
    if not rest and method == "POST":
        return lambda: functions.create_function(s, db, body)
    if len(rest) == 1:
        name = checked(rest[0], "function")
        if method == "GET":
            return lambda: functions.get_function(s, db, name)
        if method == "DELETE":
            return lambda: functions.drop_function(s, db, name)
        if method == "POST":
            return lambda: functions.alter_function(s, db, name, body)
    raise RestError(
        404, f"no such endpoint: {method} /databases/{db}/functions/{'/'.join(rest)}", "UNKNOWN", None
    )


def _error(e: RestError) -> JSONResponse:
    return JSONResponse(e.body(), status_code=e.status)


MAX_BODY_BYTES = 16 << 20  # a request body larger than this is refused (413), unread


async def _limited_body(request: Request) -> bytes:
    """The body, or a 413 once it exceeds MAX_BODY_BYTES (by its Content-Length, or while read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise RestError(413, f"request body of {int(declared)} bytes: at most {MAX_BODY_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise RestError(413, f"request body over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def access_line(request: Request, response: Response) -> str:
    """One request in the Common Log Format (Apache's ``%h %l %u %t "%r" %>s %b``), UTC times."""
    client = request.client.host if request.client else "-"
    when = datetime.now(timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000")
    raw = request.scope.get("raw_path") or request.url.path.encode()
    target = raw.decode("latin-1")
    query = request.scope.get("query_string", b"").decode("latin-1")
    if query and "?" not in target:
        target += "?" + query
    size = response.headers.get("content-length", "-")
    if size == "0":
        size = "-"
    version = request.scope.get("http_version", "1.1")
    return f'{client} - - [{when}] "{request.method} {target} HTTP/{version}" {response.status_code} {size}'


def _log_access(line: str) -> None:
    """One write per line: workers sharing stderr never interleave within a line."""
    os.write(2, (line + "\n").encode("utf-8", "replace"))


def health(_request: Request) -> Response:
    """``GET /healthz``: 200 while the server answers (no auth: probes carry no credentials; it
    says nothing about the catalogs)."""
    return JSONResponse({"status": "ok"})


def create_app(
    warehouses: CatalogService | OneWarehouse | WarehouseRoot,
    auth: Checker | str | None = None,
    access_log: bool = False,
) -> Starlette:
    """The ASGI application over ``warehouses`` (one catalog service, or a ``warehouses`` registry);
    ``auth``: the check every request must pass (``rest.auth``; a string is a bearer token; None:
    none); ``access_log``: every request as a Common Log Format line on stderr."""
    registry = OneWarehouse(warehouses) if isinstance(warehouses, CatalogService) else warehouses
    check = bearer(auth) if isinstance(auth, str) else auth

    async def logged(request: Request) -> Response:
        response = await handle(request)
        _log_access(access_line(request, response))
        return response

    async def handle(request: Request) -> Response:
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        try:
            raw = await _limited_body(request) if request.method == "POST" else b""
        except RestError as e:
            return _error(e)
        if check is not None:
            query = request.scope.get("query_string", b"").decode("latin-1")
            path = raw_path.decode("latin-1").split("?", 1)[0]
            refused = check(request.method, path, query, request.headers, raw)
            if refused is not None:
                return _error(RestError(401, refused))
        try:
            parts = segments(raw_path)
            if len(parts) < 2 or parts[0] != "v1":
                raise RestError(404, f"no such endpoint: {request.url.path}", "UNKNOWN", None)
            body: Any = _NO_BODY
            if request.method == "POST":
                try:
                    body = json.loads(raw) if raw else None
                except (ValueError, UnicodeDecodeError):
                    raise RestError(400, "malformed request: the body is not JSON") from None
            if parts[1:] == ["config"] and request.method == "GET":
                warehouse = request.query_params.get("warehouse")
                return JSONResponse(await run_in_threadpool(registry.config, warehouse))
            service = registry.service(parts[1])
            query = dict(request.query_params)
            op = _route(service, request.method, parts[2:], body, query)
            result = await run_in_threadpool(op)
        except RestError as e:
            return _error(e)
        except Exception as e:  # noqa: BLE001 - the spec's 500 body, never a traceback to the client
            log.exception("request failed")
            return _error(RestError(500, f"internal error: {type(e).__name__}: {e}"))
        return Response(status_code=200) if result is None else JSONResponse(result)

    return Starlette(
        routes=[
            Route("/healthz", health, methods=["GET"]),
            Route("/{path:path}", logged if access_log else handle, methods=["GET", "POST", "DELETE"]),
        ]
    )
