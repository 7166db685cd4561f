"""Facts about the LSM levels of a primary-key table that writers and compaction share: the top
level, and which tables must never leave a write in level 0."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.options.merge_engine import MergeEngineKind

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


def forces_level0_compaction(table: TableContext) -> bool:
    """Paimon's writers move every write out of level 0 at once for first-row tables (whose
    batch reads skip level 0, docs/format.md section 10) and lookup-changelog tables."""
    from paimon_core.metadata.deletion_vectors import dv_enabled

    opts = table.schema.core_options
    return table.is_primary_key_table and (
        opts.merge_engine is MergeEngineKind.FIRST_ROW
        or opts.changelog_producer == "lookup"
        or dv_enabled(table)
    )


def max_level(table: TableContext) -> int:
    return table.schema.core_options.num_levels - 1
