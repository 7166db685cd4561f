"""``--out FILE``: rows saved in the format the file name says.

``.parquet`` (or no extension) is Parquet, ``.csv`` CSV with a header, ``.json``/``.jsonl``
JSON lines; the text formats read exactly as ``-o csv`` / ``-o json`` print. Any other
extension is refused before anything is read, so ``--out rows.txt`` never silently gets
Parquet. The file appears only when complete (written to a temporary name, then renamed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from paimon_cli.errors import CliError

FORMATS = {".parquet": "parquet", "": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json"}


def out_format(path: Path) -> str:
    """parquet | csv | json for ``path``; CliError for an extension we do not write."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CliError(f"--out {path}: cannot write '{suffix}' files; name a .parquet, .csv, .json or .jsonl file")
    return FORMATS[suffix]


def spark_out_format(path: Path) -> None:
    """With the Spark engine ``--out`` is a folder of Parquet part files: refuse text formats."""
    fmt = out_format(path)
    if fmt != "parquet":
        raise CliError(f"--out {path}: the Spark engine writes a folder of Parquet part files, not {fmt.upper()}; "
                       "use --engine local for a CSV or JSON file")


def write_out(batches: Iterable, empty_schema, path: Path) -> int:
    """Stream Arrow batches (tables or record batches) into ``path`` in its format; returns
    the number of rows. A failure leaves no file (and no temporary file)."""
    fmt = out_format(path)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        rows = (_write_parquet if fmt == "parquet" else _write_text)(batches, empty_schema, tmp, fmt)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return rows


def _write_parquet(batches, empty_schema, tmp: Path, _fmt: str) -> int:
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


def _write_text(batches, empty_schema, tmp: Path, fmt: str) -> int:
    from paimon_cli.convert import arrow_rows
    from paimon_cli.output import CsvSink, JsonSink

    rows = 0
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        sink = (CsvSink if fmt == "csv" else JsonSink)(empty_schema.names, f)
        for batch in batches:
            sink.write(arrow_rows(_as_table(batch)))
            rows += batch.num_rows
        sink.close()
    return rows


def _as_table(batch):
    import pyarrow as pa

    return pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
