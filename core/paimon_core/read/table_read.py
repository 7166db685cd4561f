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
import pyarrow.compute as pc

from paimon_core.data.no_rows import no_rows
from paimon_core.data.parallel import ordered_parallel as _ordered_parallel
from paimon_core.data.system_columns import KIND, ROW_ID, ROW_POS, SEQ, TRACKING_COLUMNS
from paimon_core.data.types import AtomicType, to_arrow_type
from paimon_core.data.values import internal_to_python
from paimon_core.errors import CorruptMetadata, NullMapKey, UnsupportedFeature
from paimon_core.fileformat.blob import is_blob_file
from paimon_core.fileformat.blob import read_values as read_blob_values
from paimon_core.fileformat.formats import read_data_file, stored_columns
from paimon_core.merge.merge_engines import MergeEngine
from paimon_core.metadata.deletion_vectors import DeletionVectorReader, dv_enabled
from paimon_core.metadata.features import check_file, check_readable, descriptor_columns
from paimon_core.metadata.live_files import expiry_checked
from paimon_core.metadata.manifest import FILE_SOURCE_COMPACT
from paimon_core.metadata.schema_evolution import cast_for_read
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import ORC_TIMESTAMP_LTZ_LEGACY_TYPE
from paimon_core.read.blob_descriptors import resolve as resolve_descriptors
from paimon_core.read.predicate import Predicate, filter_table
from paimon_core.read.row_tracking import (
    blob_sources,
    column_sources,
    data_evolution,
    row_groups,
    row_tracking,
)
from paimon_core.read.scan import DataSplit, plan

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext


