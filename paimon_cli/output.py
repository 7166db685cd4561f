"""Rendering on stdout: Rich tables (``-o table``), JSON lines (``-o json``), CSV (``-o csv``).

Every command hands rows of plain values (see ``plain.py``) to one ``Output``. On a
terminal ``-o table`` is a Rich table; off a terminal it is a plain aligned text table
(no colours, no cell cut to fit 80 columns, and fast: Rich takes ~1 ms a row).
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from paimon_cli.plain import json_safe, plain_value


def arrow_rows(table):
    """Rows of plain values of an Arrow table or batch (``paimon_cli.convert``)."""
    from paimon_cli.convert import arrow_rows as rows

    return rows(table)


def text_cell(v) -> str:
    """How a plain value reads in CSV and tables (None is handled by the caller)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if v == v and v not in (float("inf"), float("-inf")) else json_safe(v)
    if isinstance(v, (list, dict)):
        return json.dumps(json_safe(v), ensure_ascii=False, separators=(",", ":"))
    return str(v)


def _write_bytes(stream, data) -> None:
    """UTF-8 ``data`` (an Arrow buffer) on a text stream: straight to its byte layer when it has
    one (stdout), after what was written as text before."""
    out = stream or sys.stdout
    binary = getattr(out, "buffer", None)
    if binary is None:
        out.write(memoryview(data).tobytes().decode())
        return
    out.flush()
    binary.write(data)


def _vectorised(table) -> bool:
    """Whether every column of ``table`` (an Arrow table or batch) has its text form in
    ``paimon_core.data.text_forms`` (else its rows go through the row printer)."""
    from paimon_core import renders

    return all(renders(f.type) for f in table.schema)


# Up to this many rows in all, a sink prints row by row (``_write_vectorised``).
FEW_ROWS = 1000


def _write_vectorised(sink, table, lines: str) -> None:
    """``table``'s rows through ``paimon_core.csv_lines`` / ``json_lines`` (``lines``) on ``sink.stream``, or through
    ``sink.write`` (the row printer) when a column has no text form there. The first ``FEW_ROWS``
    rows a sink prints go through the row printer too (the same bytes): for a few rows it is the
    faster one, as the vectorised writers' first Arrow conversion of a Python value makes pyarrow
    import pandas (a quarter of a second)."""
    if sink.rows_printed + table.num_rows <= FEW_ROWS:
        sink.rows_printed += table.num_rows
        sink.write(arrow_rows(table))
        return
    if not _vectorised(table):
        sink.write(arrow_rows(table))
        return
    from paimon_core import csv_lines, json_lines

    for buf in (json_lines if lines == "json_lines" else csv_lines)(table):
        _write_bytes(sink.stream, buf)


class JsonSink:
    """JSON lines, one object per row (on ``stream``, default stdout)."""

    def __init__(self, columns: Sequence[str], stream=None):
        self.columns = list(columns)
        self.stream = stream
        self.rows_printed = 0  # by the row printer, for FEW_ROWS

    def write(self, rows: Iterable[Sequence]) -> None:
        out = self.stream or sys.stdout
        for row in rows:
            obj = dict(zip(self.columns, row, strict=True))
            out.write(json.dumps(json_safe(obj), ensure_ascii=False) + "\n")

    def write_arrow(self, table) -> None:
        """The rows of an Arrow table or batch, the same bytes as ``write`` of their plain values,
        rendered a column at a time (``text_lines.json_lines``)."""
        _write_vectorised(self, table, "json_lines")

    def close(self) -> None:
        (self.stream or sys.stdout).flush()


def csv_field(v) -> str:
    """One CSV field: NULL is an empty unquoted field and the empty string a quoted one (``""``),
    so that the two read back apart; other text is quoted only where CSV needs it."""
    if v is None:
        return ""
    text = text_cell(v)
    if text == "" or any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


class CsvSink:
    """CSV with a header line (on ``stream``, default stdout); nested values as JSON text."""

    def __init__(self, columns: Sequence[str], stream=None):
        self.stream = stream
        self.rows_printed = 0  # by the row printer, for FEW_ROWS
        (stream or sys.stdout).write(",".join(csv_field(c) for c in columns) + "\n")

    def write(self, rows: Iterable[Sequence]) -> None:
        (self.stream or sys.stdout).write("".join(",".join(map(csv_field, row)) + "\n" for row in rows))

    def write_arrow(self, table) -> None:
        """The rows of an Arrow table or batch, the same bytes as ``write`` of their plain values,
        rendered a column at a time (``text_lines.csv_lines``)."""
        _write_vectorised(self, table, "csv_lines")

    def close(self) -> None:
        (self.stream or sys.stdout).flush()


