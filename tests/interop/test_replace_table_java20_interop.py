"""``replaceTable`` (Java 2.0; 1.4.2 has none) on the filesystem catalog, both ways: Java 2.0.0's
``FileSystemCatalog.replaceTable`` on a table we wrote, then our CLI reads it (empty at the
latest, the old rows by time travel to before the replace, the new schema as latest+1); and our
``create-table --replace``, then Java reads it the same way. Both write a truncating OVERWRITE
snapshot (operation TRUNCATE) at the old schema, then the new schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.interop.harness.canonical import assert_same_rows

pytestmark = [pytest.mark.interop]

ROWS = [{"id": 1, "name": "a", "dt": "d1"}, {"id": 2, "name": "b", "dt": "d2"}]
MORE = [{"id": 3, "name": "c", "dt": "d1"}]
NEW_COLUMNS = "id BIGINT, email STRING, dt STRING"


def _written(tmp_path: Path) -> Cli:
    """``db.t`` (id, name, dt; partitioned by dt) with two snapshots, written by us."""
    cli = Cli(tmp_path / "wh")
    cli("create-table", "db.t", "--schema", "id BIGINT, name STRING, dt STRING", "--partition", "dt")
    for i, rows in enumerate((ROWS, MORE)):
        f = tmp_path / f"in{i}.csv"
        f.write_text("id,name,dt\n" + "".join(f"{r['id']},{r['name']},{r['dt']}\n" for r in rows))
        cli("ingest", "-t", "db.t", str(f))
    return cli


def _latest_schema(cli: Cli) -> tuple[int, list[str]]:
    (schema,) = cli.json("schema", "-t", "db.t")
    return schema["id"], [f["name"] for f in schema["fields"]]


def test_java_replaces_a_table_we_wrote_and_we_read_its_history(java20, tmp_path):
    cli = _written(tmp_path)
    fields = [{"name": n, "type": t} for n, t in (("id", "BIGINT"), ("email", "STRING"), ("dt", "STRING"))]
    got = java20.call(
        "catalog_calls",
        warehouse=str(tmp_path / "wh"),
        calls=[
            {"call": "replaceTable", "table": "db.t", "fields": fields, "partition_keys": ["dt"]},
            {"call": "replaceTable", "table": "db.t", "fields": fields},  # partition keys change
            {"call": "getTable", "table": "db.t"},
        ],
    )["results"]
    assert "error" not in got[0], got[0]
    assert got[1]["error"] == "UnsupportedOperationException" and "partition keys" in got[1]["message"]
    assert [f["name"] for f in got[2]["fields"]] == ["id", "email", "dt"]

    snaps = cli.json("snapshots", "-t", "db.t")
    last = snaps[-1]
    assert (last["id"], last["kind"], last["total_records"], last["schema_id"]) == (3, "OVERWRITE", 0, 0)
    assert last["operation"] == "TRUNCATE"  # Java 2.0's truncating commit says so; we read it
    assert _latest_schema(cli) == (1, ["id", "email", "dt"])
    assert cli.json("read", "-t", "db.t") == []
    assert_same_rows(cli.json("read", "-t", "db.t", "--snapshot", "2"), ROWS + MORE)
    assert_same_rows(cli.json("read", "-t", "db.t", "--snapshot", "1"), ROWS)


def test_we_replace_a_table_and_java_reads_its_history(java20, tmp_path):
    cli = _written(tmp_path)
    out = cli.json("create-table", "db.t", "--replace", "--schema", NEW_COLUMNS, "--partition", "dt")
    assert out == [
        {"table": "db.t", "created": False, "replaced": True, "schema_id": 1, "previous_snapshot": 2}
    ]
    wh = str(tmp_path / "wh")
    meta, latest, before, snapshots = java20.run(
        [
            {"op": "catalog_calls", "warehouse": wh, "calls": [{"call": "getTable", "table": "db.t"}]},
            {"op": "read", "warehouse": wh, "table": "db.t"},
            {"op": "read", "warehouse": wh, "table": "db.t", "snapshot": 2},
            {"op": "system_table", "warehouse": wh, "name": "db.t$snapshots"},
        ]
    )
    assert [f["name"] for f in meta["results"][0]["fields"]] == ["id", "email", "dt"]
    assert latest["rows"] == []
    assert_same_rows(before["rows"], ROWS + MORE)
    # our truncating commit carries Java 2.0's operation, as Java's own replaceTable writes it
    assert [r["operation"] for r in snapshots["rows"]] == [None, None, "TRUNCATE"]
