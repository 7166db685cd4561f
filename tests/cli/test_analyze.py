"""``paimon analyze``: one ANALYZE snapshot, ``$statistics`` shows it; a bad column is one clear
error that commits nothing; a table without snapshots is told so."""

from __future__ import annotations

import json


def test_analyze_then_statistics(cli, events_table):
    before = cli.snapshot_ids(events_table)
    (rec,) = cli.json("analyze", "-t", events_table, "--columns", "id,name")
    assert rec["snapshot"] == before[-1] + 1 and rec["analyzed_snapshot"] == before[-1]
    assert rec["merged_records"] == 10 and rec["columns"] == ["id", "name"]
    (row,) = cli.json("read", "-t", f"{events_table}$statistics")
    assert row["snapshot_id"] == before[-1] and row["mergedRecordCount"] == 10
    assert json.loads(row["colstat"])["id"]["nullCount"] == 0
    assert "committed snapshot" in cli("analyze", "-t", events_table).stdout


def test_unknown_column_is_refused(cli, events_table):
    before = cli.snapshot_ids(events_table)
    res = cli("analyze", "-t", events_table, "--columns", "nope", code=1)
    assert "column 'nope' is not in" in res.stderr and "Traceback" not in res.stderr
    assert cli.snapshot_ids(events_table) == before


def test_empty_table(cli):
    cli("create-table", "db.e", "--schema", "id INT")
    assert "nothing to analyze" in cli("analyze", "-t", "db.e").stdout
