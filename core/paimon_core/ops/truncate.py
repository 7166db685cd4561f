"""TRUNCATE: every row of a table, or of the partitions a spec names, removed in one OVERWRITE
commit whose operation is TRUNCATE, as Java's ``truncateTable`` / ``truncatePartitions`` (SQL's
``TRUNCATE TABLE db.t [PARTITION (k = 'v')]``, a ``DELETE FROM db.t`` without a filter).

Nothing is rewritten: the new snapshot lists no file of what it truncates. Earlier snapshots
still read the rows (time travel) until they expire. A partial spec names every partition it
matches; a spec matching none is refused (NotFound), a table with nothing live is left as is
(no snapshot)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.maintain.partitions import drop_partitions, matching
from paimon_core.read.partition_spec import parse_partition_spec

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


def truncated_partitions(table: TableContext, spec: dict | str | None) -> list[tuple] | None:
    """The live partitions (value tuples) ``spec`` names (``{key: string}`` or ``k=v,k2=v2``,
    possibly partial); None for no spec (the whole table)."""
    parsed = parse_partition_spec(table, spec)
    return None if parsed is None else matching(table, [parsed])


def truncate(table: TableContext, partitions: Sequence[tuple] | None = None) -> Snapshot | None:
    """Remove every live file of ``partitions`` (None: of the whole table) in one commit; returns
    its snapshot, None when there was nothing to remove."""
    table.require_writable()
    if partitions is not None:
        return drop_partitions(table, partitions)
    return FileStoreCommit(table, CommitOptions(overwrite=True, operation="TRUNCATE")).commit([])
