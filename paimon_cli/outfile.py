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


def check_out(path: Path, force: bool) -> str:
    """The format of ``--out path`` (``out_format``) once the path can be written: its folder
    exists, and an existing file is replaced only with ``--force``; CliError naming the path
    otherwise, before anything is read. An existing folder is the engine's to judge (the Spark
    engine replaces a folder of part files it wrote, and refuses any other)."""
    path = Path(path)
    fmt = out_format(path)
    parent = path.parent
    if not parent.is_dir():
        raise CliError(f"--out {path}: the folder {parent} does not exist")
    if path.is_file() and not force:
        raise CliError(f"--out {path}: it exists; give --force to replace it")
    return fmt


class _TextRows:
    """Arrow tables -> CSV (with a header) or JSON lines on a binary stream, a batch at a time
    (``paimon_core.data.text_lines``: the same text ``-o csv`` / ``-o json`` print)."""

    def __init__(self, fmt: str, columns: list, stream):
        from paimon_core import csv_header, csv_lines, json_lines

        self.stream = stream
        self.lines = csv_lines if fmt == "csv" else json_lines
        if fmt == "csv":
            stream.write(csv_header(columns))

    def write(self, table) -> None:
        for buf in self.lines(table):
            self.stream.write(buf)

    def close(self) -> None:
        self.stream.flush()


def text_renderer(fmt: str, columns: list, stream) -> _TextRows:
    """The renderer engines' exports use for CSV and JSON lines (``paimon_core.engines.export``);
    ``stream`` is binary."""
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
