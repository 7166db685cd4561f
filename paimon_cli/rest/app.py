"""The HTTP layer: a Starlette application serving the Paimon REST catalog API
(apache/paimon ``docs/static/rest-catalog-open-api.yaml``) over a ``CatalogService``.

Routing is done on the raw path, one percent-decoded segment at a time, so an encoded ``/`` in a
name stays inside its segment (and is refused there) instead of making a different route. Every
request but none is checked for the bearer token first when the server has one: a missing or
wrong token is a 401 with the spec's error body and nothing runs. Catalog work runs in Starlette's
thread pool; every answer is JSON (the spec's response or ``ErrorResponse``) or empty (200).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from paimon_cli.rest.errors import RestError
from paimon_cli.rest.names import checked, segments
from paimon_cli.rest.service import CatalogService

log = logging.getLogger("paimon.rest")
_NO_BODY = object()


def _route(service: CatalogService, method: str, parts: list[str], body: Any) -> Callable[[], Any]:
    """The operation for ``method`` on the path ``parts`` (after ``v1/<prefix>``)."""
    s = service
    n = len(parts)
    if n == 1 and parts[0] == "databases":
        if method == "GET":
            return s.list_databases
        if method == "POST":
            return lambda: s.create_database(body)
    if n == 2 and parts == ["tables", "rename"] and method == "POST":
        return lambda: s.rename_table(body)
    if n >= 2 and parts[0] == "databases":
        db = checked(parts[1], "database")
        if n == 2:
            if method == "GET":
                return lambda: s.get_database(db)
            if method == "DELETE":
                return lambda: s.drop_database(db)
        if n == 3 and parts[2] == "tables":
            if method == "GET":
                return lambda: s.list_tables(db)
            if method == "POST":
                return lambda: s.create_table(db, body)
        if n >= 4 and parts[2] == "tables":
            table = checked(parts[3], "table")
            if n == 4:
                if method == "GET":
                    return lambda: s.get_table(db, table)
                if method == "POST":
                    return lambda: s.alter_table(db, table, body)
                if method == "DELETE":
                    return lambda: s.drop_table(db, table)
            if n == 5:
                op = (method, parts[4])
                if op == ("GET", "token"):
                    return lambda: s.table_token(db, table)
                if op == ("GET", "snapshot"):
                    return lambda: s.table_snapshot(db, table)
                if op == ("POST", "commit"):
                    return lambda: s.commit(db, table, body)
    raise RestError(404, f"no such endpoint: {method} /{'/'.join(parts)}", "UNKNOWN", None)


def _error(e: RestError) -> JSONResponse:
    return JSONResponse(e.body(), status_code=e.status)


def create_app(service: CatalogService, token: str | None = None) -> Starlette:
    """The ASGI application; ``token``: the bearer token every request must carry (None: none)."""
    expected = f"Bearer {token}".encode() if token else None

    async def handle(request: Request) -> Response:
        if expected is not None:
            given = request.headers.get("authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return _error(RestError(401, "missing or wrong bearer token"))
        try:
            parts = segments(request.scope.get("raw_path") or request.url.path.encode())
            if len(parts) < 2 or parts[0] != "v1":
                raise RestError(404, f"no such endpoint: {request.url.path}", "UNKNOWN", None)
            body: Any = _NO_BODY
            if request.method == "POST":
                raw = await request.body()
                try:
                    body = json.loads(raw) if raw else None
                except (ValueError, UnicodeDecodeError):
                    raise RestError(400, "malformed request: the body is not JSON") from None
            if parts[1:] == ["config"] and request.method == "GET":
                return JSONResponse(service.config())
            if parts[1] != service.prefix:
                raise RestError(404, f"unknown prefix {parts[1]!r}", "UNKNOWN", parts[1])
            result = await run_in_threadpool(_route(service, request.method, parts[2:], body))
        except RestError as e:
            return _error(e)
        except Exception as e:  # noqa: BLE001 - the spec's 500 body, never a traceback to the client
            log.exception("request failed")
            return _error(RestError(500, f"internal error: {type(e).__name__}: {e}"))
        return Response(status_code=200) if result is None else JSONResponse(result)

    return Starlette(routes=[Route("/{path:path}", handle, methods=["GET", "POST", "DELETE"])])