def is_terminal() -> bool:
    """Whether stdout is a terminal (a Rich table) or not (a plain text table)."""
    return sys.stdout.isatty()


class _TableSink:
    def __init__(self, columns: Sequence[str], numeric: Sequence[bool] | None, title: str | None):
        self.columns = list(columns)
        self.numeric = list(numeric) if numeric is not None else None
        self.title = title
        self.rows: list[Sequence] = []

    def write(self, rows: Iterable[Sequence]) -> None:
        self.rows.extend(rows)

    def write_arrow(self, table) -> None:
        self.write(arrow_rows(table))

    def _numeric(self) -> list[bool]:
        if self.numeric is not None:
            return self.numeric
        flags = []
        for i in range(len(self.columns)):
            vals = [r[i] for r in self.rows if r[i] is not None]
            flags.append(
                bool(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
            )
        return flags

    def close(self) -> None:
        numeric = self._numeric()
        if is_terminal():
            self._print_rich(numeric)
        else:
            sys.stdout.write(plain_table(self.columns, self.rows, numeric, self.title))
            sys.stdout.flush()

    def _print_rich(self, numeric: list[bool]) -> None:
        from rich import box
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(title=self.title, box=box.ROUNDED, header_style="bold")
        for name, num in zip(self.columns, numeric, strict=True):
            table.add_column(name, justify="right" if num else "left", overflow="fold")
        for row in self.rows:
            table.add_row(*[Text("null", style="dim") if v is None else Text(text_cell(v)) for v in row])
        Console(file=sys.stdout, highlight=False).print(table)


def plain_table(
    columns: Sequence[str], rows: Sequence[Sequence], numeric: Sequence[bool], title: str | None = None
) -> str:
    """An aligned text table without colours or wrapping (stdout is a pipe or a file)."""
    cells = [[("null" if v is None else text_cell(v)).replace("\n", "\\n") for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def line(values) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(parts).rstrip() + "\n"

    out = [f"{title}\n"] if title else []
    out.append(line(columns))
    out.append("  ".join("-" * w for w in widths) + "\n")
    out.extend(line(r) for r in cells)
    return "".join(out)


class Output:
    """One output format for one command invocation."""

    def __init__(self, fmt: str = "table"):
        self.fmt = fmt

    def sink(self, columns: Sequence[str], numeric: Sequence[bool] | None = None, title: str | None = None):
        """A sink for streaming rows of plain values: ``write(rows)`` any number of times, then ``close()``."""
        if self.fmt == "json":
            return JsonSink(columns)
        if self.fmt == "csv":
            return CsvSink(columns)
        return _TableSink(columns, numeric, title)

    def rows(self, columns: Sequence[str], rows: Iterable[Sequence], title: str | None = None) -> None:
        """Print rows of Python values (dates, decimals, bytes... are made plain here)."""
        sink = self.sink(columns, title=title)
        sink.write([[plain_value(v) for v in row] for row in rows])
        sink.close()

    def record(self, obj: dict, text: str) -> None:
        """A one-record result (a summary): ``text`` on a terminal table, else the record itself."""
        if self.fmt == "table":
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
            return
        self.rows(list(obj), [list(obj.values())])


def note(text: str) -> None:
    """A one-line remark for the user on stderr (never mixed into results)."""
    sys.stderr.write(f"note: {text}\n")
    sys.stderr.flush()


@contextlib.contextmanager
def conversion_notes() -> Iterator[None]:
    """Print each input conversion the core announced (``InputConversion``) once, as a note,
    when the block ends; other warnings pass through."""
    import warnings

    from paimon_core import InputConversion

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InputConversion)
        try:
            yield
        finally:
            others = [w for w in caught if not issubclass(w.category, InputConversion)]
            for text in dict.fromkeys(
                str(w.message) for w in caught if issubclass(w.category, InputConversion)
            ):
                note(text)
    for w in others:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def with_conversion_notes(command: Callable) -> Callable:
    """A command that prints the input conversions of its run (see ``conversion_notes``)."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        with conversion_notes():
            return command(*args, **kwargs)

    return run
