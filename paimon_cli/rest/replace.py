"""``replace`` over REST (``POST .../tables/{table}/replace``, Java 2.0's ``ReplaceTableRequest``
``{schema}``, apache/paimon#7860; not in the OpenAPI spec): the table is replaced in place through
``Catalog.replace_table`` (a truncating commit, then the new schema as schema latest+1; its older
snapshots stay readable by time travel). Answers as Java's test server (``replaceTableHandle``):
200 without a body; 404 ``TABLE`` for a missing table (``DATABASE`` for a missing database); 501
for a change of the partition keys or a table that is not a Paimon table with snapshots (Java's
UnsupportedOperationException, which Java's client raises again); 400 for a malformed or invalid
schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request
from paimon_core.catalog.metastore.rest import wire
from paimon_core.errors import InvalidInput

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def replace_table(svc: CatalogService, db: str, name: str, body: Any) -> None:
    body = svc.obj(body, "ReplaceTableRequest")
    try:
        schema = wire.schema_from_json(wire.obj(body.get("schema"), "schema"))
    except InvalidInput as e:
        raise bad_request(str(e)) from None
    svc.table(db, name)  # 404 for a missing table before the schema is judged, as Java's server
    svc.core(lambda: svc.catalog.replace_table(f"{db}.{name}", schema), db, name)
