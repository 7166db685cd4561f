"""``--out FILE``: rows saved in the format the file name says.

``.parquet`` (or no extension) is Parquet, ``.csv`` CSV with a header, ``.json``/``.jsonl``
JSON lines; the text formats read exactly as ``-o csv`` / ``-o json`` print. Any other
extension is refused before anything is read, so ``--out rows.txt`` never silently gets
Parquet. The engines write the file (``Engine.export_rows`` / ``export_changes``: it appears only
when complete); this module names the format and renders the text formats.
"""

from __future__ import annotations

from pathlib import Path

from paimon_cli.errors import CliError

FORMATS = {".parquet": "parquet", "": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json"}


def out_format(path: Path) -> str:
    """parquet | csv | json for ``path``; CliError for an extension we do not write."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CliError(
            f"--out {path}: cannot write '{suffix}' files; name a .parquet, .csv, .json or .jsonl file"
        )
    return FORMATS[suffix]


class _TextRows:
    """Arrow tables -> rows of plain values -> the ``-o csv`` / ``-o json`` sink on a file."""

    def __init__(self, fmt: str, columns: list, stream):
        from paimon_cli.output import CsvSink, JsonSink

        self.sink = (CsvSink if fmt == "csv" else JsonSink)(columns, stream)

    def write(self, table) -> None:
        from paimon_cli.convert import arrow_rows

        self.sink.write(arrow_rows(table))

    def close(self) -> None:
        self.sink.close()


def text_renderer(fmt: str, columns: list, stream) -> _TextRows:
    """The renderer engines' exports use for CSV and JSON lines (``paimon_core.engines.export``)."""
    return _TextRows(fmt, columns, stream)


def export_record(state, result, what: str) -> None:
    """Print the outcome of an engine export (``ExportResult``) of ``what`` (rows / changes)."""
    if result.kind == "folder":
        state.out.record(
            {"folder": result.path, what: result.rows},
            f"wrote {result.rows} {what} to {result.path}/ (a folder of Parquet part files)",
        )
    else:
        state.out.record(
            {"file": result.path, "rows": result.rows}, f"wrote {result.rows} {what} to {result.path}"
        )
