"""Row ids of row-tracking tables (``row-tracking.enabled``, ``data-evolution.enabled``; Paimon
1.3+, unaware-bucket append tables only), assigned at commit as Java's committer assigns them.

Invariants: every row of such a table has a unique ``_ROW_ID``. A commit gives each added file
written by an append (``_FILE_SOURCE`` APPEND) that has no ``_FIRST_ROW_ID`` the next ids, in
the order of the commit's entries: ``first_row_id = next``, ``next += row_count``; the snapshot's
``nextRowId`` is the id after the last one given (carried unchanged by commits that add none).
Every appended file's sequence numbers are the id of the snapshot that adds it (Java does the
same: ``_SEQUENCE_NUMBER`` of a row-tracking row is its snapshot).
A ``.blob`` file (BLOB columns, Paimon 1.4) continues its column's previous ``.blob`` file from
the first row id of the data file written before it, as Java's ``RowTrackingCommitUtils`` does:
its rows are that data file's, it takes no new ids.
Files that already have a first row id (compaction output, data-evolution column files, which
update rows that exist) keep it. A snapshot without ``nextRowId`` (row tracking enabled later)
counts from 0, as Java does; ids are never given twice: the count starts past the highest id a
live file holds when the snapshot's ``nextRowId`` is behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import DATA_EVOLUTION_ENABLED, ROW_TRACKING_ENABLED

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import ManifestEntry
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.snapshot import Snapshot


def row_tracking(schema: TableSchema) -> bool:
    """Rows have ids (data evolution implies row tracking)."""
    opts = CoreOptions(schema.options)
    return bool(opts.get(ROW_TRACKING_ENABLED)) or bool(opts.get(DATA_EVOLUTION_ENABLED))


def data_evolution(schema: TableSchema) -> bool:
    return bool(CoreOptions(schema.options).get(DATA_EVOLUTION_ENABLED))


def next_free_row_id(latest: Snapshot | None, live: list[ManifestEntry]) -> int:
    """The first row id no live file holds: the snapshot's ``nextRowId``, or past the highest
    id a live file holds when that is larger (a Java 1.3 development build left ``nextRowId``
    at 0 on a data-evolution table whose files hold ids 0..9)."""
    start = (latest.next_row_id if latest is not None else None) or 0
    ends = [e.file.first_row_id + e.file.row_count for e in live if e.file.first_row_id is not None]
    return max([start, *ends])


def assign_row_ids(
    adds: list[ManifestEntry], start: int, snapshot_id: int
) -> tuple[list[ManifestEntry], int]:
    """``adds`` with first row ids from ``start`` given to appended files that have none, and
    the next row id.
    Appended files also get ``snapshot_id`` as their sequence numbers (a row's
    ``_SEQUENCE_NUMBER`` is the snapshot that wrote it; data evolution's newest file wins)."""
    from paimon_core.fileformat.blob import is_blob_file
    from paimon_core.metadata.manifest import ADD, FILE_SOURCE_APPEND

    out = []
    data_start = start  # first row id of the last data file given ids
    blob_next: dict[str, int] = {}  # BLOB column -> the id its next .blob file starts at
    for e in adds:
        f = e.file
        if e.kind == ADD and f.file_source in (FILE_SOURCE_APPEND, None):
            f = f._replace(min_sequence_number=snapshot_id, max_sequence_number=snapshot_id)
            if f.first_row_id is None and is_blob_file(f.file_name) and f.write_cols:
                column = f.write_cols[0]
                f = f._replace(first_row_id=blob_next.get(column, data_start))
                blob_next[column] = (f.first_row_id or 0) + f.row_count
            elif f.first_row_id is None:
                f = f._replace(first_row_id=start)
                data_start, blob_next = start, {}
                start += f.row_count
            e = e._replace(file=f)
        out.append(e)
    return out, start
