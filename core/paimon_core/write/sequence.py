"""Where a writer's sequence numbers continue: the highest one stored per (partition, bucket).

Invariant: a writer numbers its records above every record already stored in its bucket, so a
newer write always wins a merge on sequence number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.metadata.live_files import live_entries

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_core.metadata.table_context import TableContext


def sequence_restorer(table: TableContext) -> Callable[[tuple, int], int]:
    """(partition, bucket) -> the highest sequence number stored there (-1 if none), from the
    latest snapshot, read once on first use: where a writer's sequence numbers continue."""
    cache: dict | None = None

    def restore(partition: tuple, bucket: int) -> int:
        nonlocal cache
        if cache is None:
            cache = {}
            for e in live_entries(table.manifests, table.snapshots.latest()):
                k = (e.partition, e.bucket)
                cache[k] = max(cache.get(k, -1), e.file.max_sequence_number)
        return cache.get((table.partition_codec.to_bytes(partition), bucket), -1)

    return restore
