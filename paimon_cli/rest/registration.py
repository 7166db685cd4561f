"""``RegisterTable`` over REST: ``{identifier, path}`` registers the Paimon table whose folder
(schema files) is at ``path`` under ``identifier``, through ``Catalog.register_table``; the
table's files are neither read beyond its schema nor changed.

Where a table can be registered: Hive keeps each table's location, so any folder on the
warehouse's storage; JDBC and filesystem keep none (a table is ``<warehouse>/<db>.db/<t>``),
so only that folder. Answers: 404 ``DATABASE`` for an unknown database, 409 ``TABLE`` when the
identifier is taken (on the filesystem catalog a table at its place is listed already, so
registering it is always this), 400 for another path there, a path off the warehouse's storage,
or a folder without schema files. Java's own catalogs (filesystem, JDBC, Hive) have no
registerTable at all (UnsupportedOperationException); only its REST catalog sends it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request
from paimon_cli.rest.names import checked

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def register_table(svc: CatalogService, db: str, body: Any) -> None:
    body = svc.obj(body, "RegisterTableRequest")
    ident = svc.obj(body.get("identifier"), "identifier")
    if ident.get("database", db) != db:
        raise bad_request(f"identifier names database {ident.get('database')!r}, the path {db!r}")
    name = checked(ident.get("object"), "table")
    path = body.get("path")
    if not isinstance(path, str) or not path.strip():
        raise bad_request("malformed request: RegisterTableRequest needs 'path' (the table's folder)")
    svc.require_database(db)
    svc.core(lambda: svc.catalog.register_table(f"{db}.{name}", path), db, name)
