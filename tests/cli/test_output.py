"""Rendering of values: dates/timestamps ISO, decimals exact, bytes hex, nested JSON."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

from paimon_cli.output import plain_table
from paimon_cli.progress import byte_progress

from .conftest import write_parquet

SCHEMA = (
    "d DATE, t TIME(3), ts TIMESTAMP(6), ns TIMESTAMP(9), ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, "
    "dec DECIMAL(20, 4), b BYTES, ok BOOLEAN, f DOUBLE, arr ARRAY<INT>, m MAP<STRING, INT>, "
    "r ROW<x INT, y STRING>"
)


def make(cli):
    cli("create-table", "db.types", "--schema", SCHEMA)
    data = pa.table(
        {
            "d": pa.array([dt.date(2024, 2, 29), None], pa.date32()),
            "t": pa.array([dt.time(12, 30, 1, 500000), None], pa.time32("ms")),
            "ts": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 123456), None], pa.timestamp("us")),
            "ns": pa.array([1_700_000_000_123_456_789, None], pa.timestamp("ns")),
            "ltz": pa.array(
                [dt.datetime(2024, 1, 2, 3, 4, 5, 7000, tzinfo=dt.timezone.utc), None],
                pa.timestamp("ms", tz="UTC"),
            ),
            "dec": pa.array([Decimal("12345678901234.5600"), None], pa.decimal128(20, 4)),
            "b": pa.array([b"\x00\xffab", None], pa.binary()),
            "ok": [True, None],
            "f": [float("nan"), 1.25],
            "arr": pa.array([[1, None, 3], None], pa.list_(pa.int32())),
            "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int32())),
            "r": pa.array([{"x": 1, "y": "a,b"}, None], pa.struct([("x", pa.int32()), ("y", pa.string())])),
        }
    )
    cli("ingest", write_parquet(Path("types.parquet"), data), "-t", "db.types")


EXPECTED = {
    "d": "2024-02-29",
    "t": "12:30:01.500000",
    "ts": "2024-01-02T03:04:05.123456",
    "ns": "2023-11-14T22:13:20.123456789",
    "ltz": "2024-01-02T03:04:05.007000+00:00",
    "dec": "12345678901234.5600",
    "b": "00ff6162",
    "ok": True,
    "f": "NaN",
    "arr": [1, None, 3],
    "m": {"k": 1},
    "r": {"x": 1, "y": "a,b"},
}


def test_json_values(cli):
    make(cli)
    first, second = cli.json("read", "-t", "db.types")
    assert first == EXPECTED
    assert second == {**{k: None for k in EXPECTED}, "f": 1.25}


def test_csv_values(cli):
    make(cli)
    rows = list(csv.DictReader(io.StringIO(cli("-o", "csv", "read", "-t", "db.types").stdout)))
    assert rows[0]["dec"] == "12345678901234.5600"
    assert rows[0]["ok"] == "true"
    assert rows[0]["arr"] == "[1,null,3]"
    assert rows[0]["m"] == '{"k":1}'
    assert rows[0]["r"] == '{"x":1,"y":"a,b"}'
    assert rows[1]["d"] == "" and rows[1]["f"] == "1.25"


def test_table_values(cli):
    make(cli)
    out = cli("read", "-t", "db.types").stdout
    assert "12345678901234.5600" in out and "00ff6162" in out and "null" in out
    assert '{"x":1,"y":"a,b"}' in out


def test_plain_table_alignment():
    text = plain_table(["n", "s"], [[1, "a"], [100, None]], [True, False], title="T")
    assert text.splitlines() == ["T", "  n  s", "---  ----", "  1  a", "100  null"]


def test_progress_bar_renders(capsys, monkeypatch):
    """Enabled on a terminal: the bar ends at the planned total; disabled: nothing on stderr."""
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich renders as on a terminal
    monkeypatch.setenv("COLUMNS", "100")
    with byte_progress("copying", enabled=True) as (on_plan, advance):
        on_plan(100)
        advance(60)
        advance(40)
    err = capsys.readouterr().err
    assert "copying" in err and "100/100 bytes" in err, err
    with byte_progress("copying", enabled=False) as (on_plan, advance):
        on_plan(100)
        advance(100)
    assert capsys.readouterr() == ("", "")


def test_progress_without_a_total_spins_and_counts(capsys, monkeypatch):
    """Work whose total is not known shows a spinner and the amount done, never "n/?"."""
    import re

    from paimon_cli.progress import count_progress

    def text(err: str) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err)

    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    with byte_progress("copying", enabled=True) as (_on_plan, advance):
        advance(1500)
    err = text(capsys.readouterr().err)
    assert "copying" in err and "1.5 kB" in err and "?" not in err, err
    with count_progress("compact t", "buckets", enabled=True) as advance:
        advance(3)
    err = text(capsys.readouterr().err)
    assert "3 buckets" in err and "?" not in err, err
    with count_progress("expire t", "files", enabled=True, total=4) as advance:
        advance(4)
    assert "4/4 files" in text(capsys.readouterr().err)
