"""Reading splits into Arrow: columns mapped by field id across schema versions, and for
primary-key tables merge-on-read of all sorted runs of a bucket.

A file written under an older schema is read by field id: renamed columns keep their data,
dropped ones vanish, added ones read as null, widened ones are cast. Filters on non-key
columns of a PK table apply only after merging (a file's row may be superseded elsewhere).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from paimon_core.data.system_columns import KIND, ROW_POS, SEQ
from paimon_core.data.types import AtomicType, to_arrow_type
from paimon_core.fileformat.formats import read_data_file
from paimon_core.merge.merge_engines import MergeEngine
from paimon_core.metadata.deletion_vectors import DeletionVectorReader, dv_enabled
from paimon_core.metadata.features import check_file, check_readable
from paimon_core.metadata.live_files import expiry_checked
from paimon_core.metadata.schema_evolution import cast_for_read
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.read.predicate import Predicate, filter_table
from paimon_core.read.scan import DataSplit, plan

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext


_SEQ_TYPE, _KIND_TYPE = AtomicType(False, "BIGINT"), AtomicType(False, "TINYINT")
READ_THREADS = min(4, os.cpu_count() or 1)


def _ordered_parallel(fn, items, window: int):
    """``fn`` over ``items`` with up to ``window`` in flight; results in input order."""
    if window <= 1 or len(items) <= 1:
        for it in items:
            yield fn(it)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(window) as pool:
        pending = deque()
        for it in items:
            pending.append(pool.submit(fn, it))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def file_levels(files: Sequence[DataFileMeta], parts: list[pa.Table]) -> np.ndarray:
    """The LSM level of every record of ``parts`` (one table per file of ``files``)."""
    import numpy as np

    return np.repeat(np.array([f.level for f in files], dtype=np.int32), [p.num_rows for p in parts])


def seq_ordered(files: Sequence[DataFileMeta]) -> list | None:
    """``files`` by sequence number when their ranges [min, max] are pairwise disjoint (then the
    order of the files and of the records within each orders all records by sequence), else None.
    Assumes each file's range holds its records' sequence numbers and a file stores the records
    of one key in sequence order (every writer merges or sorts by key, then sequence)."""
    if len(files) < 2:
        return list(files) if files else None
    by_seq = sorted(files, key=lambda f: (f.min_sequence_number, f.max_sequence_number))
    for a, b in zip(by_seq, by_seq[1:]):
        if a.min_sequence_number > a.max_sequence_number or b.min_sequence_number <= a.max_sequence_number:
            return None
    last = by_seq[-1]
    return by_seq if last.min_sequence_number <= last.max_sequence_number else None


class TableRead:
    def __init__(
        self, table: TableContext, columns: list[str] | None = None, predicate: Predicate | None = None
    ):
        check_readable(table.schema)
        self.table = table
        self.schema = table.schema
        self.columns = list(columns) if columns else self.schema.field_names
        for c in self.columns:
            self.schema.field(c)  # raises InvalidInput for unknown columns
        self.predicate = predicate
        needed = set(self.columns) | (predicate.columns() if predicate else set())
        self.read_columns = [n for n in self.schema.field_names if n in needed]
        self.is_pk = bool(self.schema.primary_keys)
        self.dv_mode = self.is_pk and dv_enabled(table)
        self._dvs: DeletionVectorReader | None = None
        if self.is_pk:
            from paimon_core.metadata.merge_options import sequence_fields, sequence_groups

            keys = set(self.schema.trimmed_primary_keys) | set(sequence_fields(self.schema.options))
            keys |= {s for seqs, _ in sequence_groups(self.schema.options) for s in seqs}
            self.read_columns = [n for n in self.schema.field_names if n in needed or n in keys]

    # ---- one file
    def read_file(
        self,
        split: DataSplit,
        f: DataFileMeta,
        system_columns: bool,
        with_position: bool = False,
        sequence: bool = True,
    ) -> pa.Table:
        """Columns of the current schema (``self.read_columns``) from one file, by field id, without
        the rows its deletion vector (if any) marks deleted; ``with_position`` adds ``_ROW_POS``,
        each row's 0-based position in the file. ``system_columns`` adds ``_SEQUENCE_NUMBER`` (unless
        ``sequence`` is False) and ``_VALUE_KIND``."""
        check_file(f)
        file_schema, ids = self._file_schema(split, f)
        by_id = {fld.id: fld for fld in file_schema.fields}
        wanted, renames = [], []
        for name in self.read_columns:
            cur = self.schema.field(name)
            old = by_id.get(ids.get(name, cur.id))
            if old is not None:
                wanted.append(old.name)
                renames.append((old, cur))
            else:
                renames.append((None, cur))
        extra = ([SEQ, KIND] if sequence else [KIND]) if system_columns else []
        path = self.table.io.join(self.table.bucket_path(split.partition, split.bucket), f.file_name)
        if f.external_path:
            from paimon_core.metadata.features import external_path

            path = external_path(self.table, f.external_path)
        types = {SEQ: _SEQ_TYPE, KIND: _KIND_TYPE}
        types.update({old.name: old.type for old, _ in renames if old is not None})
        legacy_ltz = self.schema.core_options.get("orc.timestamp-ltz.legacy.type")
        df = split.deletion_file(f.file_name) if split.deletion_files else None
        if df is None:
            data, keep = read_data_file(self.table.io, path, extra + wanted, types, legacy_ltz), None
        else:  # the deleted rows are dropped as the file is decoded
            deleted = self._dv_reader().positions(df)
            data, keep = read_data_file(
                self.table.io, path, extra + wanted, types, legacy_ltz, deleted=deleted
            )
        n = data.num_rows
        arrays, fields = [], []
        for old, cur in renames:
            target = to_arrow_type(cur.type)
            if old is None:
                arr = pa.nulls(n, target)
            else:
                arr = data.column(old.name)
                if arr.type != target:  # retyped by alter-column since the file was written
                    arr = cast_for_read(arr, cur.name, old.type, cur.type)
            arrays.append(arr)
            fields.append(pa.field(cur.name, target, nullable=cur.type.nullable))
        for name in extra:
            arrays.append(data.column(name))
            fields.append(pa.field(name, data.schema.field(name).type))
        if with_position:
            arrays.append(pa.array(np.arange(n, dtype=np.int64) if keep is None else np.flatnonzero(keep)))
            fields.append(pa.field(ROW_POS, pa.int64(), nullable=False))
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))

    def _file_schema(self, split: DataSplit, f: DataFileMeta) -> tuple[TableSchema, dict[str, int]]:
        """The schema ``f`` was written with, and the field id of each read column in it: the
        table's own ids, or for a fallback branch's split (``read/fallback.py``) that branch's
        ids of the same column names."""
        if split.schema_branch is None:
            return self.table.schema_for(f.schema_id), {}
        from paimon_core.read.fallback import branch_schemas

        schemas = branch_schemas(self.table, split.schema_branch)
        latest = schemas.latest
        ids = {f.name: f.id for f in latest.fields}
        return schemas.schema(f.schema_id), ids

    def _dv_reader(self) -> DeletionVectorReader:
        if self._dvs is None:
            self._dvs = DeletionVectorReader(self.table)
        return self._dvs

    # ---- one split
    def read_split(self, split: DataSplit) -> pa.Table:
        if not self.is_pk or self._raw_convertible(split):
            parts = [filter_table(self.read_file(split, f, False), self.predicate) for f in split.files]
            out = pa.concat_tables(parts) if parts else self._empty()
            return out.select(self.columns)
        merged = self._merge(split)
        return filter_table(merged, self.predicate).select(self.columns)

    def _raw_convertible(self, split: DataSplit) -> bool:
        """Deletion-vector PK tables keep at most one live row per key above level 0, so a split
        without level-0 files and without retract rows is read file by file, unmerged (as Java)."""
        return self.dv_mode and all(f.level > 0 and f.delete_row_count == 0 for f in split.files)

    def _empty(self) -> pa.Table:
        return self.schema.arrow_schema().empty_table().select(self.read_columns)

    def _merge(self, split: DataSplit, keep_kind: bool = False) -> pa.Table:
        """Merge-on-read of a split. The sequence numbers only order the records of a key and are
        dropped from the result, so when the files' sequence ranges are disjoint (every writer
        numbers records increasingly, file after file) the files are read in sequence order
        without ``_SEQUENCE_NUMBER`` and each record's position in that concatenation stands in
        for it: within a file, records of a key are stored in sequence order."""
        files = seq_ordered(split.files)
        sequence = files is None
        files = split.files if sequence else files
        parts = [self.read_file(split, f, True, sequence=sequence) for f in files]
        if not parts:
            t = self._empty()
            return t.append_column(KIND, pa.array([], pa.int8())) if keep_kind else t
        engine = MergeEngine.for_schema(self.schema, self.read_columns)
        levels = file_levels(files, parts) if engine.lookup else None
        drop = (SEQ,) if keep_kind else (SEQ, KIND)
        data = pa.concat_tables(parts)
        return engine.merge(data, drop_retracts=True, levels=levels, drop=drop, in_order=not sequence)

    def read_split_with_kinds(self, split: DataSplit) -> tuple[pa.Table, pa.Array | None]:
        """``read_split`` plus, for primary-key tables, each row's kind: that of its merged record
        (+I or +U, as Java's streaming full scan gives it); None for append tables (all +I)."""
        if not self.is_pk:
            return self.read_split(split), None
        merged = filter_table(self._merge(split, keep_kind=True), self.predicate)
        return merged.select(self.columns), merged.column(KIND).combine_chunks()

    # ---- many splits
    def to_batches(self, splits: Sequence[DataSplit], limit: int | None = None) -> Iterator[pa.Table]:
        """Tables of the splits, in order. Splits are read a few at a time on threads (Parquet
        decoding and Arrow kernels release the GIL); memory stays bounded by the window."""
        remaining = limit
        for t in _ordered_parallel(self.read_split, list(splits), window=READ_THREADS):
            if remaining is not None:
                t = t.slice(0, remaining)
                remaining -= t.num_rows
            if t.num_rows:
                yield t
            if remaining is not None and remaining <= 0:
                return

    def to_arrow(self, splits: Sequence[DataSplit], limit: int | None = None) -> pa.Table:
        parts = list(self.to_batches(splits, limit))
        if not parts:
            return self.schema.arrow_schema().empty_table().select(self.columns)
        return pa.concat_tables(parts)


def read_rows(
    table: TableContext,
    snapshot: Snapshot | None,
    columns: list[str] | None = None,
    predicate: Predicate | None = None,
    limit: int | None = None,
) -> pa.Table:
    """The rows of ``snapshot`` (read through ``table``'s schema), filtered and projected. A file
    missing because another process expired the snapshot meanwhile raises SnapshotExpired."""
    reader = TableRead(table, columns, predicate)
    with expiry_checked(table, snapshot):
        return reader.to_arrow(plan(table, snapshot, predicate), limit)
