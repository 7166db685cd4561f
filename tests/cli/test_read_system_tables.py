"""paimon read -t 'db.t$snapshots': system tables through the read flags (Java's columns)."""

from __future__ import annotations

import csv
from pathlib import Path

import pyarrow.parquet as pq

from .conftest import events, write_parquet

T = "demo.events"


def test_snapshots_select_where_count(cli, events_table):
    cli("ingest", write_parquet(Path("in/e2.parquet"), events(5, 10)), "-t", T)
    rows = cli.json("read", "-t", f"{T}$snapshots", "--select", "snapshot_id,commit_kind")
    assert rows == [
        {"snapshot_id": 1, "commit_kind": "APPEND"},
        {"snapshot_id": 2, "commit_kind": "APPEND"},
    ]
    assert cli.json(
        "read", "-t", f"{T}$snapshots", "--where", "snapshot_id > 1", "--select", "snapshot_id"
    ) == [{"snapshot_id": 2}]
    assert cli("read", "-t", f"{T}$files", "--count").stdout.strip() == "4"  # 2 commits x 2 partitions
    assert cli.json("read", "-t", f"{T}$snapshots", "-n", "1", "--select", "snapshot_id") == [
        {"snapshot_id": 1}
    ]


def test_partitions_and_out_files(cli, events_table, tmp_path):
    rows = cli.json("read", "-t", f"{T}$partitions", "--select", "partition,record_count,file_count")
    assert rows == [
        {"partition": "dt=2024-01-01", "record_count": 5, "file_count": 1},
        {"partition": "dt=2024-01-02", "record_count": 5, "file_count": 1},
    ]
    out = tmp_path / "files.csv"
    cli("read", "-t", f"{T}$files", "--select", "partition,record_count", "--out", out)
    with out.open() as f:
        assert sorted(tuple(r.values()) for r in csv.DictReader(f)) == [
            ("{2024-01-01}", "5"),
            ("{2024-01-02}", "5"),
        ]
    pout = tmp_path / "snaps.parquet"
    cli("read", "-t", f"{T}$snapshots", "--out", pout)
    assert pq.read_table(pout).column_names[:3] == ["snapshot_id", "schema_id", "commit_user"]


def test_branch_system_table_and_global(cli, events_table, catalog_lane):
    cli("branch", "create", "b1", "-t", T)
    assert cli.json("read", "-t", f"{T}$branches", "--select", "branch_name") == [{"branch_name": "b1"}]
    assert [r["schema_id"] for r in cli.json("read", "-t", f"{T}$branch_b1$schemas")] == [0]
    keys = {r["key"] for r in cli.json("read", "-t", "sys.all_table_options")}
    assert "path" in keys
    # as Java 2.0: it lists every catalog option (passwords, tokens), so only when asked for
    err = cli("read", "-t", "sys.catalog_options", code=1).stderr
    assert err.startswith("error: table 'sys.catalog_options' exists only with --catalog-option ") and (
        err.count("\n") == 1
    )
    enabled = ("--catalog-option", "catalog-options-table.enabled=true")
    options = {r["key"]: r["value"] for r in cli.json(*enabled, "read", "-t", "sys.catalog_options")}
    assert options["warehouse"] == str(cli.wh)
    assert options.get("metastore") == (None if catalog_lane == "fs" else "rest")
    assert options["catalog-options-table.enabled"] == "true"


def test_data_system_tables(cli, events_table):
    rows = cli.json("read", "-t", f"{T}$audit_log", "--where", "id < 2", "--select", "rowkind,id")
    assert sorted(rows, key=lambda r: r["id"]) == [{"rowkind": "+I", "id": 0}, {"rowkind": "+I", "id": 1}]
    assert cli("read", "-t", f"{T}$ro", "--count").stdout.strip() == "10"
    assert cli.json(
        "read", "-t", f"{T}$binlog", "--where", "rowkind = '+I'", "-n", "1", "--select", "rowkind"
    )


def test_bad_system_table_names_and_flags(cli, events_table):
    r = cli("read", "-t", f"{T}$nope", code=1)
    assert "unknown system table '$nope'" in r.stderr and "$snapshots" in r.stderr
    r = cli("read", "-t", f"{T}$snapshots", "--select", "nope", code=1)
    assert "has no column 'nope'" in r.stderr
    r = cli("read", "-t", f"{T}$snapshots", "--snapshot", "1", code=2)
    assert "system table" in r.stderr
    r = cli("ingest", "x.csv", "-t", f"{T}$files", code=None)
    assert r.exit_code != 0 and "is a system table" in r.stderr
