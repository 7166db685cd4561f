"""Views over REST, kept by the backing catalog (``Catalog`` view operations: JDBC in its
database, Hive in the metastore, filesystem only with ``catalog-objects.jdbc-uri``).

Answers as Java's test server: ``GetViewResponse`` ``{id, name, schema}`` (``schema`` the
ViewSchema; ``id`` is ``db.view``, as no catalog keeps view ids), listings paged and filtered by
``viewNamePattern``/``databaseNamePattern`` like every list, 404 ``VIEW``/``DIALECT``, 409
``VIEW`` (also for a table of that name), 400 for a malformed request, and 501 with resourceType
``VIEW`` where the backing catalog keeps no views (reads there: no views, each one 404).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from paimon_cli.rest.errors import RestError, bad_request
from paimon_cli.rest.names import checked
from paimon_cli.rest.paging import like, max_results, page
from paimon_core.catalog import View, ViewChange
from paimon_core.errors import DatabaseNotFound, InvalidInput, ViewNotFound

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService

VIEW = "VIEW"
T = TypeVar("T")


def catalog_call(svc: CatalogService, fn: Callable[[], T], db: str | None = None, kind: str = VIEW) -> T:
    """``fn()`` with core errors as REST answers; a refusal of the catalog (501) names ``kind``."""
    try:
        return svc.core(fn, db)
    except RestError as e:
        if e.status == 501:
            e.resource_type = kind
        raise


def parsed(read: Callable[[Any], T], value: Any) -> T:
    """``read(value)`` of a core JSON reader; a malformed value is a 400."""
    try:
        return read(value)
    except InvalidInput as e:
        raise bad_request(str(e)) from None


def _identifier(svc: CatalogService, value: Any, what: str) -> tuple[str, str]:
    ident = svc.obj(value, what)
    return checked(ident.get("database"), "database"), checked(ident.get("object"), "view")


def _names(svc: CatalogService, db: str, query: dict) -> list[str]:
    matches = like(query.get("viewNamePattern"))
    return [n for n in catalog_call(svc, lambda: svc.catalog.list_views(db), db) if matches(n)]


def view_response(db: str, name: str, view: View) -> dict:
    return {"id": f"{db}.{name}", "name": name, "schema": view.to_json()}


def list_views(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)  # a bad page size is refused here as on every list
    chunk, token = page(_names(svc, db, query), query)
    return {"views": chunk, "nextPageToken": token}


def list_view_details(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)
    chunk, token = page(_names(svc, db, query), query)
    details = []
    for name in chunk:
        try:
            details.append(view_response(db, name, svc.catalog.get_view(f"{db}.{name}")))
        except ViewNotFound:
            continue  # dropped meanwhile
    return {"viewDetails": details, "nextPageToken": token}


def list_views_globally(svc: CatalogService, query: dict) -> dict:
    max_results(query)
    db_matches, view_matches = like(query.get("databaseNamePattern")), like(query.get("viewNamePattern"))
    found = []
    for db in catalog_call(svc, svc.catalog.list_databases):
        if not db_matches(db):
            continue
        try:
            found.extend((db, n) for n in svc.catalog.list_views(db) if view_matches(n))
        except DatabaseNotFound:
            continue  # dropped meanwhile
    chunk, token = page(found, query, key=lambda x: f"{x[0]}.{x[1]}")
    return {"views": [{"database": d, "object": v} for d, v in chunk], "nextPageToken": token}


def get_view(svc: CatalogService, db: str, name: str) -> dict:
    return view_response(db, name, catalog_call(svc, lambda: svc.catalog.get_view(f"{db}.{name}"), db))


def create_view(svc: CatalogService, db: str, body: Any) -> None:
    body = svc.obj(body, "CreateViewRequest")
    vdb, name = _identifier(svc, body.get("identifier"), "identifier")
    if vdb != db:
        raise bad_request(f"identifier names database {vdb!r}, the path {db!r}")
    view = parsed(View.from_json, svc.obj(body.get("schema"), "schema"))
    catalog_call(svc, lambda: svc.catalog.create_view(f"{db}.{name}", view), db)


def drop_view(svc: CatalogService, db: str, name: str) -> None:
    catalog_call(svc, lambda: svc.catalog.drop_view(f"{db}.{name}"), db)


def rename_view(svc: CatalogService, body: Any) -> None:
    body = svc.obj(body, "RenameTableRequest")
    sdb, sname = _identifier(svc, body.get("source"), "source")
    ddb, dname = _identifier(svc, body.get("destination"), "destination")
    catalog_call(svc, lambda: svc.catalog.rename_view(f"{sdb}.{sname}", f"{ddb}.{dname}"), ddb)


def alter_view(svc: CatalogService, db: str, name: str, body: Any) -> None:
    body = svc.obj(body, "AlterViewRequest")
    changes = body.get("changes")
    if not isinstance(changes, list):
        raise bad_request("malformed request: AlterViewRequest needs a 'changes' list")
    parsed_changes = [parsed(ViewChange.from_json, c) for c in changes]
    catalog_call(svc, lambda: svc.catalog.alter_view(f"{db}.{name}", parsed_changes), db)
