"""Writing BLOB columns (Paimon 1.4) as Java 1.4.2's ``DedicatedFormatRollingFileWriter`` does:
each BLOB column goes to ``.blob`` files of its own (``fileformat/blob.py``), the other columns
to the data file, whose ``_WRITE_COLS`` name them.

Invariants: the ``.blob`` files of one column written beside a data file hold exactly that data
file's rows, in order (NULLs included); a ``.blob`` file rolls once its records reach
``blob.target-file-size`` (default ``target-file-size``), checked after each row, and every open
``.blob`` file closes when its data file does. Each ``.blob`` file's entry has ``_WRITE_COLS`` =
its column, no value stats (``_VALUE_STATS_COLS`` empty) and, once committed, the first row id
that continues its column's previous file from its data file's first row id
(``metadata/row_ids.py``).
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.fileformat.blob import EXTENSION, BlobFileWriter
from paimon_core.metadata.manifest import FILE_SOURCE_APPEND, DataFileMeta
from paimon_core.options.registry import BLOB_TARGET_FILE_SIZE

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext


def blob_target_size(schema: TableSchema) -> int:
    opts = schema.core_options
    return opts.get(BLOB_TARGET_FILE_SIZE) or opts.target_file_size


def _now() -> dt.datetime:
    now = dt.datetime.now()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


class BlobColumnWriter:
    """The ``.blob`` files of one column beside one bucket's data files."""

    def __init__(self, table: TableContext, directory: str, column: str, prefix: str):
        self.table = table
        self.dir = directory
        self.column = column
        self.prefix = prefix
        self.target = blob_target_size(table.schema)
        self._file: BlobFileWriter | None = None
        self._sink = None
        self._name = ""
        self._done: list[DataFileMeta] = []
        self._written: list[str] = []

    def add(self, values: pa.ChunkedArray | pa.Array) -> None:
        for v in values.to_pylist():
            if self._file is None:
                self._open()
            assert self._file is not None  # opened above
            self._file.add(v)
            if self._file.size >= self.target:
                self._close_file()

    def _open(self) -> None:
        self._name = f"{self.prefix}{uuid.uuid4()}-0{EXTENSION}"
        path = self.table.io.join(self.dir, self._name)
        self.table.io.mkdirs(self.dir)
        self._written.append(path)
        self._sink = self.table.io.arrow_fs.open_output_stream(path)
        self._file = BlobFileWriter(self._sink)

    def _close_file(self) -> None:
        f, self._file = self._file, None
        if f is None:
            return
        f.finish()
        assert self._sink is not None  # opened with the file
        self._sink.close()
        self._sink = None
        self._done.append(
            DataFileMeta(
                file_name=self._name,
                file_size=f.file_size,
                row_count=f.row_count,
                schema_id=self.table.schema.id,
                level=0,
                creation_time=_now(),
                delete_row_count=0,
                file_source=FILE_SOURCE_APPEND,
                value_stats_cols=(),
                write_cols=(self.column,),
            )
        )

    def close(self) -> list[DataFileMeta]:
        """Closes the open file; the files written since the last ``close``."""
        self._close_file()
        out, self._done = self._done, []
        return out

    def abort(self) -> None:
        self._file = None
        if self._sink is not None:
            self._sink.close()
            self._sink = None
        for p in self._written:
            self.table.io.delete(p)
