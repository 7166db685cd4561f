"""A snapshot of a table as a ``pyarrow.dataset.Dataset`` whose scans run our scan and read:
what DuckDB (``paimon sql``, ``table.to_duckdb``) queries, with its projection and filter
pushed down into planning and reading.

Why a Dataset: DuckDB's Python client scans an Arrow Dataset by calling its
``scanner(columns=[...], filter=<pyarrow Expression>)`` with exactly the columns the query needs
and the filters its optimizer pushed down, and then trusts the scanner to have applied them. A
Dataset is the one Arrow object DuckDB pushes both into (a RecordBatchReader or an Arrow table
gets neither), and DuckDB has no Python table functions. ``SnapshotDataset`` answers
``scanner`` with ``Scanner.from_batches`` over our own read: the filter becomes a ``--where``
predicate (``arrow_filter.to_where``, conservative) that prunes partitions, files and rows in
the scan, and the scanner then applies DuckDB's expression itself to every batch, so the rows
are exactly what DuckDB asked for.

Invariant: the C++ side of ``pyarrow.dataset.Dataset`` is never initialised, so only the
methods overridden here may be called (``schema``, ``scanner``, ``to_batches``, ``to_table``,
``count_rows``, ``head``); the others raise ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.dataset as ds

from paimon_core.metadata.live_files import expiry_checked
from paimon_core.read.arrow_filter import referenced_columns, to_where
from paimon_core.read.fallback import with_fallback
from paimon_core.read.predicate import Predicate, parse_filter
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

BATCH_ROWS = 131_072  # DuckDB reads vectors of 2048 rows; Arrow batches this big keep it busy


class SnapshotDataset(ds.Dataset):  # type: ignore[misc]  # the C++ side stays empty, see above
    """The rows of ``table`` at ``snapshot`` (None: an empty table), optionally already narrowed
    to ``columns`` and filtered by ``predicate`` (both applied to every scan)."""

    def __init__(
        self,
        table: TableContext,
        snapshot: Snapshot | None,
        columns: list[str] | None = None,
        predicate: Predicate | None = None,
    ):  # no super().__init__: pyarrow forbids constructing a Dataset directly
        self.table = table
        self.snapshot = snapshot
        self.base_columns = list(columns) if columns else None
        self.predicate = predicate
        self._schema = TableRead(table, self.base_columns).output_schema()
        self.scans: list[tuple[list[str], str | None, int]] = []  # (columns read, where, files)
        self.failure: Exception | None = None  # an error our read raised inside a consumer

    @property
    def schema(self) -> pa.Schema:  # type: ignore[override]
        return self._schema

    def _where(self, expression) -> Predicate | None:
        text = to_where(expression, self._schema.names)
        pushed = None
        if text is not None:
            try:
                pushed = parse_filter(self.table.schema, text)
            except Exception:  # a literal our language casts differently: no pruning, same rows
                pushed = None
        if self.predicate is None:
            return pushed
        if pushed is None:
            return self.predicate
        from paimon_core.read.predicate import And

        return And(self.predicate, pushed)

    def scanner(  # type: ignore[override]
        self, columns: list[str] | None = None, filter=None, batch_size: int | None = None, **_
    ) -> ds.Scanner:
        """A Scanner over our read of the columns ``columns`` needs and the rows ``filter`` may
        match; it projects to ``columns`` and applies ``filter`` exactly."""
        names = self._schema.names
        wanted = names if columns is None else [c for c in columns if c in names]
        needed = set(wanted) | set(referenced_columns(filter, names))
        read_columns = [c for c in names if c in needed] or names[:1]  # count(*) still needs rows
        predicate = self._where(filter)
        reader = TableRead(self.table, read_columns, predicate)
        splits = with_fallback(
            self.table, self.snapshot, plan(self.table, self.snapshot, predicate), predicate
        )
        where_text = to_where(filter, names)
        self.scans.append((read_columns, where_text, sum(len(s.files) for s in splits)))
        return ds.Scanner.from_batches(
            self._batches(reader, splits),
            schema=reader.output_schema(),
            columns=list(columns) if columns is not None else None,
            filter=filter,
            batch_size=batch_size or BATCH_ROWS,
        )

    def _batches(self, reader: TableRead, splits) -> Iterator[pa.RecordBatch]:
        try:
            with expiry_checked(self.table, self.snapshot):
                for t in reader.to_batches(splits):
                    yield from t.to_batches(max_chunksize=BATCH_ROWS)
        except Exception as e:  # the consumer (DuckDB) reports it as text: keep it for the caller
            self.failure = e
            raise

    # ---- the Dataset methods a user of the object may call
    def to_batches(self, columns=None, filter=None, **kw):  # type: ignore[override]
        return self.scanner(columns, filter).to_batches()

    def to_table(self, columns=None, filter=None, **kw) -> pa.Table:  # type: ignore[override]
        return self.scanner(columns, filter).to_table()

    def count_rows(self, filter=None, **kw) -> int:  # type: ignore[override]
        return self.scanner([], filter).count_rows()

    def head(self, num_rows: int, columns=None, filter=None, **kw) -> pa.Table:  # type: ignore[override]
        return self.scanner(columns, filter).head(num_rows)

    def to_reader(self, columns=None, filter=None) -> pa.RecordBatchReader:
        return self.scanner(columns, filter).to_reader()
