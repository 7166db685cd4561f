"""``paimon doctor``: the drawn report names the findings and the commands to run, fits 80
columns, ``-o json`` carries the same facts, and a missing table is a one-line error."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .conftest import SCHEMA, events, run_paimon, write_parquet


def _pk_table_with_runs(cli, writes: int = 4) -> str:
    """demo.pk: one bucket, compaction trigger 3, write-only (so level-0 runs pile up)."""
    cli(
        "create-table",
        "demo.pk",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "num-sorted-run.compaction-trigger=3",
        "-O",
        "write-only=true",
    )
    for i in range(writes):
        cli("ingest", write_parquet(Path(f"in/p{i}.parquet"), events(5, start=i * 5)), "-t", "demo.pk")
    return "demo.pk"


def _data_bytes(cli, table: str) -> int:
    root = cli.wh / (table.split(".")[0] + ".db") / table.split(".")[1]
    return sum(
        os.path.getsize(os.path.join(d, n))
        for d, _, names in os.walk(root)
        for n in names
        if n.startswith("data-")
    )


def test_table_output_names_findings_and_advice(cli, tmp_path):
    _pk_table_with_runs(cli)
    out = cli("doctor", "demo.pk", env={"COLUMNS": "80"}).stdout
    assert "demo.pk" in out and "primary key" in out and "snapshot 4" in out
    assert "4 runs" in out and "L0" in out
    assert "sorted runs: 1 bucket(s) with up to 4 sorted runs" in out
    assert "paimon compact -t demo.pk" in out and "sorted runs >= 3" in out
    assert "deletion vec." in out and "n/a" in out
    assert "findings: 1 to act on" in out
    assert max(len(line) for line in out.splitlines()) <= 80, out

    cli("compact", "-t", "demo.pk", "--level-max")
    out = cli("doctor", "-t", "demo.pk", env={"COLUMNS": "80"}).stdout
    assert "findings: all good" in out and "1 run" in out and "0 rows in L0" in out and " L3 " in out
    # the four level-0 files of snapshots 1-4 are now held only by those snapshots
    assert "4 file(s)" in out


def test_real_terminal_width_80(cli, tmp_path):
    """The console entry point in a subprocess with COLUMNS=80 (as in a terminal of that width)."""
    _pk_table_with_runs(cli, writes=6)
    r = run_paimon("-w", cli.wh, "doctor", "demo.pk", cwd=tmp_path, env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 80, r.stdout
    assert "6 runs" in r.stdout


def test_json_facts(cli, tmp_path):
    _pk_table_with_runs(cli)
    r = cli("-o", "json", "doctor", "demo.pk")
    lines = r.stdout.splitlines()
    assert len(lines) == 1
    d = json.loads(lines[0])
    assert {
        "table",
        "primary_key",
        "buckets",
        "files",
        "bytes",
        "rows",
        "small_files",
        "level0_rows",
        "postpone_rows",
        "dv_ratio",
        "snapshots",
        "held_bytes",
        "held_files",
        "orphan_files",
        "orphan_bytes",
        "thresholds",
        "findings",
    } <= set(d)
    assert d["table"] == "demo.pk" and d["primary_key"] is True and d["snapshot_id"] == 4
    assert d["files"] == 4 and d["rows"] == 20 and d["level0_rows"] == 20 and d["postpone_rows"] == 0
    assert d["bytes"] == _data_bytes(cli, "demo.pk")
    assert d["dv_ratio"] is None and d["orphan_files"] == 0 and d["held_bytes"] == 0
    [b] = d["buckets"]
    assert (b["partition"], b["bucket"], b["sorted_runs"], b["files"]) == ("", 0, 4, 4)
    assert b["levels"] == [{"level": 0, "files": 4, "bytes": d["bytes"], "rows": 20}]
    assert d["snapshots"]["count"] == 4 and d["snapshots"]["expirable"] == 0
    assert d["thresholds"]["runs_trigger"] == 3
    warn = [f for f in d["findings"] if f["level"] == "warn"]
    assert [(f["topic"], f["command"]) for f in warn] == [("sorted runs", "paimon compact")]


def test_append_table_partitions(cli, events_table):
    d = json.loads(cli("-o", "json", "doctor", events_table).stdout)
    assert not d["primary_key"] and d["rows"] == 10
    assert sorted((b["partition"], b["sorted_runs"]) for b in d["buckets"]) == [
        ("dt=2024-01-01", None),
        ("dt=2024-01-02", None),
    ]
    out = cli("doctor", events_table).stdout
    assert "dt=2024-01-01" in out and "append" in out


def test_missing_table_is_one_line(cli):
    cli("create-table", "demo.events", "--schema", SCHEMA)
    r = cli("doctor", "demo.nope", code=1)
    assert r.stderr.strip().splitlines() == ["error: table 'demo.nope' does not exist"]
    assert r.stdout == ""


def test_a_missing_data_file_is_found_and_named(cli, events_table):
    """A live data file gone from storage: every read fails, so doctor must not say all good."""
    before = json.loads(cli("-o", "json", "doctor", events_table).stdout)
    assert before["missing_files"] == []
    root = cli.wh / "demo.db" / "events"
    victim = sorted(p for p in root.rglob("data-*") if p.is_file())[0]
    victim.unlink()
    rel = victim.relative_to(root).as_posix()
    d = json.loads(cli("-o", "json", "doctor", events_table).stdout)
    assert d["missing_files"] == [rel]
    (finding,) = [f for f in d["findings"] if f["topic"] == "missing files"]
    assert finding["level"] == "warn" and rel in finding["text"] and "rollback" in finding["text"]
    out = cli("doctor", events_table).stdout
    assert "findings: all good" not in out and "missing files" in out
