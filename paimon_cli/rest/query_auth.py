"""``POST .../tables/{table}/auth`` (authTableQuery): the row filters and column masks a query of
the table must apply. This server grants per server, not per table or column (a bearer token or
DLF keys reach every table), so a query that may reach the server may read the whole table: the
answer is always no filter and no masking, for an existing table and columns it has; an unknown
column is a 400, a missing table 404 ``TABLE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def auth_table_query(svc: CatalogService, db: str, name: str, body: Any) -> dict:
    body = svc.obj(body, "AuthTableQueryRequest")
    select = body.get("select")
    if select is not None and not (isinstance(select, list) and all(isinstance(c, str) for c in select)):
        raise bad_request("malformed request: 'select' must be a list of column names")
    table = svc.table(db, name)
    columns = {f.name for f in table.schema.fields}
    unknown = [c for c in select or () if c not in columns]
    if unknown:
        raise bad_request(f"table '{db}.{name}' has no column '{unknown[0]}'")
    return {"filter": [], "columnMasking": {}}
