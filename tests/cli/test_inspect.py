"""snapshots, schema, files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from .conftest import events, write_parquet

T = "demo.events"


def test_snapshots(cli, events_table):
    cli("ingest", write_parquet(Path("b.parquet"), events(4, 10)), "-t", T)
    s1, s2 = cli.json("snapshots", "-t", T)
    assert (s1["id"], s1["kind"], s1["total_records"], s1["delta_records"], s1["schema_id"]) == (
        1,
        "APPEND",
        10,
        10,
        0,
    )
    assert (s2["id"], s2["total_records"], s2["delta_records"], s2["changelog_records"]) == (2, 14, 4, 0)
    assert s1["operation"] is s2["operation"] is None  # a write has none, as Java's core writes it
    when = dt.datetime.fromisoformat(s1["time"].replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.timezone.utc) - when).total_seconds()) < 600
    r = cli("snapshots", "-t", T)
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["id", "kind", "operation", "time", "(UTC)", "records", "delta", "schema"]
    assert lines[2].split()[:4] == ["1", "APPEND", s1["time"][:10], s1["time"][11:19]]
    assert max(len(line) for line in lines) <= 80
    assert r.stderr == ""  # an append table: records are rows


def test_snapshots_of_a_primary_key_table_say_records_are_not_rows(cli):
    cli("create-table", "db.pk", "--schema", "id BIGINT NOT NULL, v STRING", "-k", "id", "--bucket", "1")
    Path("a.csv").write_text("id,v\n1,a\n2,b\n")
    Path("b.csv").write_text("id,v\n1,c\n2,d\n3,e\n")
    cli("ingest", "a.csv", "-t", "db.pk")
    cli("ingest", "b.csv", "-t", "db.pk")
    assert cli.json("snapshots", "-t", "db.pk")[-1]["total_records"] == 5  # stored records
    assert cli("read", "-t", "db.pk", "--count").stdout == "3\n"  # rows
    r = cli("snapshots", "-t", "db.pk")
    assert r.stdout.splitlines()[0].split()[5] == "records"
    assert r.stderr == (
        "note: records are stored records (before merging by key, deletes included); "
        "`paimon read --count` counts rows\n"
    )


def test_snapshots_of_an_empty_table(cli):
    cli("create-table", "db.e", "--schema", "id INT")
    assert cli.json("snapshots", "-t", "db.e") == []


def test_schema(cli):
    cli(
        "create-table",
        "db.s",
        "--schema",
        "dt STRING, id BIGINT COMMENT 'the id', v DECIMAL(10, 2)",
        "-k",
        "dt,id",
        "-p",
        "dt",
        "--bucket",
        "2",
        "--comment",
        "a table",
    )
    text = cli("schema", "-t", "db.s").stdout
    assert "db.s (schema 0)" in text
    assert "DECIMAL(10, 2)" in text and "the id" in text
    assert "partition keys: dt" in text and "primary keys: dt, id" in text and "comment: a table" in text
    assert any(line.split() == ["bucket", "2"] for line in text.splitlines())
    out = cli("-o", "json", "schema", "-t", "db.s").stdout
    assert out.count("\n") == 1
    obj = json.loads(out)
    assert obj["id"] == 0 and obj["primaryKeys"] == ["dt", "id"] and obj["options"]["bucket"] == "2"
    assert obj["fields"][1] == {"id": 1, "name": "id", "type": "BIGINT NOT NULL", "description": "the id"}
    csv_lines = cli("-o", "csv", "schema", "-t", "db.s").stdout.splitlines()
    assert csv_lines[0] == "id,name,type,comment"
    assert csv_lines[2] == "1,id,BIGINT NOT NULL,the id"


def test_files(cli, events_table):
    cli("ingest", write_parquet(Path("b.parquet"), events(4, 10, days=("2024-01-03",))), "-t", T)
    rows = cli.json("files", "-t", T)
    assert sorted({r["partition"] for r in rows}) == ["dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-03"]
    assert sum(r["rows"] for r in rows) == 14
    assert all(r["file"].endswith(".parquet") and r["size"] > 0 and r["level"] == 0 for r in rows)
    assert all(r["min_seq"] <= r["max_seq"] for r in rows)
    old = cli.json("files", "-t", T, "--snapshot", "1")
    assert sum(r["rows"] for r in old) == 10 and len(old) == 2
    assert list(rows[0]) == ["partition", "bucket", "level", "file", "rows", "size", "min_seq", "max_seq"]


@pytest.mark.parametrize("terminal", [False, True], ids=["plain", "rich"])
def test_files_and_snapshots_fit_80_columns(cli, events_table, monkeypatch, terminal):
    """On a terminal (a Rich table, with borders) and off one: no line over 80 columns and no
    cell split over lines; -o json keeps the full file names and sizes."""
    from paimon_cli import output

    cli("ingest", write_parquet(Path("b.parquet"), events(4, 10, days=("2024-01-03",))), "-t", T)
    full = cli.json("files", "-t", T)
    monkeypatch.setattr(output, "is_terminal", lambda: terminal)
    out = cli("files", "-t", T, env={"COLUMNS": "80"}).stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    for r in full:
        short = r["file"][:13] + "…-" + r["file"].rsplit("-", 1)[1].split(".")[0]
        assert sum(short in line for line in lines) == 1, (short, out)  # whole, on one line
    out = cli("snapshots", "-t", T, env={"COLUMNS": "80"}).stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert len([line for line in out.splitlines() if "APPEND" in line]) == 2  # one line per snapshot
