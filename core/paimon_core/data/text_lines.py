"""Arrow tables -> CSV or JSON-lines bytes, a batch at a time (Arrow compute, no per-row Python).

CSV: a header line of the column names, then one line per row, fields joined by ``,``; a field
is its ``text_forms.text_column`` text, NULL is an empty unquoted field and the empty string a
quoted one (``""``), and a text holding ``,`` ``"`` CR or LF is quoted with ``"`` doubled.
JSON lines: one object per row, ``{"col": value, ...}`` with ``json.dumps``'s default
separators, values as ``text_forms.json_column``.

Invariant: the bytes are UTF-8 and equal what ``paimon_cli.output``'s ``CsvSink`` / ``JsonSink``
print for the same rows (the row-at-a-time forms ``-o csv`` / ``-o json`` print).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.parallel import THREADS, ordered_parallel
from paimon_core.data.text_forms import SPACED, json_column, text_column

ROWS_PER_PIECE = 65_536  # a piece's text stays far below the 2 GiB of a string array

_BARE = ("is_boolean", "is_integer", "is_floating", "is_decimal", "is_date", "is_time", "is_timestamp")


def csv_field_text(text: str) -> str:
    """One header field (a column name) as CSV."""
    if text == "" or any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_header(columns: list[str]) -> bytes:
    return (",".join(csv_field_text(c) for c in columns) + "\n").encode()


def _csv_cell(arr) -> pa.Array:
    """Each value's CSV field (quoted where it holds , " CR or LF or is empty; NULL empty)."""
    text = text_column(arr)
    if not any(getattr(pa.types, check)(arr.type) for check in _BARE):  # text that may need quotes
        needs = _needs_quotes(text)
        if needs is not None:
            some = text.filter(needs)
            quoted = pc.binary_join_element_wise('"', pc.replace_substring(some, '"', '""'), '"', "")
            text = pc.replace_with_mask(text, needs, quoted)
    return pc.fill_null(text, "") if text.null_count else text


_STRUCTURAL = np.zeros(256, bool)
_STRUCTURAL[[ord(c) for c in ',"\r\n']] = True


def _needs_quotes(text: pa.Array) -> pa.Array | None:
    """Which values are empty or hold , " CR or LF (None: none), found on the UTF-8 bytes at
    once (those bytes never occur inside a multi-byte character)."""
    text = text.cast(pa.string())
    if len(text) == 0:
        return None
    offsets = np.frombuffer(text.buffers()[1], np.int32)[text.offset : text.offset + len(text) + 1]
    data = text.buffers()[2]
    data = (
        np.frombuffer(data, np.uint8)[offsets[0] : offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    )
    hits = np.flatnonzero(_STRUCTURAL[data])
    needs = np.diff(offsets) == 0
    if text.null_count:
        needs &= np.asarray(pc.is_valid(text))
    if len(hits):
        needs[np.searchsorted(offsets, hits + offsets[0], side="right") - 1] = True
    return pa.array(needs) if needs.any() else None


def _lines_buffer(lines: pa.Array) -> pa.Buffer:
    """The concatenated text of a string array without nulls, as it sits in its data buffer."""
    if len(lines) == 0:
        return pa.py_buffer(b"")
    bounds = np.frombuffer(lines.buffers()[1], np.int32)[lines.offset : lines.offset + len(lines) + 1]
    start, end = int(bounds[0]), int(bounds[-1])
    return lines.buffers()[2].slice(start, end - start)


def csv_lines(table: pa.Table) -> Iterator[pa.Buffer]:
    """The rows of ``table`` as CSV lines (no header), a buffer per piece of rows (pieces are
    rendered on a few threads, in order)."""
    return ordered_parallel(_csv_rows, _pieces(table), THREADS)


def _csv_rows(piece: pa.Table) -> pa.Buffer:
    """Fields joined by , and lines ended by LF, in one pass of Arrow compute (the fields are
    already CSV text; this is faster than handing the text columns to Arrow's CSV writer, which
    copies and checks them again)."""
    if piece.num_columns == 0:
        return pa.py_buffer(b"\n" * piece.num_rows)
    cells = [_csv_cell(piece.column(i)) for i in range(piece.num_columns)]
    line = pc.binary_join_element_wise(*cells, ",") if len(cells) > 1 else cells[0]
    return _lines_buffer(pc.binary_join_element_wise(line, "", "\n"))


def json_lines(table: pa.Table) -> Iterator[pa.Buffer]:
    """The rows of ``table`` as JSON lines, a buffer per piece of rows (rendered on a few
    threads, in order)."""
    names = [json.dumps(n, ensure_ascii=False) + SPACED.key for n in table.column_names]
    return ordered_parallel(lambda piece: _json_rows(piece, names), _pieces(table), THREADS)


def _json_rows(piece: pa.Table, names: list[str]) -> pa.Buffer:
    if piece.num_columns == 0:
        return pa.py_buffer(b"{}\n" * piece.num_rows)
    members = [
        pc.binary_join_element_wise(name, json_column(piece.column(i), SPACED), "")
        for i, name in enumerate(names)
    ]
    body = pc.binary_join_element_wise(*members, SPACED.item) if len(members) > 1 else members[0]
    return _lines_buffer(pc.binary_join_element_wise("{", body, "}\n", ""))


def _pieces(table: pa.Table):
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    for start in range(0, table.num_rows, ROWS_PER_PIECE):
        yield table.slice(start, ROWS_PER_PIECE)
