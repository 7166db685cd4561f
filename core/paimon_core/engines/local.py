"""The in-process engine: streams input batches through the core writers on pyarrow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.engines.export import (
    ChangesExport,
    ExportResult,
    RowsExport,
    check_format,
    read_batches,
    split_bytes,
    write_file,
)
from paimon_core.write.table_write import write_files, write_tables

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.metadata.table_context import TableContext


class LocalEngine:
    name = "local"

    def write(
        self, table: TableContext, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        return write_files(table, inputs, progress, row_kind_column, on_rows)

    def write_tables(self, table: TableContext, tables, row_kind_column: str | None = None) -> list:
        return write_tables(table, tables, row_kind_column)

    def compact(self, table: TableContext, splits, full: bool = True, progress=None) -> list:
        from paimon_core.compaction.bucket_compaction import compact_messages

        return compact_messages(table, splits, full, progress)

    def rewrite(self, table: TableContext, snapshot, splits: dict[tuple, list], transform) -> list:
        from paimon_core.compaction.partition_rewrite import write_partitions

        return write_partitions(table, table, snapshot, splits, transform)[0]

    def export_rows(self, request: RowsExport) -> ExportResult:
        """The rows of the request's splits (projected, filtered, at most ``limit``) as one file."""
        r, t = request, request.target
        check_format(t.fmt, t.render)
        reader = r.table.new_read(r.columns, r.predicate)
        empty = reader.output_schema()
        if t.on_plan:
            t.on_plan(split_bytes(r.splits))
        batches = read_batches(reader, r.splits, r.limit, t.progress)
        rows = write_file(batches, empty, t.path, t.fmt, t.render)
        return ExportResult(str(t.path), rows, "file")

    def export_changes(self, request: ChangesExport) -> ExportResult:
        """``paimon_core.read.diff.diff`` of (start, end] as one file, written a part at a time
        (``diff_parts``: one group of buckets in memory for ``diff`` mode)."""
        from paimon_core.read.diff import changes_schema, diff_parts

        r, t = request, request.target
        check_format(t.fmt, t.render)
        schema = changes_schema(r.table, r.columns, r.per_snapshot)
        parts = diff_parts(r.table, r.start, r.end, r.mode, r.per_snapshot, r.columns)
        rows = write_file(parts, schema, t.path, t.fmt, t.render)
        return ExportResult(str(t.path), rows, "file")
