"""``alter-table``'s changes with the checks that need the table's data: a change that narrows a
column (STRING -> INT, BIGINT -> INT, ...) is committed only if every value the latest snapshot
stores fits the new type (``read/retype_check.py``); the rules on the schema alone are
``metadata/schema_evolution.py``'s. A refused change writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.metadata import schema_evolution
from paimon_core.read.retype_check import check_stored_values

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.schema_evolution import SchemaChange
    from paimon_core.metadata.table_context import TableContext


def check_data_fits(table: TableContext, old: TableSchema, new: TableSchema) -> None:
    """Raise InvalidInput when ``new`` narrows a column of ``old`` below a stored value."""
    check_stored_values(table.with_schema(old), new)


def preview_changes(table: TableContext, changes: Sequence[SchemaChange]) -> TableSchema:
    """The schema ``changes`` would make, after every check ``alter_table`` runs (stored data
    included), writing nothing: a dry run."""
    new = schema_evolution.apply_changes(
        table.schema, changes, has_snapshot=table.snapshots.latest() is not None
    )
    check_data_fits(table, table.schema, new)
    return new


def alter_table(table: TableContext, changes: Sequence[SchemaChange]) -> TableContext:
    """Commit ``changes`` (checked against the stored data: ``check_data_fits``) through the
    table's catalog, then let the catalog follow; returns the table at the new schema."""
    new = table.env.commit_schema_changes(table, changes, lambda old, new: check_data_fits(table, old, new))
    table.env.after_schema_change(table, new)
    return table.with_schema(new)
