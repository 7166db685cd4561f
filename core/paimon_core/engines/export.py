"""Exports: rows read from a table, or the changes between two snapshots, saved outside the table.

Every engine implements ``export_rows(RowsExport)`` and ``export_changes(ChangesExport)`` and
answers an ``ExportResult``:
the local engine writes one file (``parquet``, or ``csv`` / ``json`` lines through a renderer
the caller supplies, which writes UTF-8 bytes on the binary stream of the file; the CLI's renders
a batch at a time with ``paimon_core.data.text_lines``), the Spark engine a
folder of Parquet part files written by its executors (text formats are refused before any work).

Invariants: a local export appears only when complete (written to a temporary name in the same
folder, then renamed), and a failure leaves neither the file nor the temporary file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from paimon_core.errors import InvalidInput, UnsupportedFeature

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    import pyarrow as pa

    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.read.predicate import Predicate
    from paimon_core.table import FileStoreTable

FORMATS = ("parquet", "csv", "json")  # json = JSON lines

OnPlan = Callable[[int], None]  # called once with the input bytes an export will process
Advance = Callable[[int], None]  # called with input bytes just processed


@dataclass(frozen=True)
class ExportResult:
    """``path`` written; ``rows`` in it; ``kind`` "file" (one file in the asked format) or
    "folder" (a folder of Parquet part files)."""

    path: str
    rows: int
    kind: str


@dataclass(frozen=True)
class ExportTarget:
    """Where and how an export is saved: ``path`` in ``fmt`` (parquet | csv | json), text through
    ``render``; ``on_plan(total_bytes)`` once, then ``progress(bytes)`` as input is read."""

    path: str | os.PathLike
    fmt: str = "parquet"
    render: TextRenderer | None = None
    on_plan: OnPlan | None = None
    progress: Advance | None = None


@dataclass(frozen=True)
class RowsExport:
    """The rows of ``splits`` of ``table`` (``columns`` projected, ``predicate`` applied, at most
    ``limit``), saved at ``target``."""

    table: FileStoreTable
    splits: list
    target: ExportTarget
    columns: list[str] | None = None
    predicate: Predicate | None = None
    limit: int | None = None


@dataclass(frozen=True)
class ChangesExport:
    """The changes of ``table`` in (``start``, ``end``] (``paimon_core.read.diff.diff`` with
    ``mode`` and ``per_snapshot``), saved at ``target``. ``start``/``end``: a snapshot id (0 =
    empty) or a Snapshot (a tag's)."""

    table: FileStoreTable
    start: int | Snapshot
    end: int | Snapshot
    target: ExportTarget
    mode: str = "auto"
    per_snapshot: bool = False
    columns: list[str] | None = None


class TextSink(Protocol):
    def write(self, table: pa.Table) -> None: ...  # an Arrow table of rows, in order

    def close(self) -> None: ...


# (fmt, column names, binary stream) -> a sink writing rows as UTF-8 text in ``fmt`` ("csv" | "json")
TextRenderer = Callable[[str, list, object], TextSink]


def check_format(fmt: str, render: TextRenderer | None = None) -> None:
    """Refuse a format no engine writes, and a text format without a renderer."""
    if fmt not in FORMATS:
        raise InvalidInput(f"cannot export '{fmt}' (one of {', '.join(FORMATS)})")
    if fmt != "parquet" and render is None:
        raise UnsupportedFeature(f"a {fmt.upper()} export needs a text renderer")


def refuse_text_formats(path, fmt: str) -> None:
    """Engines that write folders of Parquet part files (Spark) refuse the text formats."""
    if fmt != "parquet":
        raise UnsupportedFeature(
            f"{path}: the Spark engine writes a folder of Parquet part files, not "
            f"{fmt.upper()}; use the local engine for a CSV or JSON file"
        )


def split_bytes(splits) -> int:
    """The size of the data files the splits read (what ``auto`` weighs and progress counts)."""
    return sum(f.file_size for s in splits for f in s.files)


def point_bytes(table: FileStoreTable, point) -> int:
    """The size of the table's data files at ``point``: a snapshot id (0 = empty) or a Snapshot."""
    from paimon_core.metadata.snapshot import Snapshot

    if not point:
        return 0
    snap = point if isinstance(point, Snapshot) else table.snapshots.snapshot(point)
    return split_bytes(table.plan(snap))


def read_batches(
    reader, splits, limit: int | None, advance: Advance | None = None, window: int = 16
) -> Iterable:
    """``reader.to_batches`` over ``splits`` a window at a time, calling ``advance`` with the bytes
    of each window once its rows are out (the windows keep the reader's parallelism)."""
    splits = list(splits)
    remaining = limit
    for i in range(0, len(splits), window):
        chunk = splits[i : i + window]
        for t in reader.to_batches(chunk, remaining):
            if remaining is not None:
                remaining -= t.num_rows
            yield t
        if advance:
            advance(split_bytes(chunk))
        if remaining is not None and remaining <= 0:
            return


def write_file(batches: Iterable, empty_schema, path, fmt: str, render: TextRenderer | None = None) -> int:
    """Stream Arrow batches (tables or record batches) into the file ``path`` in ``fmt``; returns
    the number of rows. A failure leaves no file (and no temporary file)."""
    check_format(fmt, render)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        if fmt == "parquet":
            rows = _write_parquet(batches, empty_schema, tmp)
        else:
            assert render is not None  # check_format refused a text format without a renderer
            rows = _write_text(batches, empty_schema, tmp, fmt, render)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return rows


def _write_parquet(batches, empty_schema, tmp: Path) -> int:
    import pyarrow.parquet as pq

    writer, rows = None, 0
    try:
        for batch in batches:
            if writer is None:
                writer = pq.ParquetWriter(tmp, batch.schema)
            writer.write_table(_as_table(batch).cast(writer.schema))
            rows += batch.num_rows
        if writer is None:
            writer = pq.ParquetWriter(tmp, empty_schema)
    finally:
        if writer is not None:
            writer.close()
    return rows


def _write_text(batches, empty_schema, tmp: Path, fmt: str, render: TextRenderer) -> int:
    rows = 0
    with open(tmp, "wb", buffering=1 << 20) as f:
        sink = render(fmt, list(empty_schema.names), f)
        for batch in batches:
            sink.write(_as_table(batch))
            rows += batch.num_rows
        sink.close()
    return rows


def _as_table(batch):
    import pyarrow as pa

    return pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
