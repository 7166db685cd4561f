"""What follows a write's commit, the same for every writer (batch ingest, continuous ingest, the
Spark engine's streaming sink): the compaction Paimon's writers run on the buckets they wrote,
then the commit's housekeeping."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.metadata.snapshot import Snapshot

if TYPE_CHECKING:
    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class AfterWrite:
    """What ran after a write's commit: the compaction's snapshot (None when none ran) and the
    housekeeping (``maintain.after_commit.Housekeeping``)."""

    compaction: Snapshot | None = None
    housekeeping: object = None


def after_write(table: TableContext, messages: list[CommitMessage], batch: bool = False) -> AfterWrite:
    """After a write's commit: Paimon's writers compact the buckets they wrote when a bucket has
    too many sorted runs (``num-sorted-run.compaction-trigger``; off with ``write-only``; nothing
    when ``messages`` is empty, i.e. nothing was committed), then the commit's housekeeping runs
    (``maintain/after_commit.py``; ``batch``: the commit ends a batch write). The data is committed
    already, so a compaction that loses a race to another writer is simply left for the next write."""
    from paimon_core.compaction.compaction import auto_compact
    from paimon_core.errors import CommitConflict
    from paimon_core.maintain.after_commit import after_commit

    compacted = None
    try:
        result = auto_compact(table, messages)
        compacted = result.snapshot if result is not None and isinstance(result.snapshot, Snapshot) else None
    except CommitConflict:
        pass
    return AfterWrite(compacted, after_commit(table, batch=batch))
