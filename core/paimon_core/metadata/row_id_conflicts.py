"""Commit-time conflicts of data-evolution tables: column files and compactions racing over the
same row ids (the checks Java's committer makes on such tables).

A column file (``ingest --update-columns``) names the row group it updates by its range of row
ids ``[first_row_id, first_row_id + row_count)``; readers merge it with the files of exactly that
range. A compaction may rewrite groups into files of other ranges (several groups in one file,
or rolled at the target size). So:

* a commit that is not a compaction may add a file for existing rows (``first_row_id`` below the
  latest snapshot's ``nextRowId``) only if a live data file of the latest snapshot has exactly
  its range (a ``.blob`` file: a range holding it), or files this same commit deletes cover it:
  otherwise a concurrent compaction or overwrite rewrote those rows after they were read;
* after a compaction, the live data files (not ``.blob``) whose row-id ranges overlap must all
  have the same range: otherwise a column file committed while the compaction ran would be
  merged with files of another range.

Invariant: a commit that either check refuses lands nothing (``FileStoreCommit`` raises
``CommitConflict`` before the snapshot is created).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.fileformat.blob import is_blob_file

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.metadata.manifest import DataFileMeta, ManifestEntry


def _span(f: DataFileMeta) -> tuple[int, int]:
    start = f.first_row_id or 0
    return start, start + f.row_count


def _covered(lo: int, hi: int, spans: list[tuple[int, int]]) -> bool:
    """Whether the union of ``spans`` holds every id of ``[lo, hi)``."""
    at = lo
    for s, e in sorted(spans):
        if s > at:
            return False
        at = max(at, e)
        if at >= hi:
            return True
    return at >= hi


def stale_row_update(
    live: Iterable[ManifestEntry],
    adds: Iterable[ManifestEntry],
    deletes: Iterable[ManifestEntry],
    next_row_id: int,
) -> DataFileMeta | None:
    """The first added file of a non-compaction commit that names rows no live file holds in
    its range any more (see the module); None when there is none."""
    exact: set[tuple[bytes, int, tuple[int, int]]] = set()
    data_spans: dict[tuple[bytes, int], list[tuple[int, int]]] = {}
    for e in live:
        f = e.file
        if f.first_row_id is not None and not is_blob_file(f.file_name):
            exact.add((e.partition, e.bucket, _span(f)))
            data_spans.setdefault((e.partition, e.bucket), []).append(_span(f))
    deleted: dict[tuple[bytes, int], list[tuple[int, int]]] = {}
    for e in deletes:
        if e.file.first_row_id is not None:
            deleted.setdefault((e.partition, e.bucket), []).append(_span(e.file))
    for e in adds:
        f = e.file
        if f.first_row_id is None or f.first_row_id >= next_row_id:
            continue
        where = (e.partition, e.bucket)
        lo, hi = _span(f)
        if is_blob_file(f.file_name):
            if any(s <= lo and hi <= end for s, end in data_spans.get(where, ())):
                continue
        elif (e.partition, e.bucket, (lo, hi)) in exact:
            continue
        if _covered(lo, hi, deleted.get(where, [])):
            continue
        return f
    return None


def mixed_ranges(live_after: Iterable[ManifestEntry]) -> tuple[DataFileMeta, DataFileMeta] | None:
    """Two live data files (not ``.blob``) whose row-id ranges overlap without being the same,
    in the table a compaction would leave; None when ranges only ever coincide."""
    by_bucket: dict[tuple[bytes, int], list[DataFileMeta]] = {}
    for e in live_after:
        f = e.file
        if f.first_row_id is not None and not is_blob_file(f.file_name):
            by_bucket.setdefault((e.partition, e.bucket), []).append(f)
    for files in by_bucket.values():
        files.sort(key=_span)
        group_span: tuple[int, int] | None = None
        first: DataFileMeta | None = None
        for f in files:
            span = _span(f)
            if group_span is not None and first is not None and span[0] < group_span[1]:
                if span != group_span:
                    return first, f
                continue
            group_span, first = span, f
    return None
