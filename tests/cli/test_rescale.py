"""``paimon rescale``: a dry run changes nothing, a rescale is one snapshot, refusals are one line."""

from __future__ import annotations

from pathlib import Path

from .conftest import events, write_parquet

SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING NOT NULL"


def test_rescale_partition(cli):
    cli(
        "create-table",
        "demo.e",
        "--schema",
        SCHEMA,
        "--partition",
        "dt",
        "--primary-key",
        "id,dt",
        "-O",
        "bucket=2",
    )
    cli("ingest", write_parquet(Path("in/e.parquet"), events(20)), "-t", "demo.e")
    rows = sorted(r["id"] for r in cli.json("read", "-t", "demo.e"))
    ids = cli.snapshot_ids("demo.e")
    dry = cli.json("rescale", "demo.e", "--bucket", "4", "-p", "dt=2024-01-01", "--dry-run")
    assert dry == [
        {
            "table": "demo.e",
            "partitions": 1,
            "rows": 10,
            "bucket": 4,
            "buckets_before": {"dt=2024-01-01": 2},
            "dry_run": True,
            "snapshot": None,
        }
    ]
    assert cli.snapshot_ids("demo.e") == ids
    out = cli("rescale", "demo.e", "--bucket", "4", "-p", "dt=2024-01-01").stdout
    assert (
        out.strip()
        == f"rewrote 1 partition(s) of demo.e (10 row(s)) into 4 bucket(s), snapshot {ids[-1] + 1}"
    )
    assert sorted(r["id"] for r in cli.json("read", "-t", "demo.e")) == rows
    err = cli("ingest", write_parquet(Path("in/f.parquet"), events(2)), "-t", "demo.e", code=None)
    assert err.exit_code != 0
    assert "partition dt=2024-01-01 holds files of 4 buckets, this write has 2" in err.stderr
    assert len(err.stderr.strip().splitlines()) == 1, err.stderr


def test_rescale_refuses_unbucketed_tables(cli):
    cli("create-table", "demo.a", "--schema", SCHEMA)
    cli("ingest", write_parquet(Path("in/e.parquet"), events(4)), "-t", "demo.a")
    r = cli("rescale", "demo.a", "--bucket", "3", code=None)
    assert r.exit_code != 0
    assert r.stderr.strip().startswith(
        "error: table demo.a has bucket -1: only tables with a fixed bucket number"
    )
