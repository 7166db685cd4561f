"""``paimon compact --manifests``: one COMPACT snapshot folding the manifests, then nothing to do."""

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
