"""``read -o csv`` / ``-o json`` (and ``sql``) print through the vectorised writers of
``paimon_core.data.text_lines``: the same bytes the row printer (``CsvSink.write`` /
``JsonSink.write`` over ``convert.arrow_rows``) gives for every column type, NULLs, nested
columns; a column type those writers do not render goes through the row printer."""

from __future__ import annotations

from pathlib import Path

import pytest

from paimon_cli.output import FEW_ROWS, CsvSink, JsonSink
from paimon_core.catalog import FileSystemCatalog
from tests.core.data.test_text_lines import TYPES, _old, _table

from .conftest import write_parquet

# CHAR(3) is padded on write and a MULTISET count is never NULL: the random values of those two
# are not what such a table holds; ``r`` holds timestamps past 2262, which ``ingest`` reads
# through nanoseconds inside a ROW (left for its own fix); ``deep`` still holds ROWs
COLUMNS = {k: v for k, v in TYPES.items() if k not in ("c", "ms", "r")}


@pytest.fixture
def typed(cli, tmp_path):
    cli("create-table", "db.all", "--schema", ", ".join(f"{k} {v}" for k, v in COLUMNS.items()))
    table = FileSystemCatalog(str(cli.wh)).get_table("db.all")
    data = _table(11, FEW_ROWS + 100).select(list(COLUMNS))  # past the rows a sink prints row by row
    cli("ingest", write_parquet(Path("all.parquet"), data), "-t", "db.all")
    table = FileSystemCatalog(str(cli.wh)).get_table("db.all")
    return table.new_read().to_arrow(table.plan(table.snapshots.latest()))


@pytest.fixture
def no_row_printer(monkeypatch):
    """The row printer refuses: output that still appears came from the vectorised writers."""

    def refuse(self, rows):
        raise AssertionError("rows went through the row printer")

    monkeypatch.setattr(CsvSink, "write", refuse)
    monkeypatch.setattr(JsonSink, "write", refuse)


def test_read_csv_on_stdout_is_the_row_printers_bytes(cli, typed):
    expected = _old(typed, CsvSink)
    assert cli("-o", "csv", "read", "-t", "db.all").stdout_bytes == expected


def test_read_json_on_stdout_is_the_row_printers_bytes(cli, typed):
    expected = _old(typed, JsonSink)
    assert cli("-o", "json", "read", "-t", "db.all").stdout_bytes == expected


def test_read_text_formats_do_not_go_row_by_row(cli, typed, no_row_printer):
    from paimon_core.data.text_lines import csv_header, csv_lines, json_lines

    csv_text = csv_header(typed.column_names) + b"".join(b.to_pybytes() for b in csv_lines(typed))
    assert cli("-o", "csv", "read", "-t", "db.all").stdout_bytes == csv_text
    n = FEW_ROWS + 50
    json_text = b"".join(b.to_pybytes() for b in json_lines(typed.slice(0, n)))
    assert cli("-o", "json", "read", "-t", "db.all", "--limit", str(n)).stdout_bytes == json_text


def test_a_few_rows_go_row_by_row(cli, typed, monkeypatch):
    """Up to FEW_ROWS rows the row printer prints (the same bytes, without the vectorised
    writers, whose first conversion of a Python value loads pandas)."""
    import paimon_core

    def refuse(table):
        raise AssertionError("a few rows went through the vectorised writers")

    monkeypatch.setattr(paimon_core, "csv_lines", refuse)  # where the CLI's sinks take them from
    monkeypatch.setattr(paimon_core, "json_lines", refuse)
    few = typed.slice(0, 20)
    assert cli("-o", "csv", "read", "-t", "db.all", "--limit", "20").stdout_bytes == _old(few, CsvSink)
    assert cli("-o", "json", "read", "-t", "db.all", "--limit", "20").stdout_bytes == _old(few, JsonSink)


def test_sql_types_without_a_text_form_go_row_by_row(cli):
    out = cli("-o", "csv", "sql", "SELECT INTERVAL 1 DAY AS i, 1 AS n").stdout
    assert out.splitlines()[0] == "i,n"
    assert out.splitlines()[1].endswith(",1")
