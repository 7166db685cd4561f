"""``paimon compact --manifests`` and the sort compactions (``--order-by``, ``--zorder``, ``--hilbert``)."""

from __future__ import annotations

from pathlib import Path

from .conftest import SCHEMA, events, write_parquet


def test_compact_manifests(cli):
    cli("create-table", "demo.e", "--schema", SCHEMA, "--partition", "dt")
    for i in range(4):
        cli("ingest", write_parquet(Path(f"in/e{i}.parquet"), events(5, start=10 * i)), "-t", "demo.e")
    rows = sorted(r["id"] for r in cli.json("read", "-t", "demo.e"))
    (first,) = cli.json("compact", "-t", "demo.e", "--manifests")
    assert first == {"table": "demo.e", "snapshot": 5, "manifests_before": 4, "manifests_after": 1}
    assert cli.json("compact", "-t", "demo.e", "--manifests") == [
        {"table": "demo.e", "snapshot": None, "manifests_before": 1, "manifests_after": 1}
    ]
    assert sorted(r["id"] for r in cli.json("read", "-t", "demo.e")) == rows
    r = cli("compact", "-t", "demo.e", "--manifests", "--full", code=2)
    assert "--manifests compacts manifests only" in r.stderr


def test_sort_compaction(cli):
    cli("create-table", "demo.l", "--schema", SCHEMA, "--partition", "dt")
    for i in range(3):
        cli("ingest", write_parquet(Path(f"in/l{i}.parquet"), events(6, start=20 - 5 * i)), "-t", "demo.l")
    rows = sorted((r["id"], r["dt"]) for r in cli.json("read", "-t", "demo.l"))
    (res,) = cli.json("compact", "-t", "demo.l", "--zorder", "id,value", "-p", "dt=2024-01-01")
    assert res["strategy"] == "zorder" and res["columns"] == ["id", "value"] and res["partitions"] == 1
    assert res["files_before"] == 3 and res["files_after"] == 1 and res["rows"] == 9
    assert sorted((r["id"], r["dt"]) for r in cli.json("read", "-t", "demo.l")) == rows
    out = cli("compact", "-t", "demo.l", "--order-by", "id").stdout
    assert out.startswith("rewrote 2 partition(s) of demo.l in order by id: 18 row(s)")
    ids = [r["id"] for r in cli.json("read", "-t", "demo.l", "--where", "dt = '2024-01-02'")]
    assert ids == sorted(ids)
    r = cli("compact", "-t", "demo.l", "--zorder", "id", "--hilbert", "id", code=2)
    assert "give one of --order-by, --zorder, --hilbert" in r.stderr
    cli("create-table", "demo.k", "--schema", SCHEMA, "--primary-key", "id", "-O", "bucket=1")
    r = cli("compact", "-t", "demo.k", "--order-by", "id", code=1)
    assert "sort compaction rewrites append tables without buckets" in r.stderr
