"""Functions over REST, kept by the backing catalog (``Catalog`` function operations: JDBC in its
database's ``paimon_functions``; filesystem and Hive only with ``catalog-objects.jdbc-uri``).

Answers as Java's test server: ``GetFunctionResponse`` (the function's fields and ``uuid``,
``db.name`` here), listings paged and filtered by ``functionNamePattern``/``databaseNamePattern``,
404 ``FUNCTION``/``DEFINITION``, 409 ``FUNCTION``/``DEFINITION``, 400 for a malformed request or a
name Java's ``RESTFunctionValidator`` refuses, 501 with resourceType ``FUNCTION`` where the backing
catalog keeps no functions (reads there: none, each one 404).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request
from paimon_cli.rest.paging import like, max_results, page
from paimon_cli.rest.views import catalog_call, parsed
from paimon_core.catalog import Function, FunctionChange
from paimon_core.errors import DatabaseNotFound, FunctionNotFound

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService

FUNCTION = "FUNCTION"


def _names(svc: CatalogService, db: str, query: dict) -> list[str]:
    matches = like(query.get("functionNamePattern"))
    return [n for n in catalog_call(svc, lambda: svc.catalog.list_functions(db), db, FUNCTION) if matches(n)]


def function_response(db: str, function: Function) -> dict:
    return {"uuid": f"{db}.{function.name}", **function.to_json()}


def list_functions(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)
    chunk, token = page(_names(svc, db, query), query)
    return {"functions": chunk, "nextPageToken": token}


def list_function_details(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)
    chunk, token = page(_names(svc, db, query), query)
    details = []
    for name in chunk:
        try:
            details.append(function_response(db, svc.catalog.get_function(f"{db}.{name}")))
        except FunctionNotFound:
            continue  # dropped meanwhile
    return {"functionDetails": details, "nextPageToken": token}


def list_functions_globally(svc: CatalogService, query: dict) -> dict:
    max_results(query)
    db_matches = like(query.get("databaseNamePattern"))
    fn_matches = like(query.get("functionNamePattern"))
    found = []
    for db in catalog_call(svc, svc.catalog.list_databases, None, FUNCTION):
        if not db_matches(db):
            continue
        try:
            found.extend((db, n) for n in svc.catalog.list_functions(db) if fn_matches(n))
        except DatabaseNotFound:
            continue
    chunk, token = page(found, query, key=lambda x: f"{x[0]}.{x[1]}")
    return {"functions": [{"database": d, "object": f} for d, f in chunk], "nextPageToken": token}


def get_function(svc: CatalogService, db: str, name: str) -> dict:
    got = catalog_call(svc, lambda: svc.catalog.get_function(f"{db}.{name}"), db, FUNCTION)
    return function_response(db, got)


def create_function(svc: CatalogService, db: str, body: Any) -> None:
    body = svc.obj(body, "CreateFunctionRequest")
    if not isinstance(body.get("name"), str):
        raise bad_request("malformed request: CreateFunctionRequest needs 'name'")
    function = parsed(Function.from_json, body)
    catalog_call(svc, lambda: svc.catalog.create_function(f"{db}.{function.name}", function), db, FUNCTION)


def drop_function(svc: CatalogService, db: str, name: str) -> None:
    catalog_call(svc, lambda: svc.catalog.drop_function(f"{db}.{name}"), db, FUNCTION)


def alter_function(svc: CatalogService, db: str, name: str, body: Any) -> None:
    body = svc.obj(body, "AlterFunctionRequest")
    changes = body.get("changes")
    if not isinstance(changes, list):
        raise bad_request("malformed request: AlterFunctionRequest needs a 'changes' list")
    parsed_changes = [parsed(FunctionChange.from_json, c) for c in changes]
    catalog_call(svc, lambda: svc.catalog.alter_function(f"{db}.{name}", parsed_changes), db, FUNCTION)
