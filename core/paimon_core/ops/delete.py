"""DELETE ... WHERE: remove the rows a predicate matches, in one commit.

* Append tables with ``deletion-vectors.enabled``: the matching rows' positions are added to
  their files' deletion vectors; each touched (partition, bucket) gets one new index file
  that replaces its old ones (one COMPACT snapshot, data files untouched).
* Append tables without deletion vectors: each file holding a matching row is rewritten
  without those rows (one OVERWRITE snapshot; a file left empty is just removed).
* Primary-key tables: a ``-D`` record is written for every matching key (one APPEND
  snapshot), as Java's DELETE does; the writer's usual compaction follows (with deletion
  vectors, it marks the old rows deleted). Only merge engines for which ``-D`` removes the row
  are accepted.

Rows already deleted (by a deletion vector) never match again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit, discard_files
from paimon_core.data.system_columns import ROW_POS
from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.maintain.after_commit import after_commit
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.deletion_vectors import dv_enabled
from paimon_core.metadata.manifest import FILE_SOURCE_COMPACT
from paimon_core.metadata.merge_options import MergeOptions
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import DATA_FILE_PREFIX
from paimon_core.read.predicate import filter_table, parse_filter
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead, read_rows

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class DeleteResult:
    rows: int  # rows deleted (or, with dry_run, that would be)
    files: int  # data files affected (PK tables: buckets written to)
    mode: str  # "deletion vectors" | "rewrite" | "delete records"
    snapshot: object = None
    after: object = None  # after_write.AfterWrite: the compaction and housekeeping that followed


def delete_where(table: TableContext, where: str, dry_run: bool = False) -> DeleteResult:
    if not where or not where.strip():
        raise InvalidInput("delete needs a filter (to empty a table, truncate it)").with_hint("delete_where")
    from paimon_core.write.cross_partition_guard import refuse

    refuse(table, "delete", "a batch ingest of -D records deletes keys")
    from paimon_core.metadata.features import blob_columns

    if blob_columns(table.schema):
        raise UnsupportedFeature(
            f"table {table.identifier} has BLOB columns ({', '.join(blob_columns(table.schema))}): "
            "deleting rows from it is not supported (its rows span data and .blob files)"
        )
    pred = parse_filter(table.schema, where)
    assert pred is not None  # where is not empty: checked above
    snap = table.snapshots.latest()
    if table.is_primary_key_table:
        return _delete_pk(table, snap, pred, where, dry_run)
    splits = plan(table, snap, pred) if snap is not None else []
    reader = TableRead(table, sorted(pred.columns()), pred)
    hits = []  # (split, file, matched positions)
    for s in splits:
        for f in s.files:
            t = filter_table(reader.read_file(s, f, False, with_position=True), pred)
            if t.num_rows:
                hits.append((s, f, t.column(ROW_POS).to_numpy()))
    rows = sum(len(p) for _, _, p in hits)
    mode = "deletion vectors" if dv_enabled(table) else "rewrite"
    if dry_run or not hits:
        return DeleteResult(rows, len(hits), mode)
    messages = _dv_messages(table, hits) if mode == "deletion vectors" else _rewrite_messages(table, hits)
    result = FileStoreCommit(table, CommitOptions(operation="DELETE")).commit(
        messages, kind="COMPACT" if mode == "deletion vectors" else "OVERWRITE"
    )
    from paimon_core.ops.after_write import AfterWrite

    return DeleteResult(rows, len(hits), mode, result, AfterWrite(None, after_commit(table)))


def _dv_messages(table: TableContext, hits) -> list[CommitMessage]:
    from paimon_core.compaction.dv_compaction import bucket_vectors, index_changes

    by_split: dict[int, list] = {}
    for s, f, pos in hits:
        by_split.setdefault(id(s), [s]).append((f, pos))
    messages, written = [], []
    try:
        for s, *files in by_split.values():
            vectors = bucket_vectors(table, s)
            for f, pos in files:
                vectors[f.file_name] = np.union1d(vectors.get(f.file_name, np.empty(0, np.int64)), pos)
            added, deleted = index_changes(table, s, vectors, written)
            messages.append(
                CommitMessage(s.partition, s.bucket, s.total_buckets, new_index=added, deleted_index=deleted)
            )
    except BaseException:
        for p in written:
            table.io.delete(p)
        raise
    return messages


def _rewrite_messages(table: TableContext, hits) -> list[CommitMessage]:
    from paimon_core.compaction.bucket_compaction import check_compactable, drop_vectors
    from paimon_core.metadata.row_ids import row_tracking
    from paimon_core.write.append_writer import RollingFileWriter

    reader = TableRead(table)
    tracked = row_tracking(table.schema)  # kept rows keep their _ROW_ID
    prefix = table.schema.core_options.get(DATA_FILE_PREFIX)
    by_split: dict[int, list] = {}
    for s, f, pos in hits:
        by_split.setdefault(id(s), [s]).append((f, pos))
    messages: list[CommitMessage] = []
    try:
        for s, *files in by_split.values():
            before, after = [], []
            for f, pos in files:
                if tracked:
                    check_compactable(table, [f])
                    data = reader.read_tracked_file(s, f, with_position=True)
                else:
                    data = reader.read_file(s, f, False, with_position=True)
                keep = data.filter(pc.invert(pc.is_in(data.column(ROW_POS), pa.array(pos)))).drop_columns(
                    [ROW_POS]
                )
                before.append(f)
                if keep.num_rows:
                    w = RollingFileWriter(
                        table, s.partition, s.bucket, f.min_sequence_number, prefix, tracked=tracked
                    )
                    try:
                        w.write(keep)
                        after += [a._replace(file_source=FILE_SOURCE_COMPACT) for a in w.close()]
                    except BaseException:
                        w.abort()
                        raise
            index_written: list = []
            added, deleted = drop_vectors(table, s, before, index_written)
            messages.append(
                CommitMessage(
                    s.partition,
                    s.bucket,
                    s.total_buckets,
                    compact_before=tuple(before),
                    compact_after=tuple(after),
                    new_index=added,
                    deleted_index=deleted,
                )
            )
    except BaseException:
        discard_files(table, messages)
        raise
    return messages


def _delete_pk(table: TableContext, snap, pred, where: str, dry_run: bool) -> DeleteResult:
    mo = MergeOptions.of(table.schema.options)
    engine = mo.engine.value
    removes = mo.engine is MergeEngineKind.DEDUPLICATE or (
        mo.engine is MergeEngineKind.PARTIAL_UPDATE and mo.remove_on_delete
    )
    if not removes:
        raise InvalidInput(
            f"delete on a primary-key table with merge-engine={engine} is not supported "
            "(a -D record does not remove the row there)"
        )
    if mo.ignore_delete:  # under any of its keys (deduplicate.ignore-delete, ...)
        raise InvalidInput("delete on a table with ignore-delete=true would be ignored")
    rows = read_rows(table, snap, predicate=pred) if snap is not None else None
    if rows is None or rows.num_rows == 0:
        return DeleteResult(0, 0, "delete records")
    if dry_run:
        return DeleteResult(rows.num_rows, 0, "delete records")
    kinds = pa.array(np.full(rows.num_rows, "-D", dtype=object), pa.string())
    column = "__paimon_delete_kind"
    from paimon_core.ops.ingest import write_tables

    result = write_tables(
        table, [rows.append_column(column, kinds)], row_kind_column=column, operation="DELETE"
    )
    return DeleteResult(rows.num_rows, result.files, "delete records", result.snapshot, result.after)
