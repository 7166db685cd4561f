"""``rollback-schema`` over REST: ``{schemaId}`` makes that schema the table's latest again by
deleting the newer ones (``maintain/schema_rollback.py``), as Java's server does through
``SchemaManager.rollbackTo``. A schema that does not exist, or a newer one still used by a
snapshot, tag or changelog, is a 400 and nothing is deleted (Java's server answers 500 there;
a bad request is never a 500 here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def rollback_schema(svc: CatalogService, db: str, name: str, body: Any) -> None:
    from paimon_core.maintain import rollback_schema as core_rollback

    body = svc.obj(body, "RollbackSchemaRequest")
    schema_id = body.get("schemaId")
    if not isinstance(schema_id, int) or isinstance(schema_id, bool) or schema_id < 0:
        raise bad_request("malformed request: RollbackSchemaRequest needs 'schemaId' (a schema id)")
    table = svc.table(db, name)
    svc.core(lambda: core_rollback(table, schema_id), db, name)