_SEQ_TYPE, _KIND_TYPE = AtomicType(False, "BIGINT"), AtomicType(False, "TINYINT")
READ_THREADS = min(4, os.cpu_count() or 1)
# partition column types built from the split's partition instead of decoded (_partition_constants)
_CONSTANT_ROOTS = frozenset({"CHAR", "VARCHAR", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "DATE"})


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
        self.is_pk = bool(self.schema.primary_keys)
        self.tracked = not self.is_pk and row_tracking(self.schema)
        self.evolution = not self.is_pk and data_evolution(self.schema)
        # _ROW_ID, _SEQUENCE_NUMBER: readable system columns of row-tracking tables
        self.system = [c for c in self.columns if self.tracked and c in TRACKING_COLUMNS]
        for c in self.columns:
            if c not in self.system:
                self.schema.field(c)  # raises InvalidInput for unknown columns
        self.predicate = predicate
        needed = set(self.columns) | (predicate.columns() if predicate else set())
        self.read_columns = [n for n in self.schema.field_names if n in needed]
        self._descriptors = set(descriptor_columns(self.schema))
        self.dv_mode = self.is_pk and dv_enabled(table)
        self._first_row = self.is_pk and self.schema.core_options.merge_engine is MergeEngineKind.FIRST_ROW
        self._dvs: DeletionVectorReader | None = None
        if self.is_pk:
            from paimon_core.metadata.merge_options import sequence_fields, sequence_groups

            keys = set(self.schema.trimmed_primary_keys) | set(sequence_fields(self.schema.options))
            keys |= {s for seqs, _ in sequence_groups(self.schema.options) for s in seqs}
            self.read_columns = [n for n in self.schema.field_names if n in needed or n in keys]
            MergeEngine.for_schema(self.schema, self.read_columns)  # refuses bad options up front,
            # also for reads whose splits are all raw (never merged)

    # ---- one file
    def read_file(
        self,
        split: DataSplit,
        f: DataFileMeta,
        system_columns: bool,
        with_position: bool = False,
        sequence: bool = True,
        field_ids: set[int] | None = None,
        columns: list[str] | None = None,
    ) -> pa.Table:
        """Columns of the current schema (``columns``, default ``self.read_columns``) from one
        file, by field id, without the rows its deletion vector (if any) marks deleted;
        ``with_position`` adds ``_ROW_POS``, each row's 0-based position in the file.
        ``system_columns`` adds ``_SEQUENCE_NUMBER`` (unless ``sequence`` is False) and
        ``_VALUE_KIND``. ``field_ids``: the columns the file holds (data evolution: a file of
        some columns; the others read as NULL); without it the file must hold every column."""
        if field_ids is None and f.write_cols is not None:
            check_file(f, columns=self.table.schema_for(f.schema_id).field_names)
        file_schema, ids = self._file_schema(split, f)
        by_id = {fld.id: fld for fld in file_schema.fields}
        if field_ids is not None:
            by_id = {i: fld for i, fld in by_id.items() if i in field_ids}
        names = self.read_columns if columns is None else columns
        constants = {} if field_ids is not None else self._partition_constants(split)
        if not system_columns and all(n in constants for n in names):
            constants = {}  # something must be decoded to know the file's row count
        wanted, renames = [], []
        for name in names:
            cur = self.schema.field(name)
            old = None if name in constants else by_id.get(ids.get(name, cur.id))
            if old is not None:
                wanted.append(old.name)
            renames.append((old, cur))
        extra = ([SEQ, KIND] if sequence else [KIND]) if system_columns else []
        path = self._path(split, f)
        types = {SEQ: _SEQ_TYPE, KIND: _KIND_TYPE}
        types.update({old.name: old.type for old, _ in renames if old is not None})
        legacy_ltz = self.schema.core_options.get(ORC_TIMESTAMP_LTZ_LEGACY_TYPE)
        df = split.deletion_file(f.file_name) if split.deletion_files else None
        try:
            if df is None:
                data, keep = read_data_file(self.table.io, path, extra + wanted, types, legacy_ltz), None
            else:  # the deleted rows are dropped as the file is decoded
                deleted = self._dv_reader().positions(df)
                data, keep = read_data_file(
                    self.table.io, path, extra + wanted, types, legacy_ltz, deleted=deleted
                )
        except NullMapKey as e:
            raise e.in_table(self.table.identifier) from None
        n = data.num_rows
        arrays, fields = [], []
        for old, cur in renames:
            target = to_arrow_type(cur.type)
            if cur.name in constants:
                arr = pa.repeat(pa.scalar(constants[cur.name], target), n)
            elif old is None:
                arr = pa.nulls(n, target)
            else:
                arr = data.column(old.name)
                if cur.name in self._descriptors:  # the bytes its descriptors point to
                    arr = resolve_descriptors(self.table, cur.name, arr)
                elif arr.type != target:  # retyped by alter-column since the file was written
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

    def _partition_constants(self, split: DataSplit) -> dict[str, object]:
        """The partition columns a file of ``split`` need not decode: every row of a data file
        holds its partition's value (writers split rows by partition), so the column is that
        value repeated, taken from the split's partition. Only for types whose internal value
        is what Arrow takes (strings, booleans, integers, dates); other partition columns are
        decoded from the file."""
        codec = self.table.partition_codec
        out = {}
        for key, t, value in zip(codec.keys, codec.types, split.partition):
            if isinstance(t, AtomicType) and t.root in _CONSTANT_ROOTS:
                out[key] = internal_to_python(value, t)
        return out

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

    # ---- row tracking and data evolution (read/row_tracking.py)
    def read_tracked_file(self, split: DataSplit, f: DataFileMeta, with_position: bool = False) -> pa.Table:
        """``read_file`` of a row-tracking table's file plus its ``_ROW_ID`` and
        ``_SEQUENCE_NUMBER`` (last), for rewrites that must keep them (compaction, delete)."""
        t = self.read_file(split, f, False, with_position=True)
        positions = t.column(ROW_POS).combine_chunks()
        cols = self._tracking_columns(f, lambda g: self._path(split, g), positions)
        if not with_position:
            t = t.drop_columns([ROW_POS])
        for c in TRACKING_COLUMNS:
            t = t.append_column(pa.field(c, pa.int64(), nullable=False), cols[c])
        return t

    def _tracking_columns(self, f: DataFileMeta, path_of, positions: pa.Array) -> dict[str, pa.Array]:
        """``_ROW_ID`` and ``_SEQUENCE_NUMBER`` of the rows of ``f`` at ``positions``: stored ones
        (a compaction's output) where not NULL, else first row id + position and the file's
        maximum sequence number."""
        n = len(positions)
        row_ids = (
            pa.nulls(n, pa.int64())
            if f.first_row_id is None
            else pc.add(positions.cast(pa.int64()), pa.scalar(f.first_row_id, pa.int64()))
        )
        seqs = pa.array(np.full(n, f.max_sequence_number, dtype=np.int64))
        out = {ROW_ID: row_ids, SEQ: seqs}
        if f.file_source == FILE_SOURCE_COMPACT:  # appended files never store them
            stored = [c for c in (ROW_ID, SEQ) if c in stored_columns(self.table.io, path_of(f))]
            if stored:
                data = read_data_file(self.table.io, path_of(f), stored, {ROW_ID: _SEQ_TYPE, SEQ: _SEQ_TYPE})
                if n != data.num_rows:
                    data = data.take(positions)
                for c in stored:
                    out[c] = pc.coalesce(data.column(c).combine_chunks().cast(pa.int64()), out[c])
        return out

    def _path(self, split: DataSplit, f: DataFileMeta) -> str:
        if f.external_path:
            from paimon_core.metadata.features import external_path

            return external_path(self.table, f.external_path)
        return self.table.io.join(self.table.bucket_path(split.partition, split.bucket), f.file_name)

    def _read_tracked(self, split: DataSplit) -> pa.Table:
        """An append split of a row-tracking table: data-evolution groups merged column-wise,
        the system columns asked for added."""
        groups = row_groups(list(split.files)) if self.evolution else [[f] for f in split.files]
        parts = [filter_table(self.read_group(split, g, self.system), self.predicate) for g in groups]
        out = pa.concat_tables(parts) if parts else self._empty()
        return out.select(self.columns)

    def read_group(self, split: DataSplit, group: list[DataFileMeta], system: Sequence[str]) -> pa.Table:
        """The rows of one row group (one file, or a data-evolution group of files merged
        column-wise): ``read_columns``, then the ``system`` columns (``_ROW_ID``,
        ``_SEQUENCE_NUMBER``; a merged group's sequence number is its newest file's)."""
        if len(group) == 1 and (group[0].write_cols is None or not self.evolution):
            f = group[0]
            t = self.read_file(split, f, False, with_position=True)
            positions = t.column(ROW_POS).combine_chunks()
            t = t.drop_columns([ROW_POS])
        else:
            t, f = self._merge_group(split, group), None
            positions = pa.array(np.arange(t.num_rows, dtype=np.int64))
        if system:
            anchor = (
                f if f is not None else next((g for g in group if not is_blob_file(g.file_name)), group[0])
            )
            cols = self._tracking_columns(anchor, lambda g: self._path(split, g), positions)
            if f is None:
                cols[SEQ] = pa.array(np.full(t.num_rows, max(g.max_sequence_number for g in group), np.int64))
            for c in system:
                t = t.append_column(pa.field(c, pa.int64(), nullable=False), cols[c])
        return t

    def _merge_group(self, split: DataSplit, group: list[DataFileMeta]) -> pa.Table:
        """The rows of a data-evolution group: each column from the newest file holding it."""
        if any(split.deletion_file(g.file_name) for g in group if split.deletion_files):
            raise UnsupportedFeature(
                f"data files {', '.join(g.file_name for g in group)} are one data-evolution row group "
                "with deleted rows (deletion vectors): reading it is not supported"
            )
        fields = [self.schema.field(n) for n in self.read_columns]
        sources = column_sources(self.table, group, [fld.id for fld in fields])
        data_files = [g for g in group if not is_blob_file(g.file_name)]
        if not data_files:
            raise CorruptMetadata(
                f"blob files {', '.join(g.file_name for g in group)} have no data file of their rows"
            )
        n, start = data_files[0].row_count, data_files[0].first_row_id or 0
        arrays = {fld.name: pa.nulls(n, to_arrow_type(fld.type)) for fld in fields}
        blobs = blob_sources(self.table, group, [fld.id for fld in fields])
        for fld in fields:
            if fld.id in blobs:
                arrays[fld.name] = self._blob_column(split, blobs[fld.id], start, n)
        for g in group:
            mine = [fld.name for fld in fields if sources.get(fld.id) is g]
            if not mine:
                continue
            t = self.read_file(
                split,
                g,
                False,
                field_ids={fld.id for fld in fields if sources.get(fld.id) is g},
                columns=mine,
            )
            for name in mine:
                arrays[name] = t.column(name)
        schema = pa.schema(
            [pa.field(f.name, to_arrow_type(f.type), nullable=f.type.nullable) for f in fields]
        )
        return pa.Table.from_arrays([arrays[f.name] for f in fields], schema=schema)

    def _blob_column(self, split: DataSplit, files: list[DataFileMeta], start: int, n: int) -> pa.Array:
        """The values of rows ``start .. start + n - 1`` of one BLOB column from its ``.blob``
        files (``files``: in row-id order, as ``blob_sources`` chose them)."""
        values: list[bytes | None] = [None] * n
        for f in files:
            path = self._path(split, f)
            try:
                data = self.table.io.read_bytes(path)
            except FileNotFoundError:
                raise CorruptMetadata(f"blob file {path} is missing (listed in a manifest)") from None
            got = read_blob_values(data, path)
            if len(got) != f.row_count:
                raise CorruptMetadata(
                    f"blob file {path} holds {len(got)} rows, its manifest entry {f.row_count}"
                )
            lo = (f.first_row_id or 0) - start
            for i, v in enumerate(got):
                if 0 <= lo + i < n:
                    values[lo + i] = v
        return pa.array(values, pa.binary())

    # ---- one split
    def read_split(self, split: DataSplit) -> pa.Table:
        if self.tracked and (self.system or self.evolution):
            return self._read_tracked(split)
        if not self.is_pk or self._raw_convertible(split):
            parts = [filter_table(self.read_file(split, f, False), self.predicate) for f in split.files]
            out = pa.concat_tables(parts) if parts else self._empty()
            return out.select(self.columns)
        merged = self._merge(split)
        return filter_table(merged, self.predicate).select(self.columns)

    def _raw_convertible(self, split: DataSplit) -> bool:
        """True when the split's rows are its files' rows, so it is read file by file without
        the system columns and unmerged (Java's raw-convertible splits). Needs every file known
        to hold no retract (-U/-D) rows (``_DELETE_ROW_COUNT`` = 0; unknown: merged), and then:
        - a lone file (a data file holds one record per key);
        - deletion-vector and first-row tables: every file above level 0 (a key has one live
          row there: vectors mark the older ones, first-row compaction never repeats a key);
        - otherwise files all at one level above 0 (one sorted run: disjoint key ranges).
        A record alone under its key is what every merge engine returns for it (Java reads
        these splits raw whatever the engine)."""
        files = split.files
        if not files or not all(f.delete_row_count == 0 for f in files):
            return False
        if len(files) == 1:
            return True
        if self.dv_mode or self._first_row:
            return all(f.level > 0 for f in files)
        return not split.deletion_files and files[0].level > 0 and len({f.level for f in files}) == 1

    def output_schema(self) -> pa.Schema:
        """The Arrow schema of what this read returns (``columns``, system ones included)."""
        return self._empty().select(self.columns).schema

    def _empty(self) -> pa.Table:
        fields = [self.schema.arrow_schema().field(n) for n in self.read_columns]
        fields += [pa.field(c, pa.int64()) for c in self.system]
        return no_rows(pa.schema(fields))

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
            return self._empty().select(self.columns)
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
