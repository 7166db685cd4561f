"""``alterDatabase`` over REST: ``{removals, updates}`` applied to the database's properties by
the backing catalog (``Catalog.alter_database``), answered with ``{removed, updated,
missing}``: the removals the database had, the keys set, and the removals it did not have.

Where the catalog stores no properties (filesystem, as Java's ``FileSystemCatalog`` throws
UnsupportedOperationException) a non-empty change is 501 with the spec's error body; an empty
one is answered with three empty lists, as Java accepts it without a look. A key both set and
removed, or one the catalog keeps itself (``location``; JDBC's ``exists`` marker), is a 400.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def alter_database(svc: CatalogService, db: str, body: Any) -> dict:
    body = svc.obj(body, "AlterDatabaseRequest")
    removals = body.get("removals") or []
    updates = body.get("updates") or {}
    if not isinstance(removals, list) or not all(isinstance(k, str) and k for k in removals):
        raise bad_request("malformed request: 'removals' must be a list of property names")
    if not isinstance(updates, dict) or not all(isinstance(v, str) for v in updates.values()):
        raise bad_request("malformed request: 'updates' must map property names to strings")
    if any(not k for k in updates):
        raise bad_request("malformed request: a property name is empty")
    svc.require_database(db)
    done = svc.core(lambda: svc.catalog.alter_database(db, updates, removals), db)
    return {"removed": done.removed, "updated": done.updated, "missing": done.missing}
