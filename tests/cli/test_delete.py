"""``paimon delete``: dry runs change nothing, a delete is one snapshot, refusals are one line."""

from __future__ import annotations

from pathlib import Path

from .conftest import SCHEMA, events, write_parquet


def _ids(cli, table: str) -> list[int]:
    return sorted(r["id"] for r in cli.json("read", "-t", table))


def _files(wh: Path) -> dict:
    return {str(p): p.stat().st_mtime_ns for p in wh.rglob("*") if p.is_file()}


def test_delete_on_dv_append_table(cli, wh):
    cli(
        "create-table",
        "demo.e",
        "--schema",
        SCHEMA,
        "--partition",
        "dt",
        "-O",
        "deletion-vectors.enabled=true",
    )
    cli("ingest", write_parquet(Path("in/e.parquet"), events(20)), "-t", "demo.e")
    before = _files(wh)
    dry = cli.json("delete", "demo.e", "--where", "id < 5 OR id = 17", "--dry-run")
    assert dry == [
        {
            "table": "demo.e",
            "rows": 6,
            "files": 2,
            "mode": "deletion vectors",
            "dry_run": True,
            "snapshot": None,
        }
    ]
    assert _files(wh) == before
    out = cli("delete", "demo.e", "--where", "id < 5 OR id = 17").stdout
    assert "deleted 6 row(s) of demo.e (deletion vectors), snapshot 2" in out
    assert _ids(cli, "demo.e") == [i for i in range(20) if i >= 5 and i != 17]
    assert cli.snapshot_ids("demo.e") == [1, 2]
    assert "no rows of demo.e match" in cli("delete", "-t", "demo.e", "--where", "id < 5").stdout


def test_delete_rewrites_plain_append_and_writes_deletes_on_pk(cli):
    cli("create-table", "demo.p", "--schema", SCHEMA, "--partition", "dt")
    cli("ingest", write_parquet(Path("in/e.parquet"), events(20)), "-t", "demo.p")
    assert cli.json("delete", "-t", "demo.p", "--where", "value >= 5")[0]["mode"] == "rewrite"
    assert _ids(cli, "demo.p") == list(range(10))
    cli("create-table", "demo.k", "--schema", SCHEMA, "-k", "id", "--bucket", "2")
    cli("ingest", "in/e.parquet", "-t", "demo.k")
    assert cli.json("delete", "-t", "demo.k", "--where", "id IN (1, 2, 99)")[0]["rows"] == 2
    assert _ids(cli, "demo.k") == [0] + list(range(3, 20))


def test_delete_refusals(cli):
    cli(
        "create-table",
        "demo.g",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "merge-engine=aggregation",
    )
    r = cli("delete", "-t", "demo.g", "--where", "id = 1", code=1)
    assert "merge-engine=aggregation is not supported" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("delete", "-t", "demo.g", code=1)
    assert "needs --where" in r.stderr
    r = cli(
        "create-table",
        "demo.f",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "merge-engine=first-row",
        "-O",
        "deletion-vectors.enabled=true",
        code=1,
    )
    assert "deletion vectors are not supported with merge-engine=first-row" in r.stderr


def test_delete_summary_names_the_work_that_followed(cli):
    """A delete's summary names the compaction snapshot and the expiry that followed its commit,
    as ingest's does."""
    cli(
        "create-table",
        "demo.dv",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "deletion-vectors.enabled=true",
    )
    cli("ingest", write_parquet(Path("in/e.parquet"), events(20)), "-t", "demo.dv")
    out = cli("delete", "demo.dv", "--where", "id = 3").stdout
    latest = cli.snapshot_ids("demo.dv")[-1]
    assert out.strip().endswith(f"; then compacted in snapshot {latest}"), out
    cli(
        "create-table",
        "demo.a",
        "--schema",
        SCHEMA,
        "-O",
        "snapshot.num-retained.max=1",
        "-O",
        "snapshot.num-retained.min=1",
    )
    cli("ingest", "in/e.parquet", "-t", "demo.a")
    out = cli("delete", "demo.a", "--where", "id = 3").stdout
    assert out.strip().endswith("; then expired 1 snapshot"), out
