"""Parquet data files, written the way Java Paimon writes and reads them.

Java 0.9 cannot read DECIMAL(p<=18) as dictionary-encoded fixed-length bytes, nor TIMESTAMP
with nanoseconds as INT64: so decimals p<=9 go to INT32 and p<=18 to INT64, and a file with a
TIMESTAMP(7..9) column stores timestamps as INT96 (docs/format.md section 0, 7.3). DECIMAL(p>18)
(fixed-length bytes) is written without a dictionary, as Java's writer does: Java 1.4's Parquet
filter drops every row of a dictionary-encoded one on an equality predicate. A schema's field
metadata (the Parquet field ids of :mod:`.field_ids`) is written as given.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paimon_core.data.arrow_nesting import leaf_types, with_leaf_types
from paimon_core.data.no_rows import no_rows
from paimon_core.fileformat.parquet_footer import FooterPatchingSink
from paimon_core.storage.file_io import FileIO


def _any_type(t: pa.DataType, pred) -> bool:
    """True if a leaf type of ``t`` (``t`` itself when not nested) satisfies ``pred``."""
    return any(pred(x) for x in leaf_types(t))


def _has_nanos(t: pa.DataType) -> bool:
    return _any_type(t, lambda x: pa.types.is_timestamp(x) and x.unit == "ns")


def _has_timestamp(t: pa.DataType) -> bool:
    return _any_type(t, pa.types.is_timestamp)


def _has_wide_decimal(t: pa.DataType) -> bool:
    return _any_type(t, lambda x: pa.types.is_decimal(x) and x.precision > 18)


def writer_options(schema: pa.Schema, compression: str = "zstd", level: int | None = 1) -> dict:
    """pyarrow's write options for a file of ``schema``. Invariant: a column holding INT96
    timestamps or fixed-length-bytes decimals (p > 18) is never dictionary-encoded."""
    int96 = any(_has_nanos(f.type) for f in schema)
    # Java's UNCOMPRESSED and Paimon's "none" are pyarrow's "none"
    compression = "none" if compression.lower() in ("uncompressed", "none") else compression
    opts = {
        "compression": compression,
        "store_decimal_as_integer": True,
        "use_deprecated_int96_timestamps": int96,
        "write_statistics": True,
    }
    # Java 0.9 decodes dictionary pages of INT96 columns as longs and fails, and Java 1.4's
    # filter of dictionary-encoded FLBA decimals never matches: write those columns plain
    plain = [f.name for f in schema if (int96 and _has_timestamp(f.type)) or _has_wide_decimal(f.type)]
    if plain:
        opts["use_dictionary"] = [f.name for f in schema if f.name not in plain]
    if compression.lower() in ("zstd", "gzip", "brotli") and level is not None:
        opts["compression_level"] = level
    return opts


def _below_nanos(t: pa.DataType) -> bool:
    return pa.types.is_timestamp(t) and t.unit != "ns"


def raw_int64_columns(schema: pa.Schema) -> list[str]:
    """In a file that needs INT96 (it has a nanosecond timestamp anywhere), the top-level columns
    holding a timestamp of precision <= 6, at the top or nested: Java reads those only from
    INT64 (Java 0.9 fails on a nested INT96 TIMESTAMP(3)), and pyarrow's INT96 switch is per file,
    so pyarrow is given them as INT64 epoch values in their unit (ms or us, :func:`file_type`),
    and the footer then annotates them as Java does (:mod:`.parquet_footer`). Files written
    before that annotation hold top-level ones as plain INT64, which Java reads by the column's
    precision and our reader casts, and nested ones as INT96, which Java 1.x and we read."""
    if not any(_has_nanos(f.type) for f in schema):
        return []
    return [f.name for f in schema if _any_type(f.type, _below_nanos)]


def file_type(t: pa.DataType) -> pa.DataType:
    """``t`` with every timestamp of precision <= 6 in it replaced by INT64; nested fields keep
    their names, nullability and metadata (the Parquet field ids)."""
    return with_leaf_types(t, lambda x: pa.int64() if _below_nanos(x) else x)


def to_file_layout(table: pa.Table, raw_int64: list[str]) -> pa.Table:
    fields = [f.with_type(file_type(f.type)) if f.name in raw_int64 else f for f in table.schema]
    cols = [
        table.column(f.name).cast(f.type) if f.name in raw_int64 else table.column(f.name) for f in fields
    ]
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


class ParquetFileWriter:
    """Streams batches into one Parquet file; ``bytes_written`` grows as row groups are flushed."""

    def __init__(
        self, fileio: FileIO, path: str, schema: pa.Schema, compression: str = "zstd", level: int | None = 1
    ):
        self.path = path
        fileio.mkdirs(path.rsplit("/", 1)[0])
        self._sink = fileio.arrow_fs.open_output_stream(path)
        self._raw_int64 = raw_int64_columns(schema)
        self._patching: FooterPatchingSink | None = None
        sink = self._sink
        if self._raw_int64:
            types = {n: schema.field(n).type for n in self._raw_int64}
            self._patching = sink = FooterPatchingSink(self._sink, types)
            schema = to_file_layout(no_rows(schema), self._raw_int64).schema
        self._schema = schema
        self._writer = pq.ParquetWriter(sink, schema, **writer_options(schema, compression, level))
        self.row_count = 0

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        if self._raw_int64:
            table = to_file_layout(table, self._raw_int64)
        if table.schema != self._schema:  # e.g. nullable read results written to NOT NULL columns
            table = table.cast(self._schema)
        self._writer.write_table(table, row_group_size=max(len(table), 1))
        self.row_count += len(table)

    @property
    def bytes_written(self) -> int:
        return self._patching.tell() if self._patching is not None else self._sink.tell()

    def close(self) -> int:
        if self._patching is not None:
            self._patching.hold()
        self._writer.close()
        if self._patching is not None:
            self._patching.finish()
        size = self._sink.tell()
        self._sink.close()
        return size


def read(fileio: FileIO, path: str, columns: list[str] | None = None) -> pa.Table:
    """The named columns of a Parquet data file, as stored (the dispatcher casts them).
    ``ParquetFile.read``: the same decoding as ``pq.read_table`` without its dataset set-up,
    ~0.7 ms less per file (a merge-on-read opens every file of a bucket)."""
    with pq.ParquetFile(path, filesystem=fileio.arrow_fs) as pf:
        return pf.read(columns=columns)


def keep_bits(keep: np.ndarray) -> pa.BooleanArray:
    """A numpy keep mask as an Arrow boolean array (bit-packed by numpy: 20x faster than
    ``pa.array`` on a million rows)."""
    bits = pa.py_buffer(np.packbits(keep, bitorder="little"))
    return pa.BooleanArray.from_buffers(pa.bool_(), len(keep), [None, bits])


PARALLEL_FILTER_ROWS = 65536  # smaller tables are filtered on the calling thread
_filter_pool: ThreadPoolExecutor | None = None
_filter_pool_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _filter_pool
    with _filter_pool_lock:
        if _filter_pool is None:
            workers = max(1, min(8, pa.cpu_count()))
            _filter_pool = ThreadPoolExecutor(workers, thread_name_prefix="paimon-filter")
        return _filter_pool


def _forget_pool() -> None:  # a forked child has the pool object but not its threads
    global _filter_pool, _filter_pool_lock
    _filter_pool, _filter_pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def filter_columns(table: pa.Table, bits: pa.BooleanArray) -> pa.Table:
    """``table.filter(bits)``, the columns filtered in parallel (Arrow filters a table one column
    after another; its kernels release the GIL)."""
    if table.num_rows < PARALLEL_FILTER_ROWS or table.num_columns < 2:
        return table.filter(bits)
    pool = _pool()
    parts = [pool.submit(pc.filter, table.column(i), bits) for i in range(table.num_columns)]
    return pa.Table.from_arrays([p.result() for p in parts], schema=table.schema)


def read_kept(
    fileio: FileIO, path: str, columns: list[str], deleted: np.ndarray
) -> tuple[pa.Table, np.ndarray]:
    """The named columns of a Parquet data file without the rows at ``deleted`` (its deletion
    vector: sorted 0-based positions), and the keep mask over the file's rows.

    Row groups whose rows are all deleted are not decoded; the others are decoded as
    ``pq.read_table`` does (columns in parallel) and the kept rows taken by one boolean filter,
    all columns at once on the filter pool. (Filtering batch by batch while the next batch
    decodes was slower here: Arrow then decodes small batches with less parallelism.)"""
    with pq.ParquetFile(path, filesystem=fileio.arrow_fs) as pf:
        md = pf.metadata
        n = md.num_rows
        keep = np.ones(n, dtype=bool)
        if len(deleted) > 1 and (np.diff(deleted) <= 0).any():  # a bitmap's positions never are
            deleted = np.unique(deleted)
        deleted = deleted[: np.searchsorted(deleted, n)]
        keep[deleted] = False
        sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
        bounds = np.cumsum([0, *sizes])
        gone = np.diff(np.searchsorted(deleted, bounds))
        groups = [i for i, size in enumerate(sizes) if gone[i] < size]
        if not groups:
            return no_rows(pf.schema_arrow).select(columns), keep
        if len(groups) == len(sizes):
            data, mask = pf.read(columns=columns), keep
        else:  # the mask over the row groups read, in order
            data = pf.read_row_groups(groups, columns=columns)
            mask = np.concatenate([keep[bounds[i] : bounds[i + 1]] for i in groups])
    if len(deleted):
        data = filter_columns(data, keep_bits(mask))
    return data.select(columns), keep
