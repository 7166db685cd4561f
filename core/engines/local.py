"""The in-process engine: streams input batches through the core writers on pyarrow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import SchemaMismatch
from paimon_core.write.conform import conform_table, split_row_kinds
from paimon_core.write.input_errors import InputRowError, row_position
from paimon_core.write.input_files import read_batches

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable


class LocalEngine:
    name = "local"

    def write(
        self, table: FileStoreTable, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        writer = table.new_writer()
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

    def write_tables(self, table: FileStoreTable, tables, row_kind_column: str | None = None) -> list:
        writer = table.new_writer()
        try:
            for t in tables:
                t, kinds = split_row_kinds(t, row_kind_column)
                writer.write(conform_table(t, table.schema), kinds)
            return writer.prepare_commit()
        except BaseException:
            writer.abort()
            raise

    def compact(self, table: FileStoreTable, splits, full: bool = True, progress=None) -> list:
        from paimon_core.compaction.bucket_compaction import compact_messages

        return compact_messages(table, splits, full, progress)

    def export_rows(
        self,
        table,
        splits,
        columns=None,
        predicate=None,
        limit=None,
        out_path=None,
        fmt: str = "parquet",
        *,
        render=None,
        on_plan=None,
        progress=None,
    ):
        """The rows of ``splits`` (projected, filtered, at most ``limit``) as one file."""
        from paimon_core.engines.export import (
            ExportResult,
            check_format,
            read_batches,
            split_bytes,
            write_file,
        )

        check_format(fmt, render)
        reader = table.new_read(columns, predicate)
        empty = table.schema.arrow_schema().empty_table().select(reader.columns).schema
        if on_plan:
            on_plan(split_bytes(splits))
        rows = write_file(read_batches(reader, splits, limit, progress), empty, out_path, fmt, render)
        return ExportResult(str(out_path), rows, "file")

    def export_changes(
        self,
        table,
        start,
        end,
        mode: str = "auto",
        per_snapshot: bool = False,
        columns=None,
        out_path=None,
        fmt: str = "parquet",
        *,
        render=None,
        on_plan=None,
        progress=None,
    ):
        """``paimon_core.read.diff.diff`` of (start, end] as one file."""
        from paimon_core.engines.export import ExportResult, check_format, write_file
        from paimon_core.read.diff import diff

        check_format(fmt, render)
        changes = diff(table, start, end, mode, per_snapshot, columns)
        rows = write_file(changes.to_batches(max_chunksize=65_536), changes.schema, out_path, fmt, render)
        return ExportResult(str(out_path), rows, "file")


def _rows_hint(f) -> int:
    if f.format == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(f.path).metadata.num_rows
    return 1 << 62  # unknown: progress jumps at the end of the file
