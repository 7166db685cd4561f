"""Parquet data files, written the way Java Paimon writes and reads them.

Java 0.9 cannot read DECIMAL(p<=18) as dictionary-encoded fixed-length bytes, nor TIMESTAMP
with nanoseconds as INT64: so decimals p<=9 go to INT32 and p<=18 to INT64, and a file with a
TIMESTAMP(7..9) column stores timestamps as INT96 (FORMAT.md section 0, 7.3).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_core.errors import CorruptMetadata
from paimon_core.io import FileIO


def _has_nanos(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t):
        return t.unit == "ns"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_nanos(t.value_type)
    if pa.types.is_map(t):
        return _has_nanos(t.key_type) or _has_nanos(t.item_type)
    if pa.types.is_struct(t):
        return any(_has_nanos(t.field(i).type) for i in range(t.num_fields))
    return False


def writer_options(schema: pa.Schema, compression: str = "zstd", level: int | None = 1) -> dict:
    opts = {
        "compression": compression,
        "store_decimal_as_integer": True,
        "use_deprecated_int96_timestamps": any(_has_nanos(f.type) for f in schema),
        "write_statistics": True,
    }
    if compression.lower() in ("zstd", "gzip", "brotli") and level is not None:
        opts["compression_level"] = level
    return opts


class ParquetFileWriter:
    """Streams batches into one Parquet file; ``bytes_written`` grows as row groups are flushed."""

    def __init__(self, fileio: FileIO, path: str, schema: pa.Schema, compression: str = "zstd", level: int | None = 1):
        self.path = path
        fileio.mkdirs(path.rsplit("/", 1)[0])
        self._sink = fileio.arrow_fs.open_output_stream(path)
        self._writer = pq.ParquetWriter(self._sink, schema, **writer_options(schema, compression, level))
        self.row_count = 0

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        self._writer.write_table(table, row_group_size=max(len(table), 1))
        self.row_count += len(table)

    @property
    def bytes_written(self) -> int:
        return self._sink.tell()

    def close(self) -> int:
        self._writer.close()
        size = self._sink.tell()
        self._sink.close()
        return size


def read_data_file(fileio: FileIO, path: str, columns: list[str] | None = None) -> pa.Table:
    try:
        return pq.read_table(path, columns=columns, filesystem=fileio.arrow_fs)
    except FileNotFoundError:
        raise CorruptMetadata(f"data file {path} is missing (listed in a manifest)") from None
    except pa.ArrowInvalid as e:
        raise CorruptMetadata(f"data file {path} is unreadable: {e}") from None


def file_schema(fileio: FileIO, path: str) -> pa.Schema:
    return pq.read_schema(path, filesystem=fileio.arrow_fs)
