"""snapshots, schema, files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from .conftest import events, write_parquet

T = "demo.events"


def test_snapshots(cli, events_table):
    cli("ingest", write_parquet(Path("b.parquet"), events(4, 10)), "-t", T)
    s1, s2 = cli.json("snapshots", "-t", T)
    assert (s1["id"], s1["kind"], s1["total_rows"], s1["delta_rows"], s1["schema_id"]) == (1, "APPEND", 10, 10, 0)
    assert (s2["id"], s2["total_rows"], s2["delta_rows"]) == (2, 14, 4)
    when = dt.datetime.fromisoformat(s1["time"].replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.timezone.utc) - when).total_seconds()) < 600
    text = cli("snapshots", "-t", T).stdout
    assert text.splitlines()[0].split() == ["id", "kind", "time", "total_rows", "delta_rows", "schema_id"]


def test_snapshots_of_an_empty_table(cli):
    cli("create-table", "db.e", "--schema", "id INT")
    assert cli.json("snapshots", "-t", "db.e") == []


def test_schema(cli):
    cli("create-table", "db.s", "--schema", "dt STRING, id BIGINT COMMENT 'the id', v DECIMAL(10, 2)",
        "-k", "dt,id", "-p", "dt", "--bucket", "2", "--comment", "a table")
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
