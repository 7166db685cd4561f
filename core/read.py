"""Reading splits into Arrow: columns mapped by field id across schema versions, and for
primary-key tables merge-on-read of all sorted runs of a bucket.

A file written under an older schema is read by field id: renamed columns keep their data,
dropped ones vanish, added ones read as null, widened ones are cast. Filters on non-key
columns of a PK table apply only after merging (a file's row may be superseded elsewhere).
"""

from __future__ import annotations

import os

import pyarrow as pa
from paimon_core.data_file import read_data_file
from paimon_core.merge_function import MergeEngine
from paimon_core.predicate import Predicate, filter_table
from paimon_core.scan import DataSplit
from paimon_core.schema_change import cast_for_read
from paimon_core.types import to_arrow_type

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
KEY_PREFIX = "_KEY_"


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


def file_levels(files, parts: list[pa.Table]):
    """The LSM level of every record of ``parts`` (one table per file of ``files``)."""
    import numpy as np

    return np.repeat(np.array([f.level for f in files], dtype=np.int32), [p.num_rows for p in parts])


class TableRead:
    def __init__(self, table, columns: list[str] | None = None, predicate: Predicate | None = None):
        self.table = table
        self.schema = table.schema
        self.columns = list(columns) if columns else self.schema.field_names
        for c in self.columns:
            self.schema.field(c)  # raises InvalidInput for unknown columns
        self.predicate = predicate
        needed = set(self.columns) | (predicate.columns() if predicate else set())
        self.read_columns = [n for n in self.schema.field_names if n in needed]
        self.is_pk = bool(self.schema.primary_keys)
        if self.is_pk:
            from paimon_core.merge_options import sequence_fields, sequence_groups

            keys = set(self.schema.trimmed_primary_keys) | set(sequence_fields(self.schema.options))
            keys |= {s for seqs, _ in sequence_groups(self.schema.options) for s in seqs}
            self.read_columns = [n for n in self.schema.field_names if n in needed or n in keys]

    # ---- one file
    def _read_file(self, split: DataSplit, f, system_columns: bool) -> pa.Table:
        """Columns of the current schema (``self.read_columns``) from one file, by field id."""
        file_schema = self.table.schema_for(f.schema_id)
        by_id = {fld.id: fld for fld in file_schema.fields}
        wanted, renames = [], []
        for name in self.read_columns:
            cur = self.schema.field(name)
            old = by_id.get(cur.id)
            if old is not None:
                wanted.append(old.name)
                renames.append((old, cur))
            else:
                renames.append((None, cur))
        extra = [SEQ, KIND] if system_columns else []
        path = self.table.io.join(self.table.bucket_path(split.partition, split.bucket), f.file_name)
        if f.external_path:
            path = f.external_path.split("://", 1)[-1]
        data = read_data_file(self.table.io, path, columns=extra + wanted)
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
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))

    # ---- one split
    def read_split(self, split: DataSplit) -> pa.Table:
        if not self.is_pk:
            parts = [filter_table(self._read_file(split, f, False), self.predicate) for f in split.files]
            out = pa.concat_tables(parts) if parts else self._empty()
            return out.select(self.columns)
        merged = self._merge(split)
        return filter_table(merged, self.predicate).select(self.columns)

    def _empty(self) -> pa.Table:
        return self.schema.arrow_schema().empty_table().select(self.read_columns)

    def _merge(self, split: DataSplit) -> pa.Table:
        parts = [self._read_file(split, f, True) for f in split.files]
        if not parts:
            return self._empty()
        engine = MergeEngine.for_schema(self.schema, self.read_columns)
        merged = engine.merge(pa.concat_tables(parts), drop_retracts=True, levels=file_levels(split.files, parts))
        return merged.drop_columns([SEQ, KIND])

    # ---- many splits
    def to_batches(self, splits, limit: int | None = None):
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

    def to_arrow(self, splits, limit: int | None = None) -> pa.Table:
        parts = list(self.to_batches(splits, limit))
        if not parts:
            return self.schema.arrow_schema().empty_table().select(self.columns)
        return pa.concat_tables(parts)
