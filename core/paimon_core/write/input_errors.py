"""Where in an input file a bad row is, for error messages: CSV and JSON-lines rows as line
numbers (what an editor shows), Parquet rows as row numbers.

Only the error path comes here, so plain Python reading of the file is fine. Arrow's CSV
reader reports neither the line of a malformed row nor the row of a value it cannot convert;
both are found again here (the value by casting the column read as text, bisecting slices).
"""

from __future__ import annotations

import csv
import re

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.types import to_arrow_type
from paimon_core.errors import InvalidInput, SchemaMismatch


class InputRowError(SchemaMismatch):
    """A bad value in one row of the data being checked; ``row`` counts from 0 within it."""

    def __init__(self, what: str, row: int):
        super().__init__(f"row {row + 1}: {what}")
        self.what = what
        self.row = row


class InputLineError(InvalidInput):
    """A bad record at ``line`` (1-based) of a text input; ``what`` says what is wrong."""

    def __init__(self, where: str, line: int, what: str):
        super().__init__(f"{where}: line {line}: {what}")
        self.line = line
        self.what = what


def json_line(text: bytes, where: str, line: int):
    """The JSON value on ``line`` of ``where``; InputLineError when it is not valid JSON."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputLineError(where, line, f"not valid JSON ({e.msg})") from None
    except UnicodeDecodeError:
        raise InputLineError(where, line, "not UTF-8 text") from None


def _csv_records(path: str):
    """(first line number, fields) of each non-blank record, the header first."""
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        last = 0
        for fields in reader:
            start, last = last + 1, reader.line_num
            if fields:
                yield start, fields


def _json_lines(path: str):
    with open(path, encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh, 1):
            if line.strip():
                yield i


def row_position(path: str, fmt: str, row: int) -> str:
    """``line N`` of the ``row``-th (from 0) record of a CSV or JSON-lines file, else ``row N+1``."""
    try:
        if fmt == "csv":
            for i, (line, _) in enumerate(_csv_records(path)):
                if i == row + 1:  # the header is record 0
                    return f"line {line}"
        elif fmt == "json":
            for i, line in enumerate(_json_lines(path)):
                if i == row:
                    return f"line {line}"
    except (OSError, csv.Error):
        pass
    return f"row {row + 1}"


_CSV_COLUMN = re.compile(r"In CSV column #(\d+): CSV conversion error to ([^:]+): invalid value '(.*)'")


NOT_UTF8 = "CSV and JSON-lines input must be UTF-8: convert it first (e.g. iconv -f latin1 -t utf-8)"


def not_utf8(line: bytes) -> str | None:
    """What is wrong with a line that is not UTF-8 text (None when it is)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text (byte 0x{line[e.start]:02x} at column {e.start + 1}); {NOT_UTF8}"
    return None


def _first_non_utf8_line(path: str) -> str | None:
    with open(path, "rb") as fh:
        for n, line in enumerate(fh, 1):
            what = not_utf8(line)
            if what is not None:
                return f"line {n} is {what}"
    return None


def explain_csv_error(path: str, message: str, types: dict) -> str:
    """A clearer message for Arrow's CSV error ``message``, with the line it is about;
    ``types``: column name -> table DataType."""
    if "invalid UTF8" in message:
        try:
            return _first_non_utf8_line(path) or message
        except OSError:
            return message
    m = _CSV_COLUMN.search(message)
    if m:
        return _conversion_error(path, int(m.group(1)), types) or message
    if "Expected" in message and "columns, got" in message:
        try:
            width = None
            for line, fields in _csv_records(path):
                if width is None:
                    width = len(fields)
                elif len(fields) != width:
                    return f"line {line} has {len(fields)} fields, the header has {width}"
        except (OSError, csv.Error):
            pass
    return message


def _conversion_error(path: str, index: int, types: dict) -> str | None:
    """Find the first row whose column ``index`` does not convert, by reading that column as
    text and casting slices of it (Arrow's CSV conversion and cast share their parsers)."""
    import pyarrow.csv as pcsv

    try:
        name = next(_csv_records(path))[1][index]
        table_type = types.get(name)
        if table_type is None:
            return None
        target = to_arrow_type(table_type)
        col = pcsv.read_csv(
            path,
            convert_options=pcsv.ConvertOptions(
                include_columns=[name], column_types={name: pa.string()}, strings_can_be_null=True
            ),
        ).column(0)
    except (OSError, pa.ArrowInvalid, StopIteration, IndexError, csv.Error):
        return None
    col = col.combine_chunks()
    bad = _first_failing(col, target)
    if bad is None:
        return None
    where = row_position(path, "csv", bad)
    return f"{where}: column '{name}' has '{col[bad].as_py()}', not a valid {table_type.with_nullable(True)}"


def _first_failing(col: pa.Array, target: pa.DataType) -> int | None:
    def ok(lo: int, hi: int) -> bool:
        try:
            pc.cast(col.slice(lo, hi - lo), target)
            return True
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False

    if ok(0, len(col)):
        return None
    lo, hi = 0, len(col)  # invariant: the first failing row is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(lo, mid):
            lo = mid
        else:
            hi = mid
    return lo
