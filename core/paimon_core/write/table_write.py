"""Writing rows into a table's files: the writer a table takes, and writes of Arrow tables or
input files through it. Returns CommitMessages; committing them is the caller's (the commit layer
is above this one).

Invariant: a write that fails aborts its writer (deleting what it wrote) before the error leaves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import SchemaMismatch
from paimon_core.metadata.features import check_writable
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.write.conform import conform_table, split_row_kinds
from paimon_core.write.input_errors import InputRowError, row_position
from paimon_core.write.input_files import read_batches
from paimon_core.write.sequence import sequence_restorer

if TYPE_CHECKING:
    from collections.abc import Callable

    import pyarrow as pa

    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.write.append_writer import AppendWriter
    from paimon_core.write.input_files import InputFile
    from paimon_core.write.kv_writer import KeyValueWriter
    from paimon_core.write.postpone import PostponeWriter


def new_append_writer(table: TableContext) -> AppendWriter:
    from paimon_core.write.append_writer import AppendWriter

    table.require_writable()
    return AppendWriter(table, sequence_restorer(table))


def new_writer(table: TableContext) -> AppendWriter | KeyValueWriter | PostponeWriter:
    """A writer for ``table``: ``write(batch, kinds=None)``, ``prepare_commit()``, ``abort()``."""
    check_writable(table.schema)
    if table.schema.key_leaves_out_partition:  # only dynamic buckets route keys across partitions
        from paimon_core.write.cross_partition_guard import check_writable as check_cross

        check_cross(table)
    if table.schema.bucket_mode is BucketMode.POSTPONE:
        from paimon_core.write.postpone import PostponeWriter

        return PostponeWriter(table)
    if table.is_primary_key_table:
        from paimon_core.write.kv_writer import KeyValueWriter

        table.require_writable()
        return KeyValueWriter(table, sequence_restorer(table))
    return new_append_writer(table)


def write_tables(
    table: TableContext, tables: list[pa.Table], row_kind_column: str | None = None
) -> list[CommitMessage]:
    """Arrow tables (``row_kind_column`` holding +I/-U/+U/-D, if given) -> CommitMessages."""
    writer = new_writer(table)
    try:
        for t in tables:
            t, kinds = split_row_kinds(t, row_kind_column)
            writer.write(conform_table(t, table.schema), kinds)
        return writer.prepare_commit()
    except BaseException:
        writer.abort()
        raise


def write_files(
    table: TableContext,
    inputs: list[InputFile],
    progress: Callable[[int], None] | None = None,
    row_kind_column: str | None = None,
    on_rows: Callable[[int], None] | None = None,
) -> list[CommitMessage]:
    """Input files (``input_files.InputFile``) -> CommitMessages; ``progress(bytes)`` as files
    are read, ``on_rows(n)`` per input batch. A row that does not fit names its file and line."""
    writer = new_writer(table)
    try:
        for f in inputs:
            done = offset = 0
            for batch in read_batches(f, table.schema):
                if on_rows:
                    on_rows(batch.num_rows)
                try:
                    batch, kinds = split_row_kinds(batch, row_kind_column)
                    data = conform_table(batch, table.schema)
                except InputRowError as e:  # say where in the file, not where in the batch
                    raise SchemaMismatch(
                        f"{f.path}: {row_position(f.path, f.format, offset + e.row)}: {e.what}"
                    ) from None
                offset += batch.num_rows
                writer.write(data, kinds)
                if progress and f.size:
                    step = int(f.size * batch.num_rows / max(_rows_hint(f), 1))
                    step = min(step, f.size - done)
                    done += step
                    progress(step)
            if progress and f.size > done:
                progress(f.size - done)
        return writer.prepare_commit()
    except BaseException:
        writer.abort()
        raise


def _rows_hint(f) -> int:
    if f.format == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(f.path).metadata.num_rows
    return 1 << 62  # unknown: progress jumps at the end of the file
