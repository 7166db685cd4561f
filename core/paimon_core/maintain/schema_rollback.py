"""Rolling a table's schema back: make schema N the latest again by deleting the newer ones.

Invariant (as Java's ``SchemaManager.rollbackTo``): a schema still named by a snapshot, a tag or
a long-lived changelog is never deleted, so the rollback is refused when any of them uses a
schema newer than N; nothing is deleted then. Newer schemas go newest first, under the table's
commit lock, so a reader never sees a gap below the latest schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


def schemas_in_use(table: TableContext) -> set[int]:
    """The schema ids named by the table's snapshots, tags and long-lived changelogs."""
    from paimon_core.metadata.changelog import changelog_manager
    from paimon_core.metadata.tags import tag_manager

    used = {s.schema_id for s in table.snapshots.snapshots()}
    used |= {s.schema_id for s in tag_manager(table).tagged().values()}
    used |= {s.schema_id for s in changelog_manager(table).snapshots()}
    return used


def rollback_schema(table: TableContext, schema_id: int) -> list[int]:
    """Delete every schema newer than ``schema_id``; the ids deleted (InvalidInput when
    ``schema_id`` does not exist or a newer schema is still in use)."""
    schemas = table.schemas
    with table.env.lock():
        ids = schemas.list_ids()
        if schema_id not in ids:
            raise InvalidInput(f"table {table.identifier} has no schema {schema_id}")
        newer_used = sorted(i for i in schemas_in_use(table) if i > schema_id)
        if newer_used:
            raise InvalidInput(
                f"cannot roll table {table.identifier} back to schema {schema_id}: schema "
                f"{newer_used[0]} is still used by a snapshot, tag or changelog"
            )
        doomed = sorted((i for i in ids if i > schema_id), reverse=True)
        for i in doomed:
            table.io.delete(schemas.path(i))
    return doomed
